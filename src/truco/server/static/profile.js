// A player's profile (/u/{name}): their rating over time drawn as an SVG chart (one
// line per mode), their record per mode, and their finished matches linked to the
// replay viewer (where the post-game analysis is too). On one's own profile: the open
// sessions (each can be ended, or all at once) and the password change.
import { MODES, ratingText, refusalText } from "./account.js";
import { el } from "./dom.js";
import { profileTogether } from "./friends.js";
import { lang, t } from "./i18n.js";
import { reportPanel } from "./report.js";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = { "1v1": "#2c5aa0", "2v2": "#b03a2e", "3v3": "#1f5f3a" };

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

/** Milliseconds of a stored time: ISO text or seconds since 1970. */
export function when(at) {
  if (typeof at === "number") return at < 1e12 ? at * 1000 : at;
  return Date.parse(at);
}

const day = (ms) => new Date(ms).toLocaleDateString(lang === "es" ? "es-AR" : "en", { day: "numeric", month: "short" });

/** Every account starts each mode at this shown rating (the server's 1500 + 48 × (μ − 3σ)). */
export const START = 1500;

/** The chart's geometry: each series' points scaled into ``w`` x ``h`` inside ``pad``.
 * x is the order of the rated matches of every mode (one step each, the oldest left),
 * after a first point at the starting rating, so that one match already draws a line. */
export function chartGeometry(series, w, h, pad) {
  const times = [...new Set(Object.values(series).flat().map((p) => when(p.at)))].sort((a, b) => a - b);
  const ratings = [START, ...Object.values(series).flat().map((p) => p.rating)];
  let [lo, hi] = [Math.min(...ratings), Math.max(...ratings)];
  if (hi - lo < 20) { lo -= 10; hi += 10; }
  const x = (step) => pad + (w - 2 * pad) * (step / times.length);
  const y = (r) => pad + (h - 2 * pad) * (1 - (r - lo) / (hi - lo));
  const lines = {};
  for (const [mode, points] of Object.entries(series)) {
    lines[mode] = [{ x: x(0), y: y(START), rating: START, at: null },
      ...points.map((p) => ({ x: x(times.indexOf(when(p.at)) + 1), y: y(p.rating), rating: p.rating, at: p.at }))];
  }
  return { lo, hi, t0: times[0], t1: times[times.length - 1], lines, y };
}

export function ratingChart(history) {
  const series = Object.fromEntries(MODES.filter((m) => history?.[m]?.length).map((m) => [m, history[m]]));
  if (!Object.keys(series).length) return el("p", { class: "muted", id: "no-chart" }, t("prof.no_history"));
  const [w, h, pad] = [640, 240, 36];
  const g = chartGeometry(series, w, h, pad);
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "rating-chart", id: "rating-chart", role: "img", "aria-label": t("prof.chart") });
  for (const r of [g.lo, (g.lo + g.hi) / 2, g.hi]) {
    chart.append(svg("line", { x1: pad, x2: w - pad, y1: g.y(r), y2: g.y(r), class: "grid" }),
      svg("text", { x: pad - 4, y: g.y(r) + 4, "text-anchor": "end", class: "axis" }, Math.round(r)));
  }
  chart.append(svg("text", { x: pad, y: h - 8, class: "axis" }, t("prof.start")),
    svg("text", { x: w - pad, y: h - 8, "text-anchor": "end", class: "axis" }, day(g.t1)));
  for (const [mode, points] of Object.entries(g.lines)) {
    chart.append(svg("polyline", { points: points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" "), fill: "none", stroke: COLOURS[mode], "stroke-width": 2.5, "data-mode": mode }));
    for (const p of points.slice(1)) { // a dot per rated match (the start has none)
      chart.append(svg("circle", { cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: 3.5, fill: COLOURS[mode], "data-mode": mode },
        svg("title", {}, `${mode}: ${Math.round(p.rating)} · ${day(when(p.at))}`)));
    }
  }
  const legend = el("p", { class: "legend" }, Object.keys(g.lines).map((mode) =>
    el("span", { class: "legend-item" }, el("span", { class: "swatch", style: `background:${COLOURS[mode]}` }), mode)));
  return el("figure", { class: "chart" }, chart, legend);
}

const moment = (seconds) => new Date(seconds * 1000).toLocaleString(lang === "es" ? "es-AR" : "en", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });

