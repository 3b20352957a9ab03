// The live table: one WebSocket, the seat's view as the server sends it, and a page
// drawn from it. Buttons exist only for the legal actions the server lists: no rule
// of the game lives here.
import { $, backImg, cardImg, cardName, copyButton, el } from "./dom.js";
import { FairDeals } from "./fairness.js";
import { lang, t } from "./i18n.js";
import { patched } from "./patch.js";
import { refusalText } from "./refusal.js";
import { sound } from "./sound.js";
import { Story, botOptions, closedBazas, describeRules, tableTitle } from "./story.js";
import { hintLine } from "./tutorial.js";


const POSITIONS = { 2: ["bot", "top"], 4: ["bot", "r", "top", "l"], 6: ["bot", "br", "tr", "top", "tl", "bl"] };
const TRUCO_LEVELS = ["", "truco", "retruco", "vale-cuatro"];
const KEYS = {
  e: ["envido"], r: ["real-envido"], f: ["falta-envido"], t: ["truco", "retruco", "vale-cuatro"],
  q: ["quiero"], n: ["no-quiero"], l: ["flor"], c: ["contraflor", "contraflor-al-resto", "con-flor-me-achico"],
};
const KEY_OF = Object.fromEntries(Object.entries(KEYS).flatMap(([k, tokens]) => tokens.map((a) => [a, k])));
KEY_OF.mazo = "m";
/** Close codes after which retrying cannot help. */
const FINAL = { 4404: "no_table", 4410: "over", 4400: "kicked", 1008: "kicked" };
/** The close of a socket over the address's or the player's cap (server/socket_caps.py). */
const TOO_MANY_SOCKETS = 4430;
/** How long a closed hand stays on the table before the next one is drawn (unless the
 * player moves on first). */
const LANDED_MS = 5000;
/** A seat's name in two parts, the person and what follows in brackets (a bot's level,
 * "Rosa (principiante)"), so that a narrow seat puts the level on a line of its own
 * instead of breaking the name anywhere. */
const nameParts = (name) => {
  const m = /^(.*\S) (\([^()]+\))$/.exec(name);
  return m ? [m[1], " ", el("span", { class: "who-level" }, m[2])] : [name];
};
/** What the server accepts as a table code (see server/live.py). */
export const TABLE_CODE = /^[A-Za-z0-9_-]{1,32}$/;

export class TableScreen {
  /** ``ctx``: ``{app, api, identity, socketUrl, go}`` from the page's entry module. */
  constructor(id, ctx) {
    this.id = id;
    this.ctx = ctx;
    this.version = null;
    this.state = null;
    this.live = false;
    this.log = [];
    this.notesLogged = 0;
    this.notesHand = null;
    this.before = null;  // the score before the hand that is closing
    this.summary = null;  // {index, lines, hand}
    this.freshSummary = false;
    this.playedSeen = null;
    this.showdownAt = null;
    this.attempts = 0;
    this.closedByUs = false;
    this.clockTimer = null;
    this.mazoArmed = false;
    this.actedOn = null;  // the state version the last action was sent on
    this.popped = new Set();  // the speech bubbles already shown
    this.landed = null;  // the closed hand kept on the table: {hand, bazas, fresh}
    this.landedTimer = null;
    this.rematch = { accepted: [] };  // the rematch's events so far (after the match)
    this.result = undefined;  // the recorded result (ratings): undefined until asked
    this.onKey = (ev) => this.key(ev);
    this.fair = new FairDeals(() => this.state && this.render());  // commitments, verified decks
  }

  async open() {
    if (!TABLE_CODE.test(this.id)) { this.fail(t("table.bad_code", { id: this.id.slice(0, 40) })); return; }
    await this.ctx.identity.ensure();
    this.bots = (await this.ctx.api("/api/options")).bots;
    this.ctx.app.replaceChildren(el("p", { class: "muted", id: "connecting" }, t("connecting")));
    document.addEventListener("keydown", this.onKey);
    this.connect();
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.ws = new WebSocket(this.ctx.socketUrl(this.id, this.version));
    this.ws.onmessage = (ev) => this.receive(JSON.parse(ev.data));
    this.ws.onclose = (ev) => this.lost(ev);
  }

  lost(ev) {
    if (this.closedByUs) return;
    this.live = false;
    clearInterval(this.clockTimer);
    const final = FINAL[ev.code];
    if (final === "no_table") { this.fail(t("table.no_table", { id: this.id })); return; }
    if (final === "over") { this.ctx.go(`/replay/${this.id}`); return; }
    if (final === "kicked") { this.offline(t("table.kicked", { reason: this.lastRefusal || ev.reason || ev.code }), false); return; }
    this.attempts += 1;
    const wait = Math.min(10, 2 ** (this.attempts - 1));
    this.retryAt = performance.now() + wait * 1000;
    const again = async () => {
      if (ev.code === 4401) { this.ctx.identity.forget(); await this.ctx.identity.ensure(); }  // a new session
      this.connect();
    };
    this.retryTimer = setTimeout(again, wait * 1000);
    const why = ev.code === TOO_MANY_SOCKETS ? "refusal.too_many_sockets" : this.mySeat === null ? "table.offline_watch" : "table.offline_text";
    this.offline(t(why), true);
  }

  /** A final problem: say it, stop retrying, offer the way back. */
  fail(text) {
    this.closedByUs = true;
    document.removeEventListener("keydown", this.onKey);
    this.ctx.app.replaceChildren(el("div", { class: "panel final", role: "alert", id: "final" },
      el("p", { class: "error" }, text), el("a", { href: "/", class: "button" }, t("back_home"))));
  }

