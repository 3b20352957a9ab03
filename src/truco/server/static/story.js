// Words for what happens at a table: seat and team names and log lines. Everything is
// read from the table summary and the view the server sends; no rule of the game is
// decided here, and a closed hand is explained by the server (truco/narrate.py).
import { cap, joinNames, t } from "./i18n.js";
import { cardName, el } from "./dom.js";

export const TEAM_KEYS = ["blue", "red"];
/** The bots the page has words for (i18n ``bot.<name>``); others show their own name. */
const BOT_LABELS = ["beginner", "amateur", "club", "master", "search:expert-2026", "random", "simple", "search:easy", "search:medium", "search:hard", "search:expert",
  "mirror", "tight", "loose", "station", "scared", "falta"];
/** A bot as a person reads it in the page's language ("Búsqueda, difícil"). */
export const botLabel = (name) => (BOT_LABELS.includes(name) ? t(`bot.${name}`) : name);
/** The bot's level in a word, after its name at a seat ("Rosa (difícil)"). */
export const botLevel = (name) => (BOT_LABELS.includes(name) ? t(`botlevel.${name}`) : name);
/** One line on how the bot plays, or null for a bot the page has no words for. */
export const botDescription = (name) => (BOT_LABELS.includes(name) ? t(`botdesc.${name}`) : null);

/** The ladder's levels, the menus' first group (truco/bots: LADDER). */
const LADDER = ["beginner", "amateur", "club", "master"];
/** The ``<option>``s of a bot menu for the ``offered`` specs: the ladder, then the other
 * bots, each group labelled; a bot the page has no words for is not offered to players. */
export function botOptions(offered, chosen = undefined) {
  const option = (b) => el("option", { value: b, selected: b === chosen }, botLabel(b));
  const known = offered.filter((b) => BOT_LABELS.includes(b));
  const ladder = known.filter((b) => LADDER.includes(b));
  const others = known.filter((b) => !LADDER.includes(b));
  if (!ladder.length || !others.length) return known.map(option);
  return [el("optgroup", { label: t("bots.ladder") }, ladder.map(option)),
    el("optgroup", { label: t("bots.more") }, others.map(option))];
}

/** A table's name; a quick-match table has none and is worded here ("Jugar ya · 1v1 por puntos"). */
export function tableTitle(table) {
  if (table.name) return table.name;
  const mode = { 2: "1v1", 4: "2v2", 6: "3v3" }[table.rules.players];
  return t("qm.table_name", { mode, kind: t(table.rated ? "qm.rated" : "qm.casual") });
}

/** The table's rules in a few words: "2v2 con flor a 30". */
export function describeRules(rules) {
  const parts = [{ 2: "1v1", 4: "2v2", 6: "3v3" }[rules.players], t(rules.flor ? "rules.con_flor" : "rules.sin_flor"), t("rules.to", { n: rules.target })];
  if (rules.chicos === 3) parts.push(t("rules.best_of_3"));
  if (rules.pica_pica) parts.push(t("rules.pica_pica"));
  return parts.join(" ");
}

/** A closed hand's bazas as the table draws them: ``{cards: [[seat, card], ...], result}``,
 * ``result`` ``{seat}`` (the card that won it), ``{parda: true}`` or null (unfinished),
 * from the server's ``story.bazas`` (truco/narrate.py lays them out). Without it (a
 * pica-pica hand, an older server) each seat's cards in the order played, results unsaid. */
export function closedBazas(hand, story) {
  if (story && story.index === hand.index && story.bazas?.length) {
    return story.bazas.map((b) => ({
      cards: b.cards,
      result: !b.finished ? null : b.winner === null ? { parda: true } : { seat: b.best },
    }));
  }
  const bazas = [];
  const count = {};
  for (const [seat, card] of hand.played || []) {
    const k = Math.min(2, count[seat] = (count[seat] ?? -1) + 1);
    (bazas[k] ||= { cards: [], result: null }).cards.push([seat, card]);
  }
  return bazas.filter(Boolean);
}

export class Story {
  /** ``table``: the table summary; ``viewer``: the viewer's seat, or null. */
  constructor(table, viewer) {
    this.table = table;
    this.viewer = viewer;
  }

