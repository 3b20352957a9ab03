// Post-game analysis in the replay viewer: the chance of winning over the match (an SVG
// graph with axes and a legend), each player's accuracy, and the graded decisions in
// words, each a button that jumps to the step where its move is made. The server
// analyses on request (POST) in a background worker; we poll its state.
import { moveWords } from "./board.js";
import { el } from "./dom.js";
import { lang, t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const GRADES = ["inaccuracy", "mistake", "blunder"];

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

async function call(path, method = "GET") {
  const res = await fetch(path, { method });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const key = `refusal.${data.code}`;
    const worded = data.code ? t(key, data.params || {}) : key;
    const error = new Error(worded === key ? t("analysis.failed") : worded);
    error.status = res.status;
    throw error;
  }
  return data;
}

const number = (x, digits) => x.toLocaleString(lang === "es" ? "es-AR" : "en", { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** A graded decision in words: "Ana jugó el 12 de bastos — error: …; mejor: cantar vale cuatro". */
export function markText(d, story) {
  return t("analysis.mark", {
    did: moveWords(d.chosen, story, d.seat).past,
    grade: t(`analysis.grade.${d.grade}`),
    points: number(d.points, 1),
    chance: number(d.chance * 100, 0),
    best: moveWords(d.best, story).todo,
  });
}

// The graph: the blue team's chance of winning the match at each decision (as the
// deciding seat saw it, with the top bot's move), 0-100 % on the y axis, the decisions
// in order on the x axis with the hands marked; a dot per graded decision.
export function evaluationGraph(analysis, story, jump) {
  const points = analysis.graph;
  const width = 600, height = 220, left = 64, right = 12, top = 12, bottom = 36;
  const x = (k) => left + (points.length < 2 ? 0 : (k * (width - left - right)) / (points.length - 1));
  const y = (p) => top + (1 - p) * (height - top - bottom);
  const path = points.map((p, k) => `${k ? "L" : "M"}${x(k).toFixed(1)},${y(p.win).toFixed(1)}`).join(" ");
  const team = story.teamTitle(0);
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "eval-graph", role: "img",
    "aria-label": t("analysis.graph_label", { team }) });
  for (const p of [0, 0.5, 1]) {
    graph.append(svg("line", { x1: left, x2: width - right, y1: y(p), y2: y(p), class: p === 0.5 ? "eval-axis mid" : "eval-grid" }),
      svg("text", { x: left - 6, y: y(p) + 4, class: "eval-tick", "text-anchor": "end" }, `${p * 100} %`));
  }
  graph.append(svg("line", { x1: left, x2: left, y1: top, y2: height - bottom, class: "eval-axis" }),
    svg("line", { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "eval-axis" }));
  let lastHand = -1, lastX = -Infinity;
  points.forEach((p, k) => {
    if (p.hand === lastHand) return;
    lastHand = p.hand;
    if (x(k) - lastX < 16) return;  // hands too close to label apart
    lastX = x(k);
    graph.append(svg("text", { x: x(k), y: height - bottom + 14, class: "eval-tick", "text-anchor": "middle" }, String(p.hand + 1)));
  });
  graph.append(svg("text", { x: (left + width - right) / 2, y: height - 4, class: "eval-title", "text-anchor": "middle" }, t("analysis.axis_x")),
    svg("text", { x: 14, y: (top + height - bottom) / 2, class: "eval-title", "text-anchor": "middle",
      transform: `rotate(-90 14 ${(top + height - bottom) / 2})` }, t("analysis.axis_y", { team })),
    svg("path", { d: path, class: "eval-line" }));
  const byStep = new Map(analysis.decisions.map((d) => [`${d.hand}:${d.step}`, d]));
  points.forEach((p, k) => {
    const d = byStep.get(`${p.hand}:${p.step}`);
    if (!d || !d.grade) return;
    const dot = svg("circle", { cx: x(k), cy: y(p.win), r: 6, class: `eval-mark ${d.grade}`, "data-step": d.replay_step, tabindex: 0 },
      svg("title", {}, markText(d, story)));
    dot.addEventListener("click", () => jump(d.replay_step));
    dot.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); jump(d.replay_step); } });
    graph.append(dot);
  });
  return graph;
}

