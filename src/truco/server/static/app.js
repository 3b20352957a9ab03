import { analysisPanel } from "./analysis.js";
// Truco Argento: the browser page. It renders what the server sends (each seat's own
// view) and shows buttons only for the legal actions the server lists: no rule lives here.

import { FairDeals } from "./fairness.js";

const $ = (sel, root = document) => root.querySelector(sel);
const app = $("#app");

const CALLS = {
  "envido": "Envido", "real-envido": "Real envido", "falta-envido": "Falta envido",
  "flor": "Flor", "contraflor": "Contraflor", "contraflor-al-resto": "Contraflor al resto",
  "con-flor-me-achico": "Con flor me achico",
  "truco": "Truco", "retruco": "Retruco", "vale-cuatro": "Vale cuatro",
  "quiero": "Quiero", "no-quiero": "No quiero", "mazo": "Irse al mazo",
};
const WORDS = {
  "si": "Sí", "no": "No", "voy": "Voy", "veni": "Vení", "tantos": "Tantos",
  "cantale": "Cantale", "pone": "Poné", "no-tengo-nada": "No tengo nada",
};
const PENDING = {
  "truco": ["", "Truco", "Retruco", "Vale cuatro"], "envido": null, "flor": "Flor",
  "contraflor": "Contraflor", "contraflor-al-resto": "Contraflor al resto",
};
const SUITS = { e: "espadas", b: "bastos", o: "oros", c: "copas" };

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const cardName = (c) => `${c.slice(0, -1)} de ${SUITS[c.slice(-1)]}`;
const cardImg = (c, cls = "card") => el("img", { class: cls, src: `/cards/${c}.svg`, alt: cardName(c), "data-card": c, draggable: "false" });
const backImg = (cls = "card back") => el("img", { class: cls, src: "/cards/back.svg", alt: "carta" });
const actionText = (token) => {
  if (token.startsWith("play ")) return cardName(token.slice(5));
  if (token.startsWith("say ")) return `(megáfono) ${WORDS[token.slice(4)] || token.slice(4)}`;
  return CALLS[token] || token;
};

// ------------------------------------------------------------------ identity
// The session lives in an HttpOnly cookie the server sets: this page never sees the
// token, it only knows whether it has a session and under which name.
const identity = {
  player: null,
  get name() { return this.player?.name || localStorage.getItem("truco.name") || ""; },
  async resume() { // a session from an earlier visit gets a new expiry
    localStorage.removeItem("truco.token"); // tokens of older versions of this page
    const renewed = await fetch("/api/session/renew", { method: "POST" });
    if (renewed.ok) this.remember(await renewed.json());
    return this.player;
  },
  async ensure() {
    return this.player || (await this.resume()) || this.rename(this.name || "Invitado");
  },
  async rename(name) {
    const res = await fetch("/api/guest", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
    return this.remember(await res.json());
  },
  remember(data) {
    this.player = { id: data.id, name: data.name };
    localStorage.setItem("truco.name", data.name);
    $("#name").value = data.name;
    return this.player;
  },
};

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const res = await fetch(path, { ...options, headers });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  return data;
}