  offline(text, retrying) {
    if (!this.state) {
      this.ctx.app.replaceChildren(el("div", { class: "panel", role: "status", id: "connecting" },
        el("p", {}, text), retrying ? el("p", { class: "muted" }, t("table.offline_try", { n: this.attempts, s: Math.ceil((this.retryAt - performance.now()) / 1000) })) : null,
        el("button", { onclick: () => { this.attempts = 0; this.connect(); } }, t("table.reconnect_now"))));
      return;
    }
    this.offlineText = { text, retrying };
    this.render();
  }

  close() {
    this.closedByUs = true;
    this.ws?.close();
    clearInterval(this.clockTimer);
    clearTimeout(this.retryTimer);
    clearTimeout(this.landedTimer);
    clearTimeout(this.resultTimer);
    document.removeEventListener("keydown", this.onKey);
  }

  /** Send ``message`` if the table is live; true when it went out. */
  send(message) {
    if (!this.live || this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }
  /** One action per state the server sent: a double click (or a second key press before
   * the answer) must not carry the same action into the next hand, where a second mazo
   * would throw that hand away too. A refusal lets the player try again. */
  act(action) {
    if (this.actedOn === this.version) return;
    this.mazoArmed = false;
    if (this.state?.view?.winner === null) this.moveOn(false);  // acting moves on from a closed hand
    if (this.send({ type: "act", action })) this.actedOn = this.version;
  }

  // ------------------------------------------------------------------ refusals
  /** An ``error`` or ``why`` frame in words (refusal.<code>), players by their names. */
  refusal(msg) { return refusalText(msg, (seat) => this.story?.seatName(seat) ?? t("seat.numbered", { n: seat + 1 })); }

  /** Ask the server why ``action`` is not legal now (nothing is played); the answer is
   * shown as a banner. */
  why(action) {
    if (this.send({ type: "why", action })) this.asked = action;
  }

  /** A ``why`` frame: the banner for a key pressed, the envido's hint for its button. */
  answered(msg) {
    if (msg.legal) return;
    const text = this.refusal(msg);
    if (msg.action === "envido" && this.envidoHint?.text === null) {
      this.envidoHint.text = text;
      this.render();
    }
    if (this.asked === msg.action) { this.asked = null; this.banner(text, true); }  // after a render: it draws a new banner
  }

  /** On my turn, with the envido still open in the round but not to me (in teams only the
   * pie opens it): the envido button drawn disabled, and the server's reason beside it. */
  envidoClosedToMe(view) {
    return view.turn === this.mySeat && !view.pending && view.envido_open
      && !view.legal.includes("envido") && !view.legal.includes("flor");
  }

  // ------------------------------------------------------------------ receiving
  receive(msg) {
    if (msg.type === "patch") {  // what changed since the state held, applied to it
      const state = patched(this.state, msg);
      if (!state) { this.send({ type: "sync", since: this.version ?? 0 }); return; }  // a frame missed
      msg = state;
    }
    if (msg.type === "error") {  // a refusal (before a close: why it closes)
      this.actedOn = null;
      this.lastRefusal = this.refusal(msg);
      this.banner(t("table.error", { reason: this.lastRefusal }), true);
      return;
    }
    if (msg.type === "why") { this.answered(msg); return; }
    if (msg.type !== "state") return;
    this.live = true;
    this.attempts = 0;
    this.offlineText = null;
    const previous = this.state;
    this.version = msg.v;
    this.state = msg;
    this.fair.receive(msg);
    this.story = new Story(msg.table, msg.you.seat);
    const view = msg.view;
    if (msg.full) {  // start again from what the view holds: the hand so far
      this.log = [];
      this.notesHand = view?.hand_index ?? null;
      this.notesLogged = 0;
      if (view) {
        for (const [seat, action] of view.log) this.line(this.story.actionLine(seat, action));
        if (view.last_hand && !this.summary) this.summarize(view.last_hand, null, msg.story);
        // a page that comes in after the end still shows the last hand on the table
        if (view.winner !== null && view.last_hand) this.land(view.last_hand, msg.story, false);
      }
    }
    let closing = false;
    for (const e of msg.events) closing = this.note(e, previous) || closing;
    if (view && this.notesHand === view.hand_index) this.logNotes(view.notes, view.showdowns);
    if (view && !closing) this.before = view.score.slice();
    this.sounds(msg.events, previous);
    this.render();
  }

  line(text, cls = "") { this.log.push({ text, cls }); this.log = this.log.slice(-60); }

  logNotes(notes, showdowns) {
    for (const [, kind, data] of notes.slice(this.notesLogged)) {
      const text = this.story.noteLine(kind, data, showdowns);
      if (text) this.line(text, `note note-${kind}`);
    }
    this.notesLogged = Math.max(this.notesLogged, notes.length);
  }

  /** One event into the log; true when it closed a hand. */
  note(e) {
    const story = this.story;
    const name = (s) => story.seatName(s);
    switch (e.kind) {
      case "seated": this.line(story.line("log.seated", e.seat)); break;
      case "stood": this.line(t("log.stood", { n: e.seat + 1 })); break;
      case "start": this.line(t("log.start"), "head"); break;
      case "deal":
        this.notesHand = e.hand;
        this.notesLogged = 0;
        this.line(story.line("log.deal", e.mano, { n: e.hand + 1 }), "head");
        break;
      case "action":
        this.line(story.actionLine(e.seat, e.action, e.by), e.action.startsWith("say ") ? "say" : "");
        break;
      case "hand_closed":
        if (this.notesHand === e.index) this.logNotes(e.notes || [], e.showdowns || []);
        this.notesHand = null;
        this.line(t("log.hand_closed", { n: e.index + 1, why: story.whyLine(e.why) }), "closed");
        this.summarize(e, this.before, e.story);
        this.land(e, e.story, true);
        // the next hand starts from this score (from nothing when the chico is over)
        this.before = Math.max(...e.score) >= this.state.table.rules.target ? [0, 0] : e.score.slice();
        return true;
      case "over": this.line(t("log.over", { winner: story.winnerText(e.winner) }), "closed"); break;
      case "away": this.line(story.line(e.away ? "log.away" : "log.back", e.seat)); break;
      case "presence":
        if (this.state.table.seats[e.seat]?.kind === "human" && e.seat !== this.mySeat) {
          this.line(t(e.connected ? "log.presence_on" : "log.presence_off", { name: name(e.seat) }), "muted");
        }
        break;
      case "committed": this.line(t("log.committed", { card: cardName(e.card) })); break;
      case "rematch": this.rematchEvent(e); break;
      default: break;
    }
    return false;
  }

  /** Keep a closed hand and the server's words for it (``story``: truco/narrate.py's
   * lines in every language, told once per hand), in the page's language. */
  summarize(hand, before, story) {
    const scored = before ? [0, 1].map((i) => hand.score[i] - before[i]) : hand.points;
    // told to this page's player where it concerns them ("te fuiste al mazo"), else as to all
    const told = story?.you?.[String(this.mySeat)] || story?.lines;
    const lines = story && story.index === hand.index ? told[lang] || told.es : [];
    const bazas = story && story.index === hand.index ? story.bazas : null;
    this.summary = { index: hand.index, hand, scored, lines, bazas };
    this.freshSummary = true;
  }

  // ------------------------------------------------------------------ the hand lands
  /** Keep the closed ``hand`` on the table (its bazas from the server's ``story``): for
   * a few seconds, or until the player moves on (``hold``); for good once the match is over. */
  land(hand, story, hold) {
    clearTimeout(this.landedTimer);
    this.landed = { hand, bazas: closedBazas(hand, story), fresh: true };
    if (hold) this.landedTimer = setTimeout(() => this.moveOn(), LANDED_MS);
  }

  /** The next hand to the table (not after the match: its last hand stays). */
  moveOn(redraw = true) {
    clearTimeout(this.landedTimer);
    if (!this.landed || this.state?.view?.winner !== null) return;
    this.landed = null;
    if (redraw && this.state) this.render();
  }

  // ------------------------------------------------------------------ after the match
  rematchEvent(e) {
    const name = (s) => this.story.seatName(s);
    const before = this.rematch.accepted;
    this.rematch = { ...e, accepted: e.accepted || [] };
    for (const seat of this.rematch.accepted) if (!before.includes(seat)) this.line(this.story.line("moment.log_rematch", seat));
    if (e.declined !== undefined) this.line(this.story.line("moment.rematch_declined", e.declined), "closed");
    if (e.left !== undefined) this.line(t("moment.rematch_left", { name: name(e.left) }), "closed");
    if (e.failed !== undefined) this.line(t("moment.rematch_failed"), "closed");
    if (e.table && this.mySeat !== null) {
      this.line(t("moment.rematch_ready"), "head");
      setTimeout(() => { if (!this.closedByUs) this.ctx.go(`/t/${encodeURIComponent(e.table)}`); }, 1200);
    }
  }

  /** The recorded result (each player's rating before and after, for a rated match):
   * asked once the match is over, again for a while until the server has recorded it. */
  async fetchResult(tries = 0) {
    if (this.closedByUs) return;
    let answer = null;
    try {
      const res = await fetch(`/api/matches/${encodeURIComponent(this.id)}/result`);
      if (res.ok) answer = await res.json();
      if (answer && !answer.recorded) answer = null;
    } catch { /* the network: asked again below */ }
    if (answer) { this.result = answer; this.render(); return; }
    if (tries >= 40) { this.result = null; this.render(); return; }
    this.resultTimer = setTimeout(() => this.fetchResult(tries + 1), 400);
  }

  sounds(events, previous) {
    for (const e of events) {
      if (e.kind === "action") sound.play(e.action.startsWith("play ") ? "card" : "call");
      if (e.kind === "hand_closed" && this.mySeat !== null) {
        const mine = e.points[this.myTeam], theirs = e.points[1 - this.myTeam];
        sound.play(mine >= theirs ? "win" : "lose");
      }
    }
    const view = this.state.view;
    const wasMine = previous?.view?.actors?.includes(this.mySeat);
    if (view && this.mySeat !== null && view.actors.includes(this.mySeat) && !wasMine) sound.play("turn");
  }

  banner(text, isError = false) {
    const b = $("#banner");
    if (!b) return;
    b.textContent = text;
    b.className = isError ? "banner error" : "banner";
    clearTimeout(this.bannerTimer);
    this.bannerTimer = setTimeout(() => { b.textContent = ""; b.className = "banner"; }, 5000);
  }

  get mySeat() { return this.state?.you.seat ?? null; }
  get myTeam() { return this.mySeat === null ? 0 : this.mySeat % 2; }

  // ------------------------------------------------------------------ keyboard
  key(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || !this.state?.view || !this.live) return;
    if (ev.target.closest?.("input, select, textarea")) return;
    const view = this.state.view;
    const k = ev.key.toLowerCase();
    if (["1", "2", "3"].includes(k)) {
      const card = view.hand[Number(k) - 1];
      if (card) { ev.preventDefault(); this.act(`play ${card}`); }
      return;
    }
    if (k === "m") {
      ev.preventDefault();
      if (!view.legal.includes("mazo")) { this.why("mazo"); return; }
      if (this.mazoArmed) { this.act("mazo"); return; }
      this.mazoArmed = true;
      this.banner(t("table.mazo_confirm"));
      setTimeout(() => { this.mazoArmed = false; }, 3000);
      return;
    }
    const tokens = KEYS[k];
    if (!tokens) return;
    ev.preventDefault();
    const action = tokens.find((a) => view.legal.includes(a));
    if (action) { this.act(action); return; }
    // not legal now: the server says why (t asks for the next truco call)
    this.why(k === "t" ? TRUCO_LEVELS[Math.min(view.truco_level + 1, 3)] : tokens[0]);
  }

