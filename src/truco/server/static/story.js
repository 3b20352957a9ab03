// Words for what happens at a table: seat and team names, log lines, and the summary
// of a closed hand that explains its points. Everything is read from the table summary
// and the view the server sends; no rule of the game is decided here.
import { cap, joinNames, t } from "./i18n.js";
import { cardName } from "./dom.js";

const ENVIDO_CALLS = ["envido", "real-envido", "falta-envido"];
const TRUCO_CALLS = ["truco", "retruco", "vale-cuatro"];
const FLOR_CALLS = ["flor", "contraflor", "contraflor-al-resto", "con-flor-me-achico"];
export const TEAM_KEYS = ["blue", "red"];

const callKind = (token) =>
  ENVIDO_CALLS.includes(token) ? "envido" : TRUCO_CALLS.includes(token) ? "truco" : FLOR_CALLS.includes(token) ? "flor" : null;

/** The table's rules in a few words: "2v2 con flor a 30". */
export function describeRules(rules) {
  const parts = [{ 2: "1v1", 4: "2v2", 6: "3v3" }[rules.players], t(rules.flor ? "rules.con_flor" : "rules.sin_flor"), t("rules.to", { n: rules.target })];
  if (rules.chicos === 3) parts.push(t("rules.best_of_3"));
  if (rules.pica_pica) parts.push(t("rules.pica_pica"));
  return parts.join(" ");
}

export class Story {
  /** ``table``: the table summary; ``viewer``: the viewer's seat, or null. */
  constructor(table, viewer) {
    this.table = table;
    this.viewer = viewer;
  }