// ------------------------------------------------------------------ lobby
async function showLobby() {
  const options = await api("/api/options");
  const bots = options.bots;
  const form = el("form", { id: "create-form", class: "panel" },
    el("h2", {}, "Nueva mesa"),
    el("label", {}, "Nombre de la mesa ", el("input", { name: "name", maxlength: 80, placeholder: "Mesa de amigos" })),
    el("div", { class: "row" },
      el("label", {}, "Jugadores ", select("players", [["2", "1 contra 1"], ["4", "2 contra 2"], ["6", "3 contra 3"]])),
      el("label", {}, "Flor ", select("flor", [["false", "sin flor"], ["true", "con flor"]])),
      el("label", {}, "A ", select("target", [["30", "30 puntos"], ["15", "15 puntos"]])),
      el("label", {}, "Chicos ", select("chicos", [["1", "uno"], ["3", "al mejor de 3"]])),
    ),
    el("details", {},
      el("summary", {}, "Variantes"),
      el("label", {}, "Falta envido ", select("falta_envido", Object.keys(options.falta_envido).map((k) => [k, k]))),
      el("label", {}, el("input", { type: "checkbox", name: "con_flor_quiero" }), " con flor quiero"),
      el("label", {}, el("input", { type: "checkbox", name: "pica_pica" }), " pica-pica (3 contra 3 a 30)"),
      el("label", {}, "Segundos por turno ", el("input", { type: "number", name: "turn_seconds", min: 0, max: 600, value: options.turn_seconds })),
    ),
    el("label", {}, "Bots en los otros asientos ", select("bots", [["", "no, espero a la gente"], ...bots.map((b) => [b, b])])),
    el("button", { type: "submit", id: "create" }, "Crear mesa y sentarme"),
    el("p", { class: "error", id: "create-error" }),
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const players = Number(f.get("players"));
    const rules = {
      players, flor: f.get("flor") === "true", target: Number(f.get("target")), chicos: Number(f.get("chicos")),
      falta_envido: f.get("falta_envido"), con_flor_quiero: f.get("con_flor_quiero") === "on", pica_pica: f.get("pica_pica") === "on",
    };
    const botLevel = f.get("bots");
    const seatBots = {};
    // bots take the rival seats first, then the partners': people sit where they like
    if (botLevel) for (let s = 1; s < players; s++) seatBots[s] = botLevel;
    try {
      await identity.ensure();
      const table = await api("/api/tables", { method: "POST", body: JSON.stringify({ rules, name: f.get("name"), seat: 0, bots: seatBots, turn_seconds: Number(f.get("turn_seconds")) }) });
      go(`/t/${table.id}`);
    } catch (e) { $("#create-error").textContent = e.message; }
  });
  const join = el("form", { id: "join-form", class: "panel" },
    el("h2", {}, "Unirse con un código"),
    el("input", { name: "code", placeholder: "código", maxlength: 12, required: true }),
    el("button", { type: "submit" }, "Ir a la mesa"));
  join.addEventListener("submit", (ev) => { ev.preventDefault(); go(`/t/${new FormData(join).get("code").trim().toLowerCase()}`); });

  const tables = el("section", { class: "panel", id: "tables" }, el("h2", {}, "Mesas abiertas"));
  const history = el("section", { class: "panel", id: "history" }, el("h2", {}, "Partidas terminadas"));
  app.replaceChildren(el("div", { class: "lobby" }, form, el("div", {}, join, tables, history)));
  const list = await api("/api/tables");
  if (!list.length) tables.append(el("p", { class: "muted" }, "No hay mesas abiertas: creá una."));
  for (const t of list) {
    const free = t.seats.filter((s) => s.kind === "empty").length;
    tables.append(el("div", { class: "listing" },
      el("span", {}, `${t.name} · ${t.describe} · `, t.status === "waiting" ? `${free} lugar(es)` : "jugando"),
      el("a", { href: `/t/${t.id}`, class: "button", "data-table": t.id }, t.status === "waiting" ? "Sentarse" : "Mirar")));
  }
  const done = await api("/api/history");
  if (!done.length) history.append(el("p", { class: "muted" }, "Todavía no hay partidas terminadas."));
  for (const h of done.slice(0, 20)) {
    history.append(el("div", { class: "listing" },
      el("span", {}, `${h.name} · ${h.describe} · ${h.seats.join(", ")} · ganó el equipo ${h.winner + 1}`),
      el("a", { href: `/replay/${h.id}`, class: "button" }, "Ver")));
  }
}

function select(name, pairs) {
  return el("select", { name }, pairs.map(([v, label]) => el("option", { value: v }, label)));
}

// ------------------------------------------------------------------ table
class TableScreen {
  constructor(id) {
    this.id = id;
    this.version = null;
    this.state = null;
    this.log = [];
    this.talk = [];
    this.closedByUs = false;
    this.clockTimer = null;
    this.clockEnd = 0;
    this.fair = new FairDeals(() => this.state && this.render());  // commitments, verified decks
  }

