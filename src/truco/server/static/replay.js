// The replay of a finished match, step by step.
import { analysisPanel } from "./analysis.js";
import { cardImg, el } from "./dom.js";
import { t } from "./i18n.js";
import { Story } from "./story.js";

export async function showReplay(id, { app, identity }) {
  const res = await fetch(`/api/matches/${encodeURIComponent(id)}/replay`);
  if (res.status === 404) throw new Error(t("replay.not_found", { id }));
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  const seats = data.record.headers?.seats || [];
  const story = new Story({ seats: seats.map((name) => ({ kind: "human", name })), rules: data.record.rules || {} }, null);
  const seatName = (s) => seats[s] || t("seat.numbered", { n: s + 1 });
  let i = 0;
  const screen = el("div", { class: "replay" });
  const draw = () => {
    const step = data.steps[i];
    const header = el("div", { class: "table-head" }, el("h1", {}, data.record.headers?.event || t("replay.match")),
      el("div", { class: "score" }, `${story.teamTitle(0)}: ${step.score[0]} · ${story.teamTitle(1)}: ${step.score[1]}`));
    const what = step.action === null ? t("replay.deal", { n: step.hand + 1 }) : `${seatName(step.seat)}: ${story.actionText(step.action)}`;
    const rows = step.cards.map((cards, s) => el("div", { class: `replay-seat team-${s % 2}` },
      el("strong", {}, seatName(s)), step.mano === s ? el("span", { class: "badge" }, t("seat.mano")) : null,
      el("span", { class: "cards" }, cards.map((c) => cardImg(c, "card tiny")))));
    const bazas = el("div", { class: "replay-bazas" }, step.bazas.map((b, k) => el("div", {}, `${t("replay.baza", { n: k + 1 })} `,
      b.map(([s, c]) => el("span", { title: seatName(s) }, cardImg(c, "card tiny"))))));
    const closed = step.closed ? el("p", {}, `${t("replay.closed")} `, story.whyLine(step.closed.why)) : null;
    screen.replaceChildren(header, el("p", { class: "step" }, `${i + 1}/${data.steps.length} · ${what}`),
      el("div", { class: "controls" },
        el("button", { onclick: () => { i = 0; draw(); } }, t("replay.first")),
        el("button", { onclick: () => { i = Math.max(0, i - 1); draw(); } }, t("replay.prev")),
        el("button", { id: "next", onclick: () => { i = Math.min(data.steps.length - 1, i + 1); draw(); } }, t("replay.next")),
        el("button", { onclick: () => { i = data.steps.length - 1; draw(); } }, t("replay.last"))),
      ...rows, bazas, closed ?? "", el("a", { href: "/", class: "button" }, t("replay.back")));
  };
  app.replaceChildren(screen, analysisPanel(id, seats, (step) => { i = step; draw(); }, () => identity.ensure()));
  draw();
}