  // ------------------------------------------------------------------ drawing
  render() {
    // the focus on a card or call, or lost with them (the last card played): it comes back
    const lost = document.activeElement === document.body && this.handFocus;
    const focused = document.activeElement?.dataset?.focus || (lost ? "hand" : undefined);
    const { table, view, you } = this.state;
    const n = table.rules.players;
    const me = you.seat ?? 0;
    this.bubbleOf = !view ? {} : this.landed ? this.landedBubbles(this.landed.hand) : this.bubbles(view);
    const board = el("section", { class: `board players-${n}`, "aria-label": t("table.board") });
    for (let seat = 0; seat < n; seat++) board.append(this.seatBox(seat, POSITIONS[n][(seat - me + n) % n]));
    board.append(this.center());
    const head = el("div", { class: "table-head" },
      el("div", {}, el("h1", {}, tableTitle(table)),
        el("span", { class: "muted" }, `${describeRules(table.rules)} · ${t("table.code")} `, el("code", { id: "table-code" }, table.id))),
      this.scoreboard());
    const parts = [head, el("div", { id: "banner", class: "banner", role: "status" }), board];
    if (view && you.seat !== null && view.winner === null) parts.push(hintLine(this, KEY_OF), this.myHand(), this.buttons());
    if (view && view.winner !== null) parts.push(this.matchEnd());
    if (you.seat === null && table.status !== "waiting") parts.push(el("p", { class: "muted spectating" }, t("table.spectating")));
    parts.push(el("div", { class: "side" }, this.summaryPanel(), this.logPanel()), this.fair.panel());
    const screen = el("div", { class: `table-screen players-${n}${this.live ? "" : " offline"}`, "data-live": this.live ? "yes" : "no" }, ...parts);
    if (!this.live) screen.append(this.offlineOverlay());
    this.ctx.app.replaceChildren(screen);
    const log = $("#log ol");
    if (log) log.scrollTop = log.scrollHeight;  // the newest line in view
    // the focused card or call is gone (played, answered): the keyboard stays in the hand
    if (focused) {
      const target = $(`[data-focus="${focused}"]`) || $("#my-hand button, #actions button");
      target?.focus();
      this.handFocus = !target;  // nothing to focus yet: at the next deal
    }
    if (this.landed?.fresh && view?.winner === null) $("#move-on")?.focus();  // Enter or Space moves on
    if (this.landed) this.landed.fresh = false;
    this.announce();
    this.freshSummary = false;
    if (view) this.playedSeen = `${view.hand_index}:${view.played.length}`;
    this.runClock();
  }

