// The live table: one WebSocket, the seat's view as the server sends it, and a page
// drawn from it. Buttons exist only for the legal actions the server lists: no rule
// of the game lives here.
import { $, backImg, cardImg, cardName, copyButton, el, select } from "./dom.js";
import { FairDeals } from "./fairness.js";
import { lang, t } from "./i18n.js";
import { sound } from "./sound.js";
import { Story, botLabel, describeRules, tableTitle } from "./story.js";
import { hintLine } from "./tutorial.js";

/** The server's refusals the page words itself, by code (i18n: refusal.<code>). */
const REFUSALS = new Set(["bad_json", "unknown_type", "bad_message", "too_large", "rate_limited", "bad_action",
  "bad_bot", "full", "no_bot", "no_player", "no_seat", "not_creator", "not_playing", "not_seated", "seat_taken",
  "started", "too_many_tables", "illegal", "account_needed", "rated_no_bots", "moving"]);
/** An ``error`` frame in the page's language; a code this page does not know: the server's words. */
const refusal = (msg) => (REFUSALS.has(msg.code) ? t(`refusal.${msg.code}`) : msg.reason);

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
    if (final === "kicked") { this.offline(t("table.kicked", { reason: ev.reason || ev.code }), false); return; }
    this.attempts += 1;
    const wait = Math.min(10, 2 ** (this.attempts - 1));
    this.retryAt = performance.now() + wait * 1000;
    const again = async () => {
      if (ev.code === 4401) { this.ctx.identity.forget(); await this.ctx.identity.ensure(); }  // a new session
      this.connect();
    };
    this.retryTimer = setTimeout(again, wait * 1000);
    this.offline(t(this.mySeat === null ? "table.offline_watch" : "table.offline_text"), true);
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
    if (this.send({ type: "act", action })) this.actedOn = this.version;
  }

  // ------------------------------------------------------------------ receiving
  receive(msg) {
    if (msg.type === "error") { this.actedOn = null; this.banner(t("table.error", { reason: refusal(msg) }), true); return; }
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
      case "seated": this.line(t("log.seated", { name: name(e.seat) })); break;
      case "stood": this.line(t("log.stood", { n: e.seat + 1 })); break;
      case "start": this.line(t("log.start"), "head"); break;
      case "deal":
        this.notesHand = e.hand;
        this.notesLogged = 0;
        this.line(t("log.deal", { n: e.hand + 1, name: name(e.mano) }), "head");
        break;
      case "action":
        this.line(story.actionLine(e.seat, e.action, e.by), e.action.startsWith("say ") ? "say" : "");
        break;
      case "hand_closed":
        if (this.notesHand === e.index) this.logNotes(e.notes || [], e.showdowns || []);
        this.notesHand = null;
        this.line(t("log.hand_closed", { n: e.index + 1, why: story.whyLine(e.why) }), "closed");
        this.summarize(e, this.before, e.story);
        // the next hand starts from this score (from nothing when the chico is over)
        this.before = Math.max(...e.score) >= this.state.table.rules.target ? [0, 0] : e.score.slice();
        return true;
      case "over": this.line(t("log.over", { winner: story.winnerText(e.winner) }), "closed"); break;
      case "away": this.line(e.away ? t("log.away", { name: name(e.seat) }) : t("log.back", { name: name(e.seat) })); break;
      case "presence":
        if (this.state.table.seats[e.seat]?.kind === "human" && e.seat !== this.mySeat) {
          this.line(t(e.connected ? "log.presence_on" : "log.presence_off", { name: name(e.seat) }), "muted");
        }
        break;
      case "committed": this.line(t("log.committed", { card: cardName(e.card) })); break;
      default: break;
    }
    return false;
  }

  /** Keep a closed hand and the server's words for it (``story``: truco/narrate.py's
   * lines in every language, told once per hand), in the page's language. */
  summarize(hand, before, story) {
    const scored = before ? [0, 1].map((i) => hand.score[i] - before[i]) : hand.points;
    const lines = story && story.index === hand.index ? story.lines[lang] || story.lines.es : [];
    this.summary = { index: hand.index, hand, scored, lines };
    this.freshSummary = true;
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
      if (!view.legal.includes("mazo")) return;
      ev.preventDefault();
      if (this.mazoArmed) { this.act("mazo"); return; }
      this.mazoArmed = true;
      this.banner(t("table.mazo_confirm"));
      setTimeout(() => { this.mazoArmed = false; }, 3000);
      return;
    }
    const action = (KEYS[k] || []).find((a) => view.legal.includes(a));
    if (action) { ev.preventDefault(); this.act(action); }
  }

  // ------------------------------------------------------------------ drawing
  render() {
    // the focus on a card or call, or lost with them (the last card played): it comes back
    const lost = document.activeElement === document.body && this.handFocus;
    const focused = document.activeElement?.dataset?.focus || (lost ? "hand" : undefined);
    const { table, view, you } = this.state;
    const n = table.rules.players;
    const me = you.seat ?? 0;
    this.bubbleOf = view ? this.bubbles(view) : {};
    const board = el("section", { class: `board players-${n}`, "aria-label": t("table.board") });
    for (let seat = 0; seat < n; seat++) board.append(this.seatBox(seat, POSITIONS[n][(seat - me + n) % n]));
    board.append(this.center());
    const head = el("div", { class: "table-head" },
      el("div", {}, el("h1", {}, tableTitle(table)),
        el("span", { class: "muted" }, `${describeRules(table.rules)} · ${t("table.code")} `, el("code", { id: "table-code" }, table.id))),
      this.scoreboard());
    const parts = [head, el("div", { id: "banner", class: "banner", role: "status" }), board];
    if (view && you.seat !== null && view.winner === null) parts.push(hintLine(this, KEY_OF), this.myHand(), this.buttons());
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
    if (view && view.mano === seat && table.status === "playing") tags.push(el("span", { class: "badge" }, t("seat.mano")));
    if (info.away) tags.push(el("span", { class: "badge warn" }, t("seat.covered")));
    else if (info.kind === "human" && !info.connected) tags.push(el("span", { class: "badge warn" }, t("seat.offline")));
    if (view && table.status === "playing" && view.winner === null && !view.in_hand[seat]) {
      tags.push(el("span", { class: "badge" }, t(view.round_seats.includes(seat) ? "seat.mazo" : "seat.waits_round")));
    }
    box.append(el("div", { class: "seat-name" }, el("span", { class: "dot", "aria-hidden": "true" }), el("span", { class: "who" }, name), ...tags));
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
    if (seat !== you.seat && view.winner === null && view.in_hand[seat]) {
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
        const level = select("level", (this.bots || ["random"]).map((b) => [b, botLabel(b)]));
        level.setAttribute("aria-label", t("seat.bot_level", { n: seat + 1 }));
        level.value = (this.bots || []).includes("simple") ? "simple" : level.value;
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
    const view = this.state.view;
    const results = this.bazaWinners(view);
    const [hand, seen] = (this.playedSeen || "-1:0").split(":").map(Number);
    const fresh = new Set(view.played.slice(hand === view.hand_index ? seen : 0).map(([, c]) => c));
    const row = el("div", { class: "bazas-row" });
    const bazas = view.winner === null ? view.bazas : [];
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
        el("a", { href: "/", class: "button" }, t("back_home"))));
      return box;
    }
    const last = this.summary;
    const fresh = this.mySeat === null ? !view.played.length : !view.played.some(([s]) => s === this.mySeat);
    if (last && last.index === view.hand_index - 1 && fresh) {  // the hand just closed: say how it ended
      box.append(el("div", { class: "just-closed", id: "just-closed" },
        t("table.last_hand", { n: last.index + 1, blue: story.points(last.scored[0]), red: story.points(last.scored[1]), blueTeam: story.team(0), redTeam: story.team(1) }),
        " ", el("a", { href: "#last-hand" }, t("table.why_link"))));
    }
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
    box.append(this.bazaStrip(view));
    return box;
  }

  bazaStrip(view) {
    const results = this.bazaWinners(view);
    return el("ol", { class: "baza-strip", "aria-label": t("table.bazas") },
      [0, 1, 2].map((i) => {
        const r = results[i];
        const text = r ? (r.parda ? t("table.baza_parda") : this.story.seatName(r.seat)) : view.bazas[i]?.length ? t("table.baza_open") : "·";
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
    return panel;
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
