// The leaderboard (/ranking?mode=1v1): the top players of a mode, with their rating
// and games; each name links to the player's profile.
import { MODES, ratingText } from "./account.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

export async function showLeaderboard({ app, api }) {
  const asked = new URLSearchParams(location.search).get("mode");
  const mode = MODES.includes(asked) ? asked : "1v1";
  const data = await api(`/api/leaderboard?mode=${mode}`);
  const tabs = el("nav", { class: "tabs", "aria-label": t("rank.modes") }, MODES.map((m) =>
    el("a", { href: `/ranking?mode=${m}`, class: m === mode ? "button" : "button secondary", "aria-current": m === mode ? "page" : null }, m)));
  const rows = data.players.map((p, i) => el("tr", { "data-player": p.name },
    el("td", {}, String(i + 1)),
    el("td", {}, el("a", { href: `/u/${encodeURIComponent(p.name)}` }, p.name)),
    el("td", { class: "num", title: p.provisional ? t("rank.provisional") : null }, ratingText(p)),
    el("td", { class: "num" }, String(p.games))));
  app.replaceChildren(el("section", { class: "panel ranking", id: "leaderboard", "data-mode": mode },
    el("h1", {}, t("rank.title")), tabs,
    rows.length
      ? el("table", { class: "board-table" },
        el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("rank.player")), el("th", { class: "num" }, t("rank.rating")), el("th", { class: "num" }, t("rank.games")))),
        el("tbody", {}, rows))
      : el("p", { class: "muted" }, t("rank.empty")),
    el("p", { class: "muted small" }, t("rank.provisional_note")),
    el("a", { href: "/", class: "button secondary" }, t("back_home"))));
}