  /** The log's new lines into the page's live region (a screen reader hears the other
   * players' moves): every line since the last announced one, not only the newest. */
  announce() {
    const live = $("#announce");
    const first = !this.announced;  // the table as it was on arrival is on the screen, not news
    const fresh = this.log.filter((l) => !this.announced?.has(l));
    this.announced = new Set(this.log);
    if (live && fresh.length && !first) live.textContent = fresh.map((l) => l.text).join(" ");
  }

  offlineOverlay() {
    const { text, retrying } = this.offlineText || { text: t("table.offline_text"), retrying: true };
    const left = Math.max(0, Math.ceil(((this.retryAt || 0) - performance.now()) / 1000));
    return el("div", { class: "offline-overlay", id: "offline", role: "alert" },
      el("div", { class: "offline-box" },
        el("h2", {}, t("table.offline_title")), el("p", {}, text),
        retrying ? el("p", { class: "muted" }, t("table.offline_try", { n: this.attempts, s: left })) : null,
        el("button", { id: "reconnect", onclick: () => { this.attempts = 0; this.connect(); } }, t("table.reconnect_now"))));
  }

  scoreboard() {
    const { view, table } = this.state;
    const score = view ? view.score : [0, 0];
    const chicos = view ? view.chicos : [0, 0];
    const owed = [0, 0];
    for (const [team, , pts] of view?.scored || []) owed[team] += pts;
    return el("div", { class: "score", id: "score", role: "group", "aria-label": t("score.region") },
      [0, 1].map((team) => el("div", { class: `team team-${team}`, "data-team": team },
        el("span", { class: "team-name" }, this.story.teamTitle(team),
          this.story.seated ? el("small", {}, ` (${this.story.team(team)})`) : null),
        el("span", { class: "members" }, this.story.members(team).join(" · ")),
        el("strong", { class: "points", "data-points": score[team] }, this.scoreText(score[team])),
        owed[team] ? el("span", { class: "owed", "data-owed": owed[team] }, t("score.pending", { n: owed[team] })) : null,
        table.rules.chicos === 3 ? el("span", { class: "chicos" }, t("score.chicos", { n: chicos[team] })) : null)));
  }

  scoreText(points) {
    if (this.state.table.rules.target !== 30) return `${points}`;
    return points < 15 ? t("score.malas", { n: points }) : t("score.buenas", { n: points - 15 });
  }

  /** The speech bubble of each seat: its latest call since the last card, or its tanto. */
  bubbles(view) {
    const out = {};
    view.log.forEach(([seat, token], i) => {
      if (token.startsWith("play ")) { for (const k of Object.keys(out)) delete out[k]; return; }
      out[seat] = { text: this.story.sung(token), say: token.startsWith("say "), i };
    });
    const shown = view.showdowns.length;
    if (shown && this.showdownAt === null) this.showdownAt = `${view.hand_index}:${view.played.length}`;
    if (!shown) this.showdownAt = null;
    if (shown && this.showdownAt === `${view.hand_index}:${view.played.length}`) {
      for (const d of view.showdowns[shown - 1]) {
        out[d.seat] = { text: d.tanto === null ? t("showdown.buenas") : t("showdown.tanto", { n: d.tanto }), tanto: true };
      }
    }
    return out;
  }