  // ------------------------------------------------------------------ who
  /** A seat's name, the same for every viewer, records and listings: the server names
   * the bots ("Rosa"), the page adds their level in its language ("Rosa (difícil)"). */
  seatName(seat) {
    const seats = this.table.seats;
    const info = seats[seat];
    if (!info || info.kind === "empty") return t("seat.numbered", { n: seat + 1 });
    if (info.kind === "bot") {
      if (info.name) return t("seat.bot_named", { name: info.name, level: botLevel(info.bot) });
      const n = seats.slice(0, seat + 1).filter((s) => s.kind === "bot").length;
      return t("seat.bot", { n, level: info.bot || "bot" });
    }
    const twin = seats.some((s, i) => i !== seat && s.kind === "human" && s.name === info.name);
    return twin ? `${info.name} (${seat + 1})` : info.name;
  }

  /** "vos", "compañero" or "rival" for a seated viewer; null for a spectator. */
  role(seat) {
    if (this.viewer === null || this.viewer === undefined) return null;
    if (seat === this.viewer) return "you";
    return seat % 2 === this.viewer % 2 ? "partner" : "rival";
  }

  get seated() { return this.viewer !== null && this.viewer !== undefined; }
  isUs(team) { return this.seated && team === this.viewer % 2; }
  /** The team as a phrase: "nosotros"/"ellos" for a player, "los azules" for a spectator. */
  team(team) {
    if (this.seated) return t(this.isUs(team) ? "team.us" : "team.them");
    return t(`team.${TEAM_KEYS[team]}`);
  }
  teamTitle(team) { return t(`team.${cap(TEAM_KEYS[team])}`); }
  members(team) {
    return this.table.seats.map((_, i) => i).filter((i) => i % 2 === team).map((i) => this.seatName(i));
  }
  points(n) { return t("points", { n }); }

  winnerText(team) {
    if (this.seated) return t(this.isUs(team) ? "table.win_us" : "table.win_them");
    const names = this.members(team);
    return t(names.length === 1 ? "table.win_one" : "table.win_team", { names: joinNames(names) });
  }

  // ------------------------------------------------------------------ actions
  actionText(token) {
    if (token.startsWith("play ")) return cardName(token.slice(5));
    if (token.startsWith("say ")) return t(`word.${token.slice(4)}`);
    return t(`call.${token}`);
  }

  /** What a seat says aloud for an action (a speech bubble), or null for a card. */
  sung(token) {
    if (token.startsWith("play ")) return null;
    if (token.startsWith("say ")) return t(`word.${token.slice(4)}`);
    return t(`sung.${token}`);
  }

  /** The key of a line about ``seat``: its second-person form ("log.play_you": "Jugaste
   * el 4 de copas") when the seat is the viewer's, the page speaking to its player. */
  about(key, seat) { return this.seated && seat === this.viewer ? `${key}_you` : key; }

  /** ``key``'s line about ``seat`` (named, or spoken to), with ``params``. */
  line(key, seat, params = {}) { return t(this.about(key, seat), { name: this.seatName(seat), ...params }); }

  actionLine(seat, token, by) {
    let text;
    if (token.startsWith("play ")) text = this.line("log.play", seat, { card: cardName(token.slice(5)) });
    else if (token.startsWith("say ")) text = this.line("log.say", seat, { word: t(`word.${token.slice(4)}`) });
    else if (token === "mazo") text = this.line("log.mazo", seat);
    else text = this.line("log.action", seat, { what: t(`call.${token}`) });
    const human = this.table.seats[seat]?.kind === "human";
    return by === "bot" && human ? t(this.about("log.by_bot", seat), { text }) : text;
  }

  /** One log line for a settlement note of the view (a baza, the envido, ...). */
  noteLine(kind, data, showdowns = []) {
    if (kind === "baza") {
      const [number, result, seat] = data;
      return result === -1 ? t("log.parda", { n: number + 1 }) : this.line("log.baza", seat, { n: number + 1 });
    }
    if (kind === "envido") return this.envidoResult(data, showdowns);
    return null;  // flor and round points are told when the hand closes
  }

  /** "Ana gana el envido con 33: 2 puntos para nosotros". */
  envidoResult([seat, points], showdowns) {
    const word = showdowns.flat().filter((d) => d.seat === seat && d.tanto !== null).pop();
    const params = { points: this.points(points), team: this.team(seat % 2) };
    return word ? this.line("envido.won", seat, { ...params, tanto: word.tanto }) : this.line("envido.won_no_tanto", seat, params);
  }

  whyLine(why) {
    if (!why.length) return t("log.no_points");
    return why.map(([team, source, pts]) => t("log.why", { team: this.team(team), points: this.points(pts), source: t(`source.${source}`) })).join(", ");
  }
}