function legend(story) {
  return el("ul", { class: "eval-legend" },
    el("li", {}, el("span", { class: "swatch line", "aria-hidden": "true" }), t("analysis.legend_line", { team: story.teamTitle(0) })),
    GRADES.map((g) => el("li", {}, el("span", { class: `swatch dot ${g}`, "aria-hidden": "true" }), t(`analysis.legend.${g}`))));
}

function summary(analysis, story, jump) {
  const players = el("table", { class: "eval-players" },
    el("tr", {}, el("th", {}, t("analysis.player")), el("th", {}, t("analysis.accuracy")),
      GRADES.map((g) => el("th", {}, t(`analysis.count.${g}`)))),
    analysis.players.map((p) => el("tr", {},
      el("td", {}, story.seatName(p.seat)), el("td", {}, `${number(p.accuracy, 1)} %`),
      el("td", {}, String(p.inaccuracies)), el("td", {}, String(p.mistakes)), el("td", {}, String(p.blunders)))));
  const graded = analysis.decisions.filter((d) => d.grade);
  const marks = graded.map((d) => el("li", {},
    el("button", { class: `eval-jump ${d.grade}`, "data-step": d.replay_step, onclick: () => jump(d.replay_step) },
      `${t("analysis.hand", { n: d.hand + 1 })}: ${markText(d, story)}`)));
  // a region that may scroll sideways on a phone: reachable and named for the keyboard
  const wrap = el("div", { class: "eval-players-wrap", role: "region", tabindex: 0, "aria-label": t("analysis.players_label") }, players);
  return [wrap, graded.length ? el("ol", { class: "eval-marks" }, marks) : el("p", { class: "muted" }, t("analysis.no_marks")),
    el("p", { class: "muted eval-how" }, t("analysis.how"))];
}

/** The panel under the replay: a button that asks for the analysis, then all of it;
 * ``onDone(analysis)`` lets the viewer mark its steps, ``jump(step)`` moves it,
 * ``session()`` gets the page a session when the server wants one to ask. */
export function analysisPanel(matchId, story, onDone, jump, session = null) {
  const panel = el("section", { class: "analysis panel", "aria-label": t("analysis.title") });
  const url = `/api/matches/${encodeURIComponent(matchId)}/analysis`;
  const show = (analysis) => {
    panel.replaceChildren(el("h2", {}, t("analysis.title")), evaluationGraph(analysis, story, jump), legend(story),
      ...summary(analysis, story, jump));
    onDone(analysis);
  };
  const poll = async () => {
    try {
      const state = await call(url);
      if (state.status === "done") return show(state.analysis);
      if (state.status === "failed") throw new Error(t("analysis.failed"));
      panel.replaceChildren(el("p", { class: "step", role: "status" }, t("analysis.working")));
      setTimeout(poll, 1500);
    } catch (e) { panel.replaceChildren(el("p", { class: "error", role: "alert" }, e.message)); }
  };
  const start = async () => {
    try {
      const state = await call(url, "POST").catch(async (e) => {
        if (e.status !== 401 || !session) throw e;
        await session();  // asking needs a session: a guest's will do
        return call(url, "POST");
      });
      if (state.status === "done") show(state.analysis); else poll();
    } catch (e) { panel.replaceChildren(el("p", { class: "error", role: "alert" }, e.message), button); }
  };
  const button = el("button", { id: "analyze", onclick: start }, t("analysis.request"));
  panel.replaceChildren(button);
  if (new URLSearchParams(location.search).has("analyze")) start();  // the match's end links here
  else call(url).then((state) => { if (state.status === "done") show(state.analysis); }).catch(() => {});
  return panel;
}