  /** A seat's name; a person with an account is a link to their profile (follow them,
   * challenge them), opened beside the table so the match goes on. */
  who(info, role, name) {
    if (info.kind !== "human" || !info.account || role === "you") return el("span", { class: "who" }, nameParts(name));
    return el("a", {
      class: "who", href: `/u/${encodeURIComponent(info.name)}`, target: "_blank", rel: "noopener",
      title: t("seat.profile", { name: info.name }),
    }, nameParts(name));
  }

  seatBox(seat, pos) {
    const { table, view, you } = this.state;
    const story = this.story;
    const info = table.seats[seat];
    const role = story.role(seat);
    const name = info.kind === "empty" ? t("seat.free") : story.seatName(seat);
    const box = el("section", {
      class: `seat pos-${pos} team-${seat % 2}${role ? ` role-${role}` : ""}`, "data-seat": seat,
      "aria-label": role ? t("seat.region", { name, role: t(`seat.${role}`) }) : name,
    });
    const isTurn = view && view.actors.includes(seat) && view.winner === null;
    if (isTurn) box.classList.add("acting");
    const tags = [];
    if (role === "you" || role === "partner") tags.push(el("span", { class: `tag tag-${role}` }, t(`seat.${role}`)));
    const mano = this.landed ? this.landed.hand.mano : view?.mano;
    if (view && mano === seat && table.status !== "waiting") tags.push(el("span", { class: "badge mano" }, t("seat.mano")));
    if (info.away) tags.push(el("span", { class: "badge warn" }, t("seat.covered")));
    else if (info.kind === "human" && !info.connected) tags.push(el("span", { class: "badge warn" }, t("seat.offline")));
    if (view && table.status === "playing" && view.winner === null && !view.in_hand[seat]) {
      tags.push(el("span", { class: "badge" }, t(view.round_seats.includes(seat) ? "seat.mazo" : "seat.waits_round")));
    }
    box.append(el("div", { class: "seat-name" }, el("span", { class: "dot", "aria-hidden": "true" }), this.who(info, role, name), ...tags));
    if (isTurn && table.clock) box.append(el("div", { class: "clock", "data-clock-seat": seat }, el("div", { class: "clock-bar" }), el("span", { class: "clock-text" })));
    if (table.status === "waiting") return this.seating(box, seat, info, you);
    if (!view) return box;
    const bubble = this.bubbleOf[seat];
    if (bubble?.text) {
      const key = `${view.hand_index}:${seat}:${bubble.i}:${bubble.text}`;
      const fresh = !this.popped.has(key);  // pops in once, not at every redraw
      this.popped.add(key);
      box.append(el("div", { class: `bubble${bubble.say ? " say" : ""}${bubble.tanto ? " tanto" : ""}${fresh ? " fresh" : ""}`, "data-bubble": seat }, bubble.text));
    }
    if (!this.landed && seat !== you.seat && view.winner === null && view.in_hand[seat]) {
      const left = 3 - view.played.filter(([s]) => s === seat).length;
      if (left > 0) box.append(el("div", { class: "backs", role: "img", "aria-label": t("seat.cards_left", { n: left }) },
        Array.from({ length: left }, () => backImg("card tiny back", true))));
    }
    box.append(this.bazaRow(seat));
    return box;
  }

  seating(box, seat, info, you) {
    const { table } = this.state;
    const creator = you.player && table.creator === you.player.id;
    if (info.kind === "empty") {
      box.append(el("button", { class: "sit", onclick: () => this.send({ type: "sit", seat }) }, t("seat.sit")));
      if (creator) {
        const level = el("select", { name: "level" }, botOptions(this.bots || ["random"]));
        level.setAttribute("aria-label", t("seat.bot_level", { n: seat + 1 }));
        level.value = ["beginner", "simple"].find((b) => (this.bots || []).includes(b)) ?? level.value;  // the gentlest first
        box.append(el("div", { class: "bot-choice" }, level,
          el("button", { class: "add-bot secondary", onclick: () => this.send({ type: "add_bot", seat, level: level.value }) }, t("seat.add_bot"))));
      }
    } else if (seat === you.seat) {
      box.append(el("button", { class: "stand secondary", onclick: () => this.send({ type: "stand" }) }, t("seat.stand")));
    } else if (info.kind === "bot" && creator) {
      box.append(el("button", { class: "secondary", onclick: () => this.send({ type: "remove_bot", seat }) }, t("seat.remove_bot")));
    }
    return box;
  }

  /** The seat's cards of this hand, one slot per baza: the baza's winner starred, pardas marked. */
  bazaRow(seat) {
    const { bazas, results, fresh } = this.onTable();
    const row = el("div", { class: "bazas-row" });
    for (let i = 0; i < 3; i++) {
      const hit = bazas[i]?.find(([s]) => s === seat);
      const slot = el("div", { class: "slot", "data-baza": i });
      if (hit) {
        const result = results[i];
        const img = cardImg(hit[1], `card small${fresh.has(hit[1]) ? " just-played" : ""}`);
        slot.append(img);
        if (result && result.parda) slot.classList.add("parda");
        else if (result && result.seat === seat) { slot.classList.add("won"); slot.append(el("span", { class: "star", role: "img", "aria-label": t("table.baza_won", { name: this.story.seatName(seat) }) }, "★")); }
        else if (result) slot.classList.add("lost");
      }
      row.append(slot);
    }
    return row;
  }

