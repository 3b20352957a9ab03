// The moderators' page (/moderacion, /moderation): players' reports with the match's replay
// one click away, the integrity signals of rated play (for a person to judge: not sanctions)
// and the audit log. Every action asks for a reason, kept in the log with who did it.
// The server answers /api/mod/* to moderators only; anyone else sees why not.
import { refusalText } from "./account.js";
import { $, el } from "./dom.js";
import { lang, loadLanguage, preferredLanguage, t } from "./i18n.js";

async function api(path, body) {
  const options = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, options);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(data.detail || res.statusText), { status: res.status, code: data.code, params: data.params || {} });
  return data;
}

const moment = (seconds) => new Date(seconds * 1000).toLocaleString(lang === "es" ? "es-AR" : "en", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

function refused(app) {
  app.replaceChildren(el("h1", {}, t("mod.title")),
    el("p", { class: "error", role: "alert", id: "mod-refused" }, t("refusal.moderators_only")),
    el("a", { href: "/", class: "button" }, t("back_home")));
}

async function main() {
  await loadLanguage(preferredLanguage());
  document.title = `${t("mod.title")} · Truco Argento`;
  const app = $("#app");
  const me = await api("/api/me").catch(() => null);
  if (!me || !["moderator", "admin"].includes(me.role)) { refused(app); return; }

  const reason = el("input", { id: "mod-reason", name: "reason", maxlength: 500, autocomplete: "off" });
  const status = el("p", { id: "mod-status", role: "status" });
  const reports = el("section", { class: "panel", id: "reports", "aria-labelledby": "reports-title" });
  const signals = el("section", { class: "panel", id: "signals", "aria-labelledby": "signals-title" });
  const audit = el("section", { class: "panel", id: "audit", "aria-labelledby": "audit-title" });

  async function act(path, body, done) {
    try {
      await api(path, { ...body, reason: reason.value });
      status.className = "ok";
      status.textContent = done;
      await draw();
    } catch (e) { status.className = "error"; status.textContent = refusalText(e); }
  }

  function reportRow(r) {
    const replay = r.replay_url ? el("a", { href: r.replay_url, class: "button secondary small", "data-replay": r.match_id }, t("mod.replay")) : "";
    return el("tr", { "data-report": r.id },
      el("td", {}, moment(r.at)),
      el("td", {}, el("a", { href: `/u/${encodeURIComponent(r.player)}` }, r.player), r.banned ? ` (${t("mod.banned")})` : "",
        el("br"), el("span", { class: "muted" }, t("mod.count", { n: r.reports_of_player }))),
      el("td", {}, t(`report.reason.${r.reason}`), el("br"), el("span", { class: "muted" }, t(`report.context.${r.context}`))),
      el("td", {}, r.reporter),
      el("td", {}, r.comment),
      el("td", {}, replay, " ",
        el("button", { class: "small", onclick: () => act(`/api/mod/reports/${r.id}/close`, {}, t("mod.closed")) }, t("mod.close")), " ",
        r.account && !r.banned ? el("button", { class: "small danger", onclick: () => act(`/api/mod/players/${encodeURIComponent(r.player)}/ban`, {}, t("mod.banned_now", { name: r.player })) }, t("mod.ban")) : ""));
  }

  async function draw() {
    const [open, found, log] = await Promise.all([api("/api/mod/reports"), api("/api/mod/signals"), api("/api/mod/audit?limit=50")]);
    const head = el("tr", {}, ["mod.when", "mod.player", "mod.why", "mod.reporter", "mod.comment", "mod.actions"].map((k) => el("th", { scope: "col" }, t(k))));
    reports.replaceChildren(el("h2", { id: "reports-title" }, t("mod.reports")),
      open.reports.length
        ? el("table", { class: "listing-table" }, el("thead", {}, head), el("tbody", {}, open.reports.map(reportRow)))
        : el("p", { class: "muted" }, t("mod.no_reports")));
    signals.replaceChildren(el("h2", { id: "signals-title" }, t("mod.signals")),
      el("p", { class: "muted" }, t("mod.signals_why")),
      found.signals.length
        ? el("ul", {}, found.signals.map((s) => el("li", { "data-signal": s.kind },
          el("strong", {}, t(`mod.signal.${s.kind}`)), `: ${s.players.join(" ")} · ${s.count} (${Math.round(s.share * 100)} %) `,
          s.matches.map((m) => el("a", { href: m.replay_url, class: "small" }, m.id)).flatMap((a) => [a, " "]))))
        : el("p", { class: "muted" }, t("mod.no_signals")));
    audit.replaceChildren(el("h2", { id: "audit-title" }, t("mod.audit")),
      el("ul", {}, log.entries.map((e) => el("li", { "data-action": e.action },
        `${moment(e.at)} · ${e.actor}: ${e.action} ${e.target} — ${e.reason}`))));
  }

  app.replaceChildren(el("div", { class: "moderation", id: "moderation" },
    el("h1", {}, t("mod.title")),
    el("p", {}, el("label", { for: "mod-reason" }, t("mod.reason")), " ", reason),
    status, reports, signals, audit));
  await draw();
}

main();
