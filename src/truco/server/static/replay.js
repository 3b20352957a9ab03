// The replay of a finished match: the table drawn as in play at each step, the move
// list, ← → Home End to step, and the post-game analysis whose marks jump to their move.
import { analysisPanel, markText } from "./analysis.js";
import { moveWords, replayBoard } from "./board.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { reportPanel } from "./report.js";
import { Story } from "./story.js";

const KEYS = { ArrowLeft: (i) => i - 1, ArrowRight: (i) => i + 1, Home: () => 0, End: (i, n) => n - 1 };

export async function showReplay(id, { app, identity }) {
  const res = await fetch(`/api/matches/${encodeURIComponent(id)}/replay`);
  if (res.status === 404) throw new Error(t("replay.not_found", { id }));
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  const seats = data.record.headers?.seats || [];
  const rules = data.record.rules || {};
  const n = rules.players || seats.length || 2;
  // who sat where as at the table (a bot by its name and level); a record's names otherwise
  const seated = data.seats?.length === seats.length ? data.seats : seats.map((name) => ({ kind: "human", name }));
  const story = new Story({ seats: seated, rules }, null);
  const steps = data.steps;
  let i = 0;
  let decisions = new Map();  // replay step -> graded decision (once the analysis is in)

  const caption = (step) => (step.action === null
    ? t("replay.deal", { n: step.hand + 1 })
    : moveWords(step.action, story, step.seat).past);
  const screen = el("div", { class: "replay" });
  const stepLine = el("p", { class: "step", "aria-live": "polite" });
  const boardSlot = el("div", { class: "replay-board-slot" });
  const note = el("div", { class: "replay-note", id: "replay-note" });
  const score = el("div", { class: "score" });
  const moves = el("ol", { class: "move-list", "aria-label": t("replay.moves") });
  const go = (k) => { i = Math.max(0, Math.min(steps.length - 1, k)); draw(); };

  steps.forEach((step, k) => {
    const item = el("li", { class: step.action === null ? "deal" : "" },
      el("button", { class: "move", "data-step": k, onclick: () => go(k) }, caption(step)));
    moves.append(item);
  });

  function draw() {
    const step = steps[i];
    const decision = decisions.get(i);
    score.textContent = `${story.teamTitle(0)}: ${step.score[0]} · ${story.teamTitle(1)}: ${step.score[1]}`;
    stepLine.textContent = `${i + 1}/${steps.length} · ${caption(step)}`;
    const better = decision && decision.best !== decision.chosen ? { seat: decision.seat, token: decision.best } : null;
    boardSlot.replaceChildren(replayBoard(step, story, n, better, caption(step)));
    note.replaceChildren(...(decision ? [decisionNote(decision)] : []));
    moves.querySelectorAll("button.move").forEach((b) => {
      const here = Number(b.dataset.step) === i;
      b.classList.toggle("current", here);
      if (here) b.setAttribute("aria-current", "step"); else b.removeAttribute("aria-current");
    });
    moves.querySelector("button.current")?.scrollIntoView?.({ block: "nearest" });
  }

  const decisionNote = (d) => el("p", { class: `replay-mark ${d.grade}` }, markText(d, story));

  const onKey = (ev) => {
    if (!screen.isConnected) { window.removeEventListener("keydown", onKey); return; }
    if (ev.altKey || ev.ctrlKey || ev.metaKey || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target?.tagName)) return;
    const move = KEYS[ev.key];
    if (!move) return;
    ev.preventDefault();
    go(move(i, steps.length));
  };
  window.addEventListener("keydown", onKey);

  const controls = el("div", { class: "controls" },
    el("button", { onclick: () => go(0), "aria-keyshortcuts": "Home" }, t("replay.first")),
    el("button", { onclick: () => go(i - 1), "aria-keyshortcuts": "ArrowLeft" }, t("replay.prev")),
    el("button", { id: "next", onclick: () => go(i + 1), "aria-keyshortcuts": "ArrowRight" }, t("replay.next")),
    el("button", { onclick: () => go(steps.length - 1), "aria-keyshortcuts": "End" }, t("replay.last")));
  const head = el("div", { class: "table-head" }, el("h1", {}, data.record.headers?.event || t("replay.match")), score);
  screen.replaceChildren(head, stepLine, controls, boardSlot, note,
    el("p", { class: "muted keys-help" }, t("replay.keys_help")),
    el("details", { class: "panel moves", open: true }, el("summary", {}, t("replay.moves")), moves),
    el("a", { href: "/", class: "button" }, t("replay.back")));
  const panel = analysisPanel(id, story, (analysis) => {
    decisions = new Map(analysis.decisions.filter((d) => d.grade).map((d) => [d.replay_step, d]));
    for (const [k, d] of decisions) moves.querySelector(`button.move[data-step="${k}"]`)?.classList.add("marked", d.grade);
    draw();
  }, go, identity ? () => identity.ensure() : null);
  const report = reportPanel({ context: "replay", match_id: id, seats: seats.map((name, seat) => [seat, name]) },
    identity ? () => identity.ensure() : null);
  app.replaceChildren(screen, panel, report);
  draw();
}