  /** The bazas on the table: the closed hand's while it lands, else the hand's being
   * played; who won each; the cards not drawn yet (they come in animated). */
  onTable() {
    const view = this.state.view;
    const [hand, seen] = (this.playedSeen || "-1:0").split(":").map(Number);
    if (this.landed) {
      const { bazas, hand: closed } = this.landed;
      const played = closed.played;
      const drawn = hand === closed.index ? seen : played.length;  // only the closing cards are new
      return { bazas: bazas.map((b) => b.cards), results: bazas.map((b) => b.result), fresh: new Set(played.slice(drawn).map(([, c]) => c)) };
    }
    const fresh = new Set(view.played.slice(hand === view.hand_index ? seen : 0).map(([, c]) => c));
    return { bazas: view.winner === null ? view.bazas : [], results: this.bazaWinners(view), fresh };
  }

  /** The closed hand's last showdown as bubbles at the seats ("Tengo 28", "Son buenas"). */
  landedBubbles(hand) {
    const out = {};
    const last = hand.showdowns?.[hand.showdowns.length - 1] || [];
    for (const d of last) out[d.seat] = { text: d.tanto === null ? t("showdown.buenas") : t("showdown.tanto", { n: d.tanto }), tanto: true, i: `closed${hand.index}` };
    return out;
  }

  bazaWinners(view) {
    const out = [];
    for (const [, kind, data] of view.notes || []) {
      if (kind === "baza") out[data[0]] = data[1] === -1 ? { parda: true } : { seat: data[2] };
    }
    return out;
  }

  center() {
    const { view, table } = this.state;
    const story = this.story;
    const box = el("div", { class: "center", id: "center" });
    if (table.status === "waiting") {
      const free = table.seats.filter((s) => s.kind === "empty").length;
      box.append(el("p", {}, t("table.waiting", { n: free })), el("code", { class: "link", id: "table-link" }, location.href),
        copyButton(() => location.href, "copy-link"));
      return box;
    }
    if (!view) return box;
    if (view.winner !== null) {
      box.append(el("div", { class: `winner team-${view.winner}`, id: "winner", role: "status" },
        story.winnerText(view.winner),
        el("span", { class: "final-score" }, t("table.final_score", { blue: view.score[0], red: view.score[1] })),
        el("a", { href: "#match-end", class: "button" }, t("moment.end_link"))));
      if (this.landed) box.append(this.bazaStrip());
      return box;
    }
    if (this.landed) {
      box.append(this.landedPanel(), this.bazaStrip());
      return box;
    }
    const last = this.summary;
    const fresh = this.mySeat === null ? !view.played.length : !view.played.some(([s]) => s === this.mySeat);
    if (last && last.index === view.hand_index - 1 && fresh) box.append(this.justClosed());  // the hand just closed: say how it ended
    if (view.pending) {
      const p = view.pending;
      const call = p.kind === "envido" ? p.chain.map((c) => t(`call.${c}`)).join(" + ")
        : p.kind === "truco" ? t(`pending.${TRUCO_LEVELS[p.level]}`) : t(`pending.${p.kind}`);
      let text;
      if (this.mySeat !== null && p.team === this.myTeam) text = t(table.rules.players === 2 ? "table.sung_to_you" : "table.sung_to_us", { call });
      else text = t("table.sung_to_them", { team: story.team(p.team).replace(/^./, (c) => c.toUpperCase()), call });
      box.append(el("div", { class: "pending", id: "pending", role: "status" }, text));
    } else if (view.turn !== null) {
      box.append(el("div", { class: "turn", id: "turn" }, view.turn === this.mySeat ? t("table.turn_you") : t("table.turn_other", { name: story.seatName(view.turn) })));
    }
    if (view.truco_level) box.append(el("div", { class: "stake" }, t("table.playing_for", { what: t(`level.${TRUCO_LEVELS[view.truco_level]}`) })));
    if (view.pica_pica) box.append(el("div", { class: "badge" }, t("table.pica_pica")));
    for (const [, kind, data] of view.notes) {
      if (kind === "envido") {
        box.append(el("div", { class: "showdown", id: "envido-result", role: "status" },
          story.envidoResult(data, view.showdowns), " ", el("small", {}, t("envido.later"))));
      }
    }
    box.append(this.bazaStrip());
    return box;
  }

  /** "Mano 1: 2 puntos para nosotros, 0 para ellos. ¿Por qué?" */
  justClosed() {
    const last = this.summary;
    const story = this.story;
    return el("div", { class: "just-closed", id: "just-closed" },
      t("table.last_hand", { n: last.index + 1, blue: story.points(last.scored[0]), red: story.points(last.scored[1]), blueTeam: story.team(0), redTeam: story.team(1) }),
      " ", el("a", { href: "#last-hand" }, t("table.why_link")));
  }

  /** The closed hand, on the table: how it scored, the tantos sung, the cards shown, and
   * the way on (the button, Enter or Space, playing, or the pause running out). */
  landedPanel() {
    const { hand } = this.landed;
    const story = this.story;
    const panel = el("div", { class: "landed", id: "landed", role: "status" },
      el("strong", { class: "landed-title" }, t("moment.landed_title", { n: hand.index + 1 })));
    if (this.summary?.index === hand.index) panel.append(this.justClosed());
    for (const declarations of hand.showdowns || []) {
      const list = declarations.map((d) => `${story.seatName(d.seat)} ${d.tanto === null ? t("showdown.buenas").toLowerCase() : d.tanto}`).join(" · ");
      panel.append(el("div", { class: "showdown landed-showdown" }, t("moment.showdown", { list })));
    }
    for (const [seat, cards] of hand.revealed || []) {
      panel.append(el("div", { class: `landed-revealed team-${seat % 2}` }, t("summary.showed", { name: story.seatName(seat) }), " ",
        el("span", { class: "cards" }, cards.map((c) => cardImg(c, "card tiny")))));
    }
    panel.append(el("button", { id: "move-on", class: "move-on", "data-focus": "move-on", onclick: () => this.moveOn() }, t("moment.move_on")),
      el("small", { class: "landed-hint" }, t("moment.move_on_hint")));
    return panel;
  }

