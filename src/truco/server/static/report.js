// "Report this player" (issue 31): a reason and a comment sent to POST /api/reports from a
// replay (the seat picked) or a profile (the name), by the session the page has (a guest's
// is made first if there is none); the server finds whom it is about
// from the match's seats or the account, never from an id the page sends.
import { refusalText } from "./account.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

export const REASONS = ["abuse", "cheating", "farming", "name", "other"];

async function send(body) {
  const res = await fetch("/api/reports", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.detail || res.statusText), { status: res.status, code: data.code, params: data.params || {} });
  return data;
}

/** The report panel. ``target``: ``{context: "profile", name}`` or ``{context: "replay" |
 * "table", match_id, seats: [[seat, name], ...]}``; ``ensure()`` gets a session first. */
export function reportPanel(target, ensure) {
  const note = el("p", { role: "status", id: "report-note" });
  const who = target.seats
    ? el("label", {}, t("report.who"), " ", el("select", { name: "seat", id: "report-seat" },
      target.seats.map(([seat, name]) => el("option", { value: seat }, name))))
    : null;
  const form = el("form", { class: "report-form", id: "report-form" },
    who,
    el("label", {}, t("report.reason"), " ", el("select", { name: "reason", id: "report-reason" },
      REASONS.map((r) => el("option", { value: r }, t(`report.reason.${r}`))))),
    el("label", {}, t("report.comment"), " ", el("textarea", { name: "comment", id: "report-comment", maxlength: 500, rows: 2 })),
    el("button", { type: "submit", id: "report-send" }, t("report.send")),
    note);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    const body = { context: target.context, reason: data.get("reason"), comment: data.get("comment") || "" };
    if (target.seats) Object.assign(body, { match_id: target.match_id, seat: Number(data.get("seat")) });
    else body.name = target.name;
    try {
      let made;
      try { made = await send(body); } catch (e) {
        if (e.status !== 401 || !ensure) throw e;
        await ensure(); // no session yet: a guest's, then again
        made = await send(body);
      }
      note.className = "ok";
      note.textContent = t("report.sent", { name: made.player });
      form.reset();
    } catch (e) { note.className = "error"; note.textContent = refusalText(e); }
  });
  return el("details", { class: "panel report", id: "report" }, el("summary", {}, t("report.title")), form);
}

/** The report panel beside a live table (``id``): its seats are read when it is opened
 * (people sit and leave), the people's only. */
export function tableReportPanel(id, ensure) {
  const panel = reportPanel({ context: "table", match_id: id, seats: [] }, ensure);
  panel.addEventListener("toggle", async () => {
    if (!panel.open) return;
    const res = await fetch(`/api/tables/${encodeURIComponent(id)}`);
    if (!res.ok) return;
    const table = await res.json();
    const people = (table.seats || []).map((seat, i) => [i, seat]).filter(([, seat]) => seat.kind === "human");
    panel.querySelector("#report-seat").replaceChildren(...people.map(([i, seat]) => el("option", { value: i }, seat.name)));
  });
  return panel;
}