  async open() {
    await identity.ensure();
    this.bots = (await api("/api/options")).bots;
    app.replaceChildren(el("p", { class: "muted" }, "Conectando…"));
    this.connect();
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const since = this.version === null ? "" : `?since=${this.version}`;
    this.ws = new WebSocket(`${proto}://${location.host}/ws/${this.id}${since}`);
    this.ws.onmessage = (ev) => this.receive(JSON.parse(ev.data));
    this.ws.onclose = (ev) => {
      if (this.closedByUs) return;
      if (ev.code === 4404) { app.replaceChildren(el("p", { class: "error" }, `No existe la mesa ${this.id}.`), el("a", { href: "/", class: "button" }, "Volver")); return; }
      if (ev.code === 4410) { go(`/replay/${this.id}`); return; }
      // final: trying again would get the same answer
      if (ev.code === 4400 || ev.code === 1008) { app.replaceChildren(el("p", { class: "error" }, `El servidor cerró la conexión: ${ev.reason || ev.code}`), el("a", { href: "/", class: "button" }, "Volver")); return; }
      this.banner(`Conexión perdida (${ev.reason || ev.code}); reconectando…`);
      if (ev.code === 4401) { identity.player = null; setTimeout(async () => { await identity.ensure(); this.connect(); }, 1000); return; }
      setTimeout(() => this.connect(), 1000);
    };
  }

  close() { this.closedByUs = true; this.ws?.close(); clearInterval(this.clockTimer); }