  bazaStrip() {
    const { bazas, results } = this.onTable();
    return el("ol", { class: "baza-strip", "aria-label": t("table.bazas") },
      [0, 1, 2].map((i) => {
        const r = results[i];
        const winner = (seat) => (seat === this.mySeat ? t("seat.you") : this.story.seatName(seat));  // "2ª vos"
        const text = r ? (r.parda ? t("table.baza_parda") : winner(r.seat)) : bazas[i]?.length ? t("table.baza_open") : "·";
        const cls = r ? (r.parda ? "parda" : `team-${r.seat % 2}`) : "";
        return el("li", { class: cls }, el("b", {}, t("table.baza_n", { n: i + 1 })), " ", text);
      }));
  }

  myHand() {
    const { view, you } = this.state;
    const hand = el("div", { class: "my-hand", id: "my-hand", role: "group", "aria-label": t("table.your_hand") });
    view.hand.forEach((c, i) => {
      const token = `play ${c}`;
      const legal = view.legal.includes(token);
      const committed = you.committed === c;
      const label = committed ? t("table.committed_card", { card: cardName(c) }) : t(legal ? "table.play_card" : "table.release_card", { card: cardName(c) });
      // the button's name is its text (a hidden "Jugar el 4 de copas"), not an aria-label
      // that would not hold the visible key number
      const face = cardImg(c, "card mine");
      face.alt = "";
      hand.append(el("button", {
        class: `card-button${legal ? " playable" : ""}${committed ? " committed" : ""}`, "data-card": c, "data-focus": `card-${c}`,
        title: label, disabled: !this.live, "aria-keyshortcuts": String(i + 1), onclick: () => this.act(token),
      }, el("span", { class: "visually-hidden" }, label), face, el("kbd", { "aria-hidden": "true" }, String(i + 1))));
    });
    return hand;
  }

  buttons() {
    const { view } = this.state;
    const calls = view.legal.filter((a) => !a.startsWith("play ") && !a.startsWith("say "));
    const says = view.legal.filter((a) => a.startsWith("say "));
    const bar = el("div", { class: "actions", id: "actions", role: "group", "aria-label": t("table.actions") },
      calls.map((a) => el("button", {
        class: a === "mazo" || a === "no-quiero" ? "secondary" : "", "data-action": a, "data-focus": a,
        disabled: !this.live, "aria-keyshortcuts": KEY_OF[a], onclick: () => this.act(a),
      }, t(`call.${a}`), KEY_OF[a] ? el("kbd", { "aria-hidden": "true" }, KEY_OF[a].toUpperCase()) : null)));
    const box = el("div", { class: "controls" }, bar);
    if (this.envidoClosedToMe(view)) {
      const moment = `${view.hand_index}:${view.bazas.length}:${this.mySeat}`;
      if (this.envidoHint?.moment !== moment && this.send({ type: "why", action: "envido" })) {
        this.envidoHint = { moment, text: null };
      }
      bar.prepend(el("button", {
        "data-action": "envido", "aria-disabled": "true", "aria-describedby": "envido-hint",
        onclick: () => this.why("envido"),
      }, t("call.envido"), el("kbd", { "aria-hidden": "true" }, "E")));
      const hint = this.envidoHint?.moment === moment ? this.envidoHint.text : null;
      // beside the buttons, not a row of its own: the calls and the megaphone stay in view
      bar.append(el("span", { class: "muted envido-hint", id: "envido-hint", role: "note" }, hint ?? ""));
    }
    if (says.length) {
      box.append(el("div", { class: "megaphone", id: "megaphone", role: "group", "aria-label": t("table.megaphone") },
        el("span", { class: "muted" }, t("table.megaphone")),
        says.map((a) => el("button", { class: "word", "data-action": a, "data-focus": a, disabled: !this.live, onclick: () => this.act(a) }, t(`word.${a.slice(4)}`)))));
    }
    box.append(el("p", { class: "keys-help muted" }, t("table.keys_help")));
    return box;
  }

  summaryPanel() {
    const panel = el("section", { class: `panel last-hand${this.freshSummary ? " fresh" : ""}`, id: "last-hand", "aria-live": "polite" });
    const summary = this.summary;
    if (!summary) {
      panel.append(el("h2", {}, t("summary.title", { n: "" }).trim()), el("p", { class: "muted" }, t("summary.none")));
      return panel;
    }
    const hand = summary.hand;
    panel.append(el("h2", {}, t("summary.title", { n: summary.index + 1 })),
      el("ul", { class: "summary" }, summary.lines.map((line) => el("li", {}, line))));
    if (hand.revealed.length) {
      panel.append(el("div", { class: "revealed-all" }, hand.revealed.map(([seat, cards]) =>
        el("div", { class: `revealed team-${seat % 2}` }, el("span", {}, t("summary.showed", { name: this.story.seatName(seat) })),
          el("span", { class: "cards" }, cards.map((c) => cardImg(c, "card shown")))))));
    }
    const bazas = closedBazas(hand, summary.bazas ? { index: hand.index, bazas: summary.bazas } : null);
    if (bazas.length) panel.append(this.recapBazas(bazas));
    return panel;
  }

  /** Each baza of the closed hand with its cards, who played them, and who won it. */
  recapBazas(bazas) {
    const story = this.story;
    return el("div", { class: "recap-bazas", id: "recap-bazas" }, el("h4", {}, t("moment.recap_bazas")),
      el("ol", {}, bazas.map((b, i) => {
        const r = b.result;
        const outcome = !r ? t("moment.baza_open") : r.parda ? t("table.baza_parda") : story.line("moment.baza_won", r.seat);
        return el("li", { class: r && !r.parda ? `team-${r.seat % 2}` : "", "data-baza": i },
          el("b", {}, t("table.baza_n", { n: i + 1 })), " ",
          b.cards.map(([seat, c]) => el("span", { class: `recap-card${r && !r.parda && r.seat === seat ? " won" : ""}` },
            cardImg(c, "card tiny"), story.line("moment.card_by", seat, { card: cardName(c) }))),
          el("span", { class: "recap-outcome" }, outcome));
      })));
  }