/** The account's open sessions, each with a button that ends it, and "log out everywhere". */
async function sessionsPanel({ api, identity, go }) {
  const panel = el("section", { class: "panel", id: "sessions" }, el("h2", {}, t("acct.sessions")),
    el("p", { class: "muted" }, t("acct.sessions_why")));
  const error = el("p", { class: "error", role: "alert" });
  const list = el("div", { id: "session-list" });
  const ended = async () => { await identity.refresh(); go("/"); };
  const draw = async () => {
    const { sessions } = await api("/api/sessions");
    list.replaceChildren(...sessions.map((s) => {
      const end = el("button", { type: "button", class: "secondary small", "data-end": s.id }, t("acct.session_end"));
      end.addEventListener("click", async () => {
        try { await api(`/api/sessions/${encodeURIComponent(s.id)}`, { method: "DELETE" }); } catch (e) { error.textContent = refusalText(e); }
        if (s.current) await ended(); else await draw();
      });
      return el("div", { class: "listing", "data-session": s.id, "data-current": String(s.current) },
        el("span", {}, el("strong", {}, s.agent ? s.agent.slice(0, 60) : t("acct.unknown_agent")),
          s.current ? ` (${t("acct.session_current")})` : "", " · ",
          t("acct.session_seen", { when: moment(s.last_seen), address: s.address || "?" })),
        end);
    }));
  };
  const everywhere = el("button", { type: "button", id: "logout-everywhere", class: "secondary" }, t("acct.logout_all"));
  everywhere.addEventListener("click", async () => {
    try { await api("/api/sessions/revoke-all", { method: "POST" }); } catch (e) { error.textContent = refusalText(e); return; }
    await ended();
  });
  await draw();
  panel.append(list, everywhere, error);
  return panel;
}

/** Change the password (the current one first); the other sessions end. */
function passwordPanel({ api }) {
  const note = el("p", { role: "status", id: "password-note" });
  const form = el("form", { id: "password-form", class: "account-form" },
    el("label", {}, `${t("acct.old_password")} `, el("input", { name: "old", type: "password", required: true, autocomplete: "current-password" })),
    el("label", {}, `${t("acct.new_password")} `, el("input", { name: "new", type: "password", required: true, autocomplete: "new-password" })),
    el("button", { type: "submit", class: "secondary" }, t("acct.password_change")), note);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    note.className = "";
    try {
      const done = await api("/api/me/password", { method: "POST", body: JSON.stringify({ old: String(f.get("old")), new: String(f.get("new")) }) });
      note.textContent = t("acct.password_changed", { n: done.sessions_ended });
      form.reset();
    } catch (e) { note.className = "error"; note.textContent = refusalText(e); }
  });
  return el("section", { class: "panel", id: "password" }, el("h2", {}, t("acct.password_change")), form);
}

export async function showProfile(name, ctx) {
  const { app, api, identity } = ctx;
  let p;
  try { p = await api(`/api/players/${encodeURIComponent(name)}`); } catch (e) { throw new Error(refusalText(e)); }
  const me = identity?.player;
  const own = Boolean(me?.account && me.id && me.name.toLocaleLowerCase() === p.name.toLocaleLowerCase());
  const modes = el("div", { class: "mode-cards" }, MODES.map((mode) => {
    const record = p.record?.[mode] || { won: 0, lost: 0 };
    const rating = p.ratings?.[mode];
    return el("div", { class: "panel mode-card", "data-mode": mode },
      el("h3", {}, mode),
      el("p", { class: "big", "data-rating": rating?.rating ?? "" }, ratingText(rating)),
      el("p", { class: "muted" }, t("prof.record", { won: record.won, lost: record.lost }),
        rating?.provisional ? ` · ${t("rank.provisional")}` : ""));
  }));
  const matches = el("section", { class: "panel", id: "matches" }, el("h2", {}, t("prof.matches")));
  if (!p.matches?.length) matches.append(el("p", { class: "muted" }, t("prof.no_matches")));
  for (const m of p.matches || []) {
    const result = t(`prof.result.${["won", "lost"].includes(m.result) ? m.result : "other"}`);
    matches.append(el("div", { class: "listing", "data-match": m.id },
      el("span", {}, `${day(when(m.finished_at))} · ${m.mode} · ${m.rated ? t("qm.rated") : t("qm.casual")} · `, el("strong", {}, result)),
      el("a", { href: m.replay_url || `/replay/${m.id}`, class: "button secondary small" }, t("prof.replay"))));
  }
  app.replaceChildren(el("div", { class: "profile", id: "profile", "data-player": p.name },
    el("h1", {}, p.name), modes,
    el("section", { class: "panel" }, el("h2", {}, t("prof.over_time")), ratingChart(p.history)),
    matches, await profileTogether(p.name, ctx, own),
    ...(own ? [await sessionsPanel(ctx), passwordPanel(ctx)] : [reportPanel({ context: "profile", name: p.name }, identity ? () => identity.ensure() : null)]),
    el("p", {}, el("a", { href: "/ranking", class: "button secondary" }, t("rank.title")), " ",
      el("a", { href: "/", class: "button secondary" }, t("back_home")))));
}