  // ------------------------------------------------------------------ who
  /** A seat's name, the same for every viewer: bots are numbered ("Bot 1 (simple)"). */
  seatName(seat) {
    const seats = this.table.seats;
    const info = seats[seat];
    if (!info || info.kind === "empty") return t("seat.numbered", { n: seat + 1 });
    if (info.kind === "bot") {
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

  actionLine(seat, token, by) {
    let text;
    if (token.startsWith("play ")) text = t("log.play", { name: this.seatName(seat), card: cardName(token.slice(5)) });
    else if (token.startsWith("say ")) text = t("log.say", { name: this.seatName(seat), word: t(`word.${token.slice(4)}`) });
    else if (token === "mazo") text = t("log.mazo", { name: this.seatName(seat) });
    else text = t("log.action", { name: this.seatName(seat), what: t(`call.${token}`) });
    const human = this.table.seats[seat]?.kind === "human";
    return by === "bot" && human ? t("log.by_bot", { text }) : text;
  }

  /** One log line for a settlement note of the view (a baza, the envido, ...). */
  noteLine(kind, data, showdowns = []) {
    if (kind === "baza") {
      const [number, result, seat] = data;
      return result === -1 ? t("log.parda", { n: number + 1 }) : t("log.baza", { n: number + 1, name: this.seatName(seat) });
    }
    if (kind === "envido") return this.envidoResult(data, showdowns);
    return null;  // flor and round points are told when the hand closes
  }

  /** "Ana gana el envido con 33: 2 puntos para nosotros". */
  envidoResult([seat, points], showdowns) {
    const word = showdowns.flat().filter((d) => d.seat === seat && d.tanto !== null).pop();
    const params = { name: this.seatName(seat), points: this.points(points), team: this.team(seat % 2) };
    return word ? t("envido.won", { ...params, tanto: word.tanto }) : t("envido.won_no_tanto", params);
  }

  whyLine(why) {
    if (!why.length) return t("log.no_points");
    return why.map(([team, source, pts]) => t("log.why", { team: this.team(team), points: this.points(pts), source: t(`source.${source}`) })).join(", ");
  }

  // ------------------------------------------------------------------ the hand's summary
  /**
   * Sentences that explain a closed hand's points. ``hand``: ``last_hand`` (or a
   * ``hand_closed`` event); ``before``: the score before it, when known; ``actions``:
   * the hand's ``[seat, token]`` the page saw, when known (to say who refused or left).
   */
  summary(hand, before = null, actions = null) {
    const lines = [];
    const rules = this.table.rules;
    const notes = hand.notes || [];
    const who = refusals(hand.actions || actions || []);  // the hand's public actions
    const envidoNotes = notes.filter(([, kind]) => kind === "envido");
    let envidoShown = 0;
    for (const [team, source, pts] of hand.why) {
      const params = { team: this.team(team), points: this.points(pts) };
      if (source === "flor") lines.push(t("summary.flor", params));
      else if (source === "envido") {
        const note = envidoNotes[envidoShown];
        if (note) {
          const seat = note[2][0];
          const words = hand.showdowns[envidoShown] || [];
          envidoShown += 1;
          const mine = words.find((d) => d.seat === seat && d.tanto !== null);
          const others = words.filter((d) => d.seat % 2 !== seat % 2).map((d) =>
            d.tanto === null ? `${this.seatName(d.seat)}: ${t("showdown.buenas").toLowerCase()}` : `${this.seatName(d.seat)} ${d.tanto}`);
          const beaten = others.length ? t("summary.envido_beaten", { others: joinNames(others) }) : "";
          lines.push(t("summary.envido_won", { ...params, name: this.seatName(seat), tanto: mine ? mine.tanto : "?", beaten }));
        } else if (who.envido !== undefined) {
          lines.push(t("summary.envido_refused", { ...params, name: this.seatName(who.envido) }));
        } else if (who.mazo !== undefined) {
          lines.push(t("summary.envido_left", params));
        } else lines.push(t("summary.envido_refused_team", params));
      }
    }
    const rounds = notes.filter(([, kind]) => kind === "round");
    let from = 0;
    for (const [team, source, pts] of hand.why) {
      if (source !== "truco") continue;
      const params = { team: this.team(team), points: this.points(pts), what: t(`summary.what.${Math.min(pts, 4)}`) };
      const round = rounds.shift();
      const bazas = notes.filter(([after, kind]) => kind === "baza" && after >= from && (!round || after <= round[0]));
      const byBaza = round && bazas.length && bazas[bazas.length - 1][0] === round[0];
      if (round) from = round[0] + 1;
      if (byBaza) {
        const list = bazas.map(([, , [n, result, seat]]) =>
          result === -1 ? t("summary.baza_parda", { n: n + 1 }) : t("summary.baza_won", { n: n + 1, name: this.seatName(seat) }));
        lines.push(t("summary.truco_bazas", { ...params, bazas: list.join(", ") }));
      } else if (who.truco !== undefined) {
        lines.push(t("summary.truco_refused", { ...params, name: this.seatName(who.truco), call: t(`level.${who.trucoCall}`) }));
      } else if (who.mazo !== undefined) {
        lines.push(t("summary.truco_mazo", { ...params, name: this.seatName(who.mazo) }));
      } else lines.push(t("summary.truco_other", params));
    }
    if (before) {
      for (const team of [0, 1]) {
        const dropped = hand.points[team] - (hand.score[team] - before[team]);
        if (dropped > 0) {
          lines.push(t("summary.dropped", { points: this.points(dropped), team: this.team(team), why: t("summary.dropped_why", { target: rules.target }) }));
        }
      }
    }
    for (const team of [0, 1]) {
      if (hand.score[team] >= rules.target) {
        lines.push(this.isUs(team) ? t("summary.chico_us", { target: rules.target }) : t("summary.chico", { team: this.team(team), target: rules.target }));
      }
    }
    const scored = before ? [0, 1].map((i) => hand.score[i] - before[i]) : hand.points;
    lines.push(t("summary.total", { blue: this.points(scored[0]), red: this.points(scored[1]), blueTeam: this.team(0), redTeam: this.team(1) }));
    return lines.map(cap);
  }
}

/** Who refused the envido, who refused which truco call, who went to the mazo last. */
function refusals(actions) {
  const open = [];  // calls waiting for an answer: [kind, token]
  const found = {};
  for (const [seat, token] of actions) {
    const kind = callKind(token);
    if (kind) {
      if (open.length && open[open.length - 1][0] === kind) open[open.length - 1] = [kind, token];  // a raise
      else open.push([kind, token]);
    } else if (token === "quiero" || token === "no-quiero") {
      const [kind2, call] = open.pop() || [];
      if (token === "no-quiero" && kind2 === "envido") found.envido = seat;
      if (token === "no-quiero" && kind2 === "truco") { found.truco = seat; found.trucoCall = call; }
    } else if (token === "mazo") found.mazo = seat;
  }
  return found;
}