  /** The end of the match: who won and by how much, each rating's move (a rated match),
   * the rematch, the replay and its analysis. */
  matchEnd() {
    const { view, table } = this.state;
    const story = this.story;
    if (table.rated && this.result === undefined) { this.result = "asking"; this.fetchResult(); }
    const panel = el("section", { class: `panel match-end team-${view.winner}`, id: "match-end", "aria-labelledby": "match-end-title" },
      el("h2", { id: "match-end-title" }, story.winnerText(view.winner)),
      el("p", { class: "final-score" }, t("table.final_score", { blue: view.score[0], red: view.score[1] })));
    if (table.rated) panel.append(this.ratingChanges());
    panel.append(this.rematchBox(),
      el("nav", { class: "match-links", "aria-label": t("moment.replay_link") },
        el("a", { href: `/replay/${encodeURIComponent(this.id)}`, class: "button secondary", id: "replay-link" }, t("moment.replay_link")),
        el("a", { href: `/replay/${encodeURIComponent(this.id)}?analyze`, class: "button secondary", id: "analyze-link" }, t("moment.analyze_link")),
        el("a", { href: "/", class: "button secondary" }, t("back_home"))));
    return panel;
  }

  ratingChanges() {
    const box = el("div", { class: "rating-changes", id: "rating-changes" }, el("h3", {}, t("moment.rating_title")));
    const result = this.result;
    if (result === "asking" || result === undefined) box.append(el("p", { class: "muted" }, t("moment.rating_wait")));
    else if (!result || !result.ratings?.length) box.append(el("p", { class: "muted" }, t("moment.rating_missing")));
    else {
      box.append(el("ul", {}, result.ratings.map((r) => {
        const delta = r.after - r.before;
        const signed = delta > 0 ? `+${delta}` : delta < 0 ? `−${-delta}` : "±0";
        return el("li", { "data-seat": r.seat, class: `team-${r.seat % 2}${delta > 0 ? " up" : delta < 0 ? " down" : ""}` },
          t("moment.rating_line", { name: this.story.seatName(r.seat), before: r.before, after: r.after, delta: signed }));
      })));
    }
    return box;
  }

  rematchBox() {
    const { table } = this.state;
    const story = this.story;
    const offer = this.rematch;
    const box = el("div", { class: "rematch", id: "rematch", "aria-live": "polite" }, el("h3", {}, t("moment.rematch_title")));
    const names = (seats) => seats.map((s) => story.seatName(s)).join(", ");
    if (offer.table) {
      box.append(el("p", {}, t("moment.rematch_ready")), el("a", { href: `/t/${encodeURIComponent(offer.table)}`, class: "button", id: "rematch-go" }, t("moment.rematch_go")));
      return box;
    }
    const off = offer.declined !== undefined ? t("moment.rematch_declined", { name: story.seatName(offer.declined) })
      : offer.left !== undefined ? t("moment.rematch_left", { name: story.seatName(offer.left) })
        : offer.failed !== undefined ? t("moment.rematch_failed") : null;
    if (off) { box.append(el("p", {}, off)); return box; }
    const people = table.seats.map((s, i) => (s.kind === "human" ? i : null)).filter((i) => i !== null);
    const waiting = people.filter((s) => !offer.accepted.includes(s));
    const others = offer.accepted.filter((s) => s !== this.mySeat);
    if (others.length) box.append(el("p", {}, t("moment.rematch_offered", { n: others.length, names: names(others) })));
    if (this.mySeat === null) return box;
    if (offer.accepted.includes(this.mySeat)) {
      box.append(el("p", {}, t("moment.rematch_waiting", { names: names(waiting) })),
        el("button", { class: "secondary", id: "rematch-decline", onclick: () => this.send({ type: "rematch", accept: false }) }, t("moment.rematch_decline")));
      return box;
    }
    box.append(el("p", { class: "muted" }, t("moment.rematch_rules")),
      el("div", { class: "rematch-buttons" },
        el("button", { id: "rematch-accept", disabled: !this.live, onclick: () => this.send({ type: "rematch", accept: true }) }, t("moment.rematch_accept")),
        el("button", { class: "secondary", id: "rematch-decline", disabled: !this.live, onclick: () => this.send({ type: "rematch", accept: false }) }, t("moment.rematch_decline"))));
    return box;
  }

  logPanel() {
    return el("section", { class: "panel log", id: "log" }, el("h2", {}, t("log.title")),
      el("ol", { tabindex: "0" }, this.log.map((l) => el("li", { class: l.cls }, l.text))));
  }

  runClock() {
    clearInterval(this.clockTimer);
    const clock = this.state.table.clock;
    const nodes = document.querySelectorAll(".clock");
    if (!clock || !nodes.length) return;
    if (!this.live) {  // not live: the countdown stands still
      nodes.forEach((c) => { c.classList.add("stopped"); $(".clock-text", c).textContent = t("table.clock_stopped"); });
      return;
    }
    const end = performance.now() + clock.remaining * 1000;
    const tick = () => {
      const left = Math.max(0, end - performance.now()) / 1000;
      nodes.forEach((c) => {
        $(".clock-bar", c).style.width = `${(100 * left) / clock.total}%`;
        $(".clock-text", c).textContent = `${Math.ceil(left)} s`;
      });
    };
    tick();
    this.clockTimer = setInterval(tick, 250);
  }
}
