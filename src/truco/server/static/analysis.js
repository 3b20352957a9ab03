// Post-game analysis in the replay viewer: an evaluation graph (SVG) over the match,
// the graded decisions highlighted with the better move named, click to jump.
// The server analyses on request (POST) in a background worker; we poll its state.

const GRADE_TEXT = { inaccuracy: "imprecisión", mistake: "error", blunder: "error grave" };
const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

function html(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const child of children.flat()) if (child != null) node.append(child);
  return node;
}

async function call(path, method = "GET") {
  const res = await fetch(path, { method });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  return data;
}

// The graph: team 1's expected margin of points at each decision (above the line:
// team 1 ahead), a dot per graded decision; clicking a dot jumps the viewer there.
export function evaluationGraph(analysis, jump) {
  const points = analysis.graph;
  const width = 600, height = 160, pad = 8;
  const most = Math.max(1, ...points.map((p) => Math.abs(p.margin)));
  const x = (i) => pad + (points.length < 2 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (m) => height / 2 - (m / most) * (height / 2 - pad);
  const path = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.margin).toFixed(1)}`).join(" ");
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "eval-graph", role: "img",
    "aria-label": "Evaluación de la partida" },
    svg("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, class: "eval-axis" }),
    svg("path", { d: path, class: "eval-line" }));
  const byStep = new Map(analysis.decisions.map((d) => [`${d.hand}:${d.step}`, d]));
  points.forEach((p, i) => {
    const d = byStep.get(`${p.hand}:${p.step}`);
    if (!d || !d.grade) return;
    const dot = svg("circle", { cx: x(i), cy: y(p.margin), r: 5, class: `eval-mark ${d.grade}`,
      "data-step": d.replay_step, tabindex: 0 },
      svg("title", {}, `${GRADE_TEXT[d.grade]}: ${d.chosen} (mejor: ${d.best})`));
    dot.addEventListener("click", () => jump(d.replay_step));
    graph.append(dot);
  });
  return graph;
}

function summary(analysis, seats, jump) {
  const players = html("table", { class: "eval-players" },
    html("tr", {}, html("th", {}, "Jugador"), html("th", {}, "Precisión"),
      html("th", {}, "Imprecisiones"), html("th", {}, "Errores"), html("th", {}, "Graves")),
    analysis.players.map((p) => html("tr", {},
      html("td", {}, seats[p.seat] || `asiento ${p.seat + 1}`), html("td", {}, `${p.accuracy}%`),
      html("td", {}, String(p.inaccuracies)), html("td", {}, String(p.mistakes)),
      html("td", {}, String(p.blunders)))));
  const marks = analysis.decisions.filter((d) => d.grade).map((d) =>
    html("li", {},
      html("button", { class: `eval-jump ${d.grade}`, "data-step": d.replay_step, onclick: () => jump(d.replay_step) },
        `Mano ${d.hand + 1}: ${seats[d.seat] || `asiento ${d.seat + 1}`} jugó ${d.chosen} — ${GRADE_TEXT[d.grade]}; mejor: ${d.best}`)));
  return [players, html("ol", { class: "eval-marks" }, marks)];
}

// The panel under the replay: a button that asks for the analysis, then the graph.
// Asking needs a session (a guest's will do): `ensureSession` makes one if there is none.
export function analysisPanel(matchId, seats, jump, ensureSession = async () => {}) {
  const panel = html("section", { class: "analysis panel" });
  const url = `/api/matches/${matchId}/analysis`;
  const show = (analysis) => panel.replaceChildren(html("h2", {}, "Análisis"),
    evaluationGraph(analysis, jump), ...summary(analysis, seats, jump));
  const poll = async () => {
    try {
      const state = await call(url);
      if (state.status === "done") return show(state.analysis);
      if (state.status === "failed") throw new Error("no se pudo analizar la partida");
      panel.replaceChildren(html("p", { class: "step" }, "Analizando la partida…"));
      setTimeout(poll, 1500);
    } catch (e) { panel.replaceChildren(html("p", { class: "error" }, e.message)); }
  };
  const start = async () => {
    try {
      await ensureSession();
      const state = await call(url, "POST");
      if (state.status === "done") show(state.analysis); else poll();
    } catch (e) { panel.replaceChildren(html("p", { class: "error" }, e.message), button); }
  };
  const button = html("button", { id: "analyze", onclick: start }, "Analizar la partida");
  panel.replaceChildren(button);
  if (new URLSearchParams(location.search).has("analyze")) start();  // the match's end links here
  else call(url).then((state) => { if (state.status === "done") show(state.analysis); }).catch(() => {});
  return panel;
}