  send(message) { if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message)); }
  act(action) { this.send({ type: "act", action }); }

  receive(msg) {
    if (msg.type === "error") { this.banner(msg.reason, true); return; }
    if (msg.type !== "state") return;
    this.version = msg.v;
    this.state = msg;
    this.fair.receive(msg);
    if (msg.full) {  // start the log again from what the view holds: the hand so far
      this.log = (msg.view?.log || []).map(([s, a]) => `${this.name(s)}: ${actionText(a)}`);
    }
    for (const e of msg.events) this.note(e);
    this.render();
  }

  banner(text, isError = false) {
    const b = $("#banner");
    if (!b) return;
    b.textContent = text;
    b.className = isError ? "banner error" : "banner";
    clearTimeout(this.bannerTimer);
    this.bannerTimer = setTimeout(() => { b.textContent = ""; b.className = "banner"; }, 4000);
  }

  name(seat) { return this.state?.table.seats[seat]?.name || `asiento ${seat + 1}`; }

  note(e) {
    const who = (s) => this.name(s);
    let text = null;
    switch (e.kind) {
      case "seated": text = `${e.name} se sentó`; break;
      case "stood": text = `asiento ${e.seat + 1} libre`; break;
      case "start": text = "¡Empieza el partido!"; break;
      case "deal": text = `Mano ${e.hand + 1}: es mano ${who(e.mano)}`; break;
      case "action":
        if (e.action.startsWith("say ")) { this.talk.push(`${who(e.seat)}: ${WORDS[e.action.slice(4)]}`); this.talk = this.talk.slice(-6); }
        text = `${who(e.seat)}: ${actionText(e.action)}${e.by === "bot" && this.state.table.seats[e.seat].kind === "human" ? " (bot)" : ""}`;
        break;
      case "hand_closed": {
        const why = e.why.map(([t, src, p]) => `${this.teamName(t)} ${p} de ${src}`).join(", ") || "sin puntos";
        text = `Se cerró la mano: ${why}`;
        break;
      }
      case "over": text = `Terminó: ganó ${this.teamName(e.winner)}`; break;
      case "away": text = e.away ? `${who(e.seat)} no está: juega un bot por él` : `${who(e.seat)} volvió`; break;
      case "committed": text = `Tu ${cardName(e.card)} irá cuando te toque`; break;
      default: break;
    }
    if (text) { this.log.push(text); this.log = this.log.slice(-40); }
  }

  get mySeat() { return this.state?.you.seat; }
  get myTeam() { const s = this.mySeat; return s === null || s === undefined ? 0 : s % 2; }
  teamName(team) { return this.mySeat === null ? `Equipo ${team + 1}` : team === this.myTeam ? "Nosotros" : "Ellos"; }

  scoreText(points) {
    const target = this.state.table.rules.target;
    if (target !== 30) return `${points}`;
    return points < 15 ? `${points} malas` : `${points - 15} buenas`;
  }

  render() {
    const { table, view, you } = this.state;
    const n = table.rules.players;
    const me = you.seat ?? 0;
    const positions = { 2: ["bot", "top"], 4: ["bot", "r", "top", "l"], 6: ["bot", "br", "tr", "top", "tl", "bl"] }[n];
    const board = el("div", { class: `board players-${n}` });
    for (let seat = 0; seat < n; seat++) {
      const rel = (seat - me + n) % n;
      board.append(this.seatBox(seat, positions[rel]));
    }
    board.append(this.center());
    const head = el("div", { class: "table-head" },
      el("div", {},
        el("h1", {}, table.name),
        el("span", { class: "muted" }, `${table.describe} · código `, el("code", { id: "table-code" }, table.id))),
      this.scoreboard());
    const parts = [head, el("div", { id: "banner", class: "banner" }), board];
    if (view && you.seat !== null) parts.push(this.myHand(), this.buttons());
    if (you.seat === null && table.status !== "waiting") parts.push(el("p", { class: "muted spectating" }, "Estás mirando la mesa."));
    parts.push(el("div", { class: "side" }, this.lastHandPanel(), this.fair.panel(), this.logPanel()));
    app.replaceChildren(el("div", { class: "table-screen" }, ...parts));
    this.runClock();
  }

  scoreboard() {
    const { view, table } = this.state;
    const score = view ? view.score : [0, 0];
    const chicos = view ? view.chicos : [0, 0];
    const teams = this.mySeat === null ? [0, 1] : [this.myTeam, 1 - this.myTeam];
    return el("div", { class: "score", id: "score" },
      teams.map((t) => el("div", { class: `team team-${t}`, "data-team": t },
        el("span", { class: "team-name" }, this.teamName(t)),
        el("strong", { class: "points", "data-points": score[t] }, this.scoreText(score[t])),
        table.rules.chicos === 3 ? el("span", { class: "muted" }, ` chicos ${chicos[t]}`) : null)));
  }

  seatBox(seat, pos) {
    const { table, view, you } = this.state;
    const info = table.seats[seat];
    const box = el("div", { class: `seat pos-${pos} team-${seat % 2}`, "data-seat": seat });
    const isTurn = view && view.actors.includes(seat) && view.winner === null;
    if (isTurn) box.classList.add("acting");
    const badges = [];
    if (view && view.mano === seat && table.status === "playing") badges.push(el("span", { class: "badge" }, "mano"));
    if (info.away) badges.push(el("span", { class: "badge warn" }, "bot lo cubre"));
    else if (info.kind === "human" && !info.connected) badges.push(el("span", { class: "badge warn" }, "desconectado"));
    if (view && table.status === "playing" && view.winner === null && !view.in_hand[seat]) {
      badges.push(el("span", { class: "badge" }, view.round_seats.includes(seat) ? "al mazo" : "espera su ronda"));
    }
    box.append(el("div", { class: "seat-name" }, info.kind === "empty" ? "libre" : info.name, seat === you.seat ? " (vos)" : "", ...badges));
    if (isTurn) box.append(el("div", { class: "clock", "data-clock-seat": seat }, el("div", { class: "clock-bar" }), el("span", { class: "clock-text" })));
    if (table.status === "waiting") {
      if (info.kind === "empty") {
        box.append(el("button", { class: "sit", onclick: () => this.send({ type: "sit", seat }) }, "Sentarme acá"));
        if (you.player && table.creator === you.player.id) {
          const level = select("level", (this.bots || ["random"]).map((b) => [b, b]));
          level.value = (this.bots || []).includes("simple") ? "simple" : level.value;
          box.append(el("div", { class: "bot-choice" }, level,
            el("button", { class: "add-bot secondary", onclick: () => this.send({ type: "add_bot", seat, level: level.value }) }, "Poner un bot")));
        }
      } else if (seat === you.seat) {
        box.append(el("button", { class: "stand secondary", onclick: () => this.send({ type: "stand" }) }, "Levantarme"));
      } else if (info.kind === "bot" && you.player && table.creator === you.player.id) {
        box.append(el("button", { class: "secondary", onclick: () => this.send({ type: "remove_bot", seat }) }, "Sacar bot"));
      }
      return box;
    }
    if (!view) return box;
    // the cards this seat played in the current hand, baza by baza
    const played = el("div", { class: "played" });
    view.bazas.forEach((baza, i) => {
      const hit = baza.find(([s]) => s === seat);
      if (hit) played.append(el("div", { class: `baza-card${view.baza_results[i] !== undefined ? " settled" : ""}` }, cardImg(hit[1], "card small")));
    });
    if (seat !== you.seat && view.winner === null) {
      const left = 3 - view.played.filter(([s]) => s === seat).length;
      const backs = el("div", { class: "backs" });
      if (!view.in_hand || view.in_hand[seat]) for (let i = 0; i < left; i++) backs.append(backImg("card tiny back"));
      box.append(backs);
    }
    box.append(played);
    return box;
  }

  center() {
    const { view, table } = this.state;
    const box = el("div", { class: "center" });
    if (table.status === "waiting") {
      const free = table.seats.filter((s) => s.kind === "empty").length;
      box.append(el("p", {}, `Esperando ${free} jugador(es). Compartí el enlace: `), el("code", { class: "link" }, location.href));
      return box;
    }
    if (!view) return box;
    if (view.winner !== null) {
      box.append(el("div", { class: "winner", id: "winner" }, `¡Ganó ${this.teamName(view.winner)}!`, el("a", { href: "/", class: "button" }, "Volver al salón")));
      return box;
    }
    if (view.pending) {
      const p = view.pending;
      let what = p.kind === "envido" ? p.chain.map((c) => CALLS[c]).join(" + ") : p.kind === "truco" ? PENDING.truco[p.level] : PENDING[p.kind];
      const to = this.mySeat !== null && p.team === this.myTeam ? "¡Te cantaron " : `${this.teamName(p.team)} debe responder a `;
      box.append(el("div", { class: "pending", id: "pending" }, `${to}${what}!`));
    }
    if (!view.pending && view.turn !== null) {
      box.append(el("div", { class: "turn", id: "turn" }, view.turn === this.mySeat ? "Te toca" : `Juega ${this.name(view.turn)}`));
    }
    const truco = ["", "truco", "retruco", "vale cuatro"][view.truco_level];
    if (truco) box.append(el("div", { class: "muted" }, `Se juega: ${truco}`));
    if (view.pica_pica) box.append(el("div", { class: "badge" }, "pica-pica"));
    if (view.showdowns.length) box.append(this.showdown(view.showdowns[view.showdowns.length - 1]));
    if (this.talk.length) box.append(el("div", { class: "talk" }, "Megáfono: ", this.talk.slice(-3).join(" · ")));
    return box;
  }

  showdown(decls) {
    return el("div", { class: "showdown" }, "Tantos: ", decls.map((d) => `${this.name(d.seat)} ${d.tanto === null ? "son buenas" : d.tanto}`).join(" · "));
  }

  myHand() {
    const { view, you } = this.state;
    const hand = el("div", { class: "my-hand", id: "my-hand" });
    for (const c of view.hand) {
      const token = `play ${c}`;
      const legal = view.legal.includes(token);
      const img = cardImg(c, `card mine${legal ? " playable" : ""}${you.committed === c ? " committed" : ""}`);
      img.tabIndex = 0;
      img.title = legal ? `Jugar ${cardName(c)}` : "Soltarla: va cuando te toque";
      const play = () => this.act(token);
      img.addEventListener("click", play);
      img.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") play(); });
      hand.append(img);
    }
    return hand;
  }

  buttons() {
    const { view } = this.state;
    const calls = view.legal.filter((a) => !a.startsWith("play ") && !a.startsWith("say "));
    const says = view.legal.filter((a) => a.startsWith("say "));
    const bar = el("div", { class: "actions", id: "actions" },
      calls.map((a) => el("button", { class: a === "mazo" ? "secondary" : a === "no-quiero" ? "secondary" : "", "data-action": a, onclick: () => this.act(a) }, CALLS[a] || a)));
    const box = el("div", { class: "controls" }, bar);
    if (says.length) {
      box.append(el("div", { class: "megaphone", id: "megaphone" }, el("span", { class: "muted" }, "Megáfono"),
        says.map((a) => el("button", { class: "word", "data-action": a, onclick: () => this.act(a) }, WORDS[a.slice(4)]))));
    }
    return box;
  }

  lastHandPanel() {
    const last = this.state.view?.last_hand;
    const panel = el("section", { class: "panel last-hand", id: "last-hand" }, el("h3", {}, "Última mano"));
    if (!last) { panel.append(el("p", { class: "muted" }, "Todavía ninguna.")); return panel; }
    panel.append(el("p", {}, last.why.length ? last.why.map(([t, src, p]) => `${this.teamName(t)}: ${p} (${src})`).join(" · ") : "Sin puntos"));
    for (const s of last.showdowns) panel.append(this.showdown(s));
    for (const [seat, cards] of last.revealed) {
      panel.append(el("div", { class: "revealed" }, `${this.name(seat)} mostró `, cards.map((c) => cardImg(c, "card tiny"))));
    }
    return panel;
  }

  logPanel() {
    return el("section", { class: "panel log", id: "log" }, el("h3", {}, "Lo que pasó"),
      el("ol", {}, this.log.slice(-12).map((t) => el("li", {}, t))));
  }

  runClock() {
    clearInterval(this.clockTimer);
    const clock = this.state.table.clock;
    const node = $(".clock");
    if (!clock || !node) return;
    this.clockEnd = performance.now() + clock.remaining * 1000;
    const tick = () => {
      const left = Math.max(0, this.clockEnd - performance.now()) / 1000;
      document.querySelectorAll(".clock").forEach((c) => {
        $(".clock-bar", c).style.width = `${(100 * left) / clock.total}%`;
        $(".clock-text", c).textContent = `${Math.ceil(left)} s`;
      });
    };
    tick();
    this.clockTimer = setInterval(tick, 250);
  }
}

// ------------------------------------------------------------------ replay viewer
async function showReplay(id) {
  const data = await api(`/api/matches/${id}/replay`);
  const seats = data.record.headers?.seats || [];
  let i = 0;
  const screen = el("div", { class: "replay" });
  const draw = () => {
    const step = data.steps[i];
    const header = el("div", { class: "table-head" }, el("h1", {}, data.record.headers?.event || "Partida"),
      el("div", { class: "score" }, `Equipo 1: ${step.score[0]} · Equipo 2: ${step.score[1]}`));
    const what = step.action === null ? `Mano ${step.hand + 1}: reparto` : `${seats[step.seat] || `asiento ${step.seat + 1}`}: ${actionText(step.action)}`;
    const rows = step.cards.map((cards, s) => el("div", { class: `replay-seat team-${s % 2}` },
      el("strong", {}, seats[s] || `asiento ${s + 1}`), step.mano === s ? el("span", { class: "badge" }, "mano") : null,
      el("span", { class: "cards" }, cards.map((c) => cardImg(c, "card tiny")))));
    const bazas = el("div", { class: "replay-bazas" }, step.bazas.map((b, k) => el("div", {}, `Baza ${k + 1}: `, b.map(([s, c]) => el("span", { title: seats[s] }, cardImg(c, "card tiny"))))));
    const closed = step.closed ? el("p", {}, "Se cerró la mano: ", step.closed.why.map(([t, src, p]) => `equipo ${t + 1} ${p} (${src})`).join(", ")) : null;
    screen.replaceChildren(header, el("p", { class: "step" }, `${i + 1}/${data.steps.length} · ${what}`),
      el("div", { class: "controls" },
        el("button", { onclick: () => { i = 0; draw(); } }, "Inicio"),
        el("button", { onclick: () => { i = Math.max(0, i - 1); draw(); } }, "◀ Anterior"),
        el("button", { id: "next", onclick: () => { i = Math.min(data.steps.length - 1, i + 1); draw(); } }, "Siguiente ▶"),
        el("button", { onclick: () => { i = data.steps.length - 1; draw(); } }, "Fin")),
      ...rows, bazas, closed ?? "", el("a", { href: "/", class: "button" }, "Volver"));
  };
  app.replaceChildren(screen, analysisPanel(id, seats, (step) => { i = step; draw(); }));
  draw();
}

// ------------------------------------------------------------------ routing
let current = null;
function go(path) { history.pushState({}, "", path); route(); }
async function route() {
  current?.close?.();
  current = null;
  const path = location.pathname;
  try {
    if (path.startsWith("/t/")) { current = new TableScreen(path.slice(3)); window.truco = current; await current.open(); }
    else if (path.startsWith("/replay/")) await showReplay(path.slice(8));
    else await showLobby();
  } catch (e) {
    app.replaceChildren(el("p", { class: "error" }, e.message), el("a", { href: "/", class: "button" }, "Volver"));
  }
}

window.addEventListener("popstate", route);
document.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[href^='/']");
  if (a && !ev.metaKey && !ev.ctrlKey) { ev.preventDefault(); go(a.getAttribute("href")); }
});
$("#name").value = identity.name;
$("#name").addEventListener("change", async (ev) => {
  await identity.rename(ev.target.value);
  if (current) { current.close(); current = new TableScreen(current.id); window.truco = current; await current.open(); }
});
identity.resume().finally(route);
