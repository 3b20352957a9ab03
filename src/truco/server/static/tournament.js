// Tournaments: the list (/torneos) with the form to organise one, and a tournament's
// page (/torneos/{id}): its standings, every game (spectate it live, or its replay once
// over), and the buttons to enter, withdraw or start it. The page asks the server again
// when the notice stream says the tournament changed (the director pairs on any node and
// tells every node), or every two seconds without a stream.
import { refusalText } from "./account.js";
import { noticeStream, rulesText, SLOW_MS } from "./challenges.js";
import { el } from "./dom.js";
import { lang, t } from "./i18n.js";

export const POLL_MS = 2000;

const clock = (seconds) => new Date(seconds * 1000).toLocaleString(lang === "es" ? "es-AR" : "en", { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
const points = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

function formatText(tour) {
  return tour.format === "swiss" ? t("tour.swiss_rounds", { n: tour.rounds }) : t("tour.arena_minutes", { n: tour.minutes });
}

function organiseForm({ api, go }) {
  const error = el("p", { class: "error", role: "alert" });
  const form = el("form", { id: "tournament-form", class: "account-form" },
    el("label", {}, `${t("tour.name")} `, el("input", { name: "name", maxlength: 80, required: true })),
    el("label", {}, `${t("tour.format")} `, el("select", { name: "format" },
      el("option", { value: "swiss" }, t("tour.swiss")), el("option", { value: "arena" }, t("tour.arena")))),
    el("label", {}, `${t("tour.rounds")} `, el("input", { name: "rounds", type: "number", min: 1, max: 15, value: 5 })),
    el("label", {}, `${t("tour.minutes")} `, el("input", { name: "minutes", type: "number", min: 5, max: 240, value: 30 })),
    el("label", {}, `${t("tour.starts_in")} `, el("input", { name: "starts_in", type: "number", min: 0, max: 43200, value: 10 })),
    el("label", {}, `${t("tour.mode")} `, el("select", { name: "players" }, el("option", { value: 2 }, "1v1"), el("option", { value: 4 }, "2v2"), el("option", { value: 6 }, "3v3"))),
    el("label", {}, `${t("tour.target")} `, el("select", { name: "target" }, el("option", { value: 15 }, "15"), el("option", { value: 30 }, "30"))),
    el("label", {}, el("input", { name: "flor", type: "checkbox" }), ` ${t("tour.flor")}`),
    el("label", {}, el("input", { name: "rated", type: "checkbox" }), ` ${t("tour.rated")}`),
    el("button", { type: "submit" }, t("tour.create")), error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const body = {
      name: f.get("name"), format: f.get("format"), rated: f.get("rated") === "on",
      rounds: Number(f.get("rounds")), minutes: Number(f.get("minutes")),
      starts_in: Math.round(Number(f.get("starts_in")) * 60),
      rules: { players: Number(f.get("players")), target: Number(f.get("target")), flor: f.get("flor") === "on" },
    };
    try { const made = await api("/api/tournaments", { method: "POST", body: JSON.stringify(body) }); go(`/torneos/${made.id}`); } catch (e) { error.textContent = refusalText(e); }
  });
  return form;
}

export async function showTournaments(ctx) {
  const { app, api, identity } = ctx;
  document.title = `${t("tour.title")} — Truco Argento`;
  const data = await api("/api/tournaments");
  const section = (key, list) => el("section", { class: "panel", id: `tournaments-${key}` },
    el("h2", {}, t(`tour.list_${key}`)),
    list.length
      ? el("ul", {}, list.map((x) => el("li", { "data-tournament": x.id },
        el("a", { href: `/torneos/${x.id}` }, x.name), " ",
        el("span", { class: "muted" }, `${t(`tour.${x.format}`)} · ${t("tour.entrants", { n: x.entrants })} · ${clock(x.starts_at)}${x.official ? ` · ${t("tour.official")}` : ""}`))))
      : el("p", { class: "muted" }, t("tour.none")));
  const organise = identity.player?.account
    ? el("section", { class: "panel" }, el("h2", {}, t("tour.organise")), organiseForm(ctx))
    : el("p", { class: "muted" }, t("tour.accounts_only"));
  app.replaceChildren(el("section", { id: "tournaments" }, el("h1", {}, t("tour.title")),
    section("running", data.running), section("open", data.open), section("finished", data.finished), organise,
    el("a", { href: "/", class: "button secondary" }, t("back_home"))));
}

function standingsTable(tour, me) {
  const swiss = tour.format === "swiss";
  return el("table", { class: "board-table", id: "standings" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("tour.player")), el("th", { class: "num" }, t("tour.points")),
      swiss ? el("th", { class: "num" }, t("tour.buchholz")) : el("th", {}, ""), el("th", { class: "num" }, t("tour.played")))),
    el("tbody", {}, tour.standings.map((s) => el("tr", { "data-player": s.name, class: (s.members || [s.name]).includes(me) ? "me" : null },
      el("td", {}, String(s.rank)),
      el("td", {}, (s.members || [s.name]).flatMap((n, i) => [i ? " & " : "", el("a", { href: `/u/${encodeURIComponent(n)}` }, n)]), s.withdrawn ? ` (${t("tour.withdrawn")})` : ""),
      el("td", { class: "num points" }, points(s.points)),
      el("td", { class: "num" }, swiss ? points(s.buchholz) : (s.fire ? "🔥" : "")),
      el("td", { class: "num" }, String(s.played))))));
}

function gamesList(tour) {
  const items = [...tour.games].reverse().map((g) => {
    const who = g.second ? `${g.first} – ${g.second}` : `${g.first} (${t("tour.bye")})`;
    const result = g.status === "playing" ? t("tour.playing") : g.winner ? t("tour.won", { name: g.winner }) : g.second ? t("tour.draw") : "";
    const link = !g.table ? null : g.status === "playing"
      ? el("a", { href: `/t/${g.table}`, class: "button small secondary" }, t("tour.watch"))
      : el("a", { href: `/replay/${g.table}`, class: "button small secondary" }, t("tour.replay"));
    return el("li", { "data-table": g.table || "", "data-status": g.status },
      tour.format === "swiss" ? `${t("tour.round", { n: g.round })}: ` : "", who, " — ", result, " ", link);
  });
  return el("ul", { id: "games", class: "games" }, items);
}

export async function showTournament(id, ctx) {
  const { app, api, identity } = ctx;
  const error = el("p", { class: "error", role: "alert" });
  const root = el("section", { id: "tournament", "data-id": id });
  app.replaceChildren(root);
  let timer = null;
  let seen = null;
  const partners = el("input", { id: "partners", maxlength: 60, placeholder: t("chal.names"), "aria-label": t("tour.partners") });
  const act = (what) => async () => {
    const names = partners.value.split(",").map((n) => n.trim()).filter(Boolean);
    const body = what === "join" && names.length ? { body: JSON.stringify({ partners: names }) } : {};
    try { render(await api(`/api/tournaments/${id}/${what}`, { method: "POST", ...body })); } catch (e) { error.textContent = refusalText(e); }
  };
  function render(tour) {
    seen = tour;
    document.title = `${tour.name} — Truco Argento`;
    const me = identity.player?.name;
    const mine = tour.standings.find((s) => (s.members || [s.name]).includes(me));
    const myGame = tour.games.find((g) => g.status === "playing" && g.table && (g.players || [g.first, g.second]).includes(me));
    const teams = (tour.rules.players || 2) > 2;
    const open = tour.status === "open" || (tour.format === "arena" && tour.status === "running");
    const buttons = [];
    if (identity.player?.account && open && (!mine || mine.withdrawn)) {
      if (teams && !mine) buttons.push(el("label", {}, `${t("tour.partners")} `, partners));
      buttons.push(el("button", { id: "join", onclick: act("join") }, t("tour.join")));
    }
    if (mine && !mine.withdrawn && tour.status !== "finished") buttons.push(el("button", { id: "withdraw", class: "secondary", onclick: act("withdraw") }, t("tour.leave")));
    if (tour.status === "open" && tour.organiser === me) buttons.push(el("button", { id: "start", onclick: act("start") }, t("tour.start")));
    root.dataset.status = tour.status;
    root.replaceChildren(
      el("h1", {}, tour.name, tour.official ? ` · ${t("tour.official")}` : ""),
      el("p", { class: "muted", id: "tournament-info" },
        `${formatText(tour)} · ${rulesText(tour.rules)} · ${tour.rated ? t("tour.rated") : t("tour.casual")} · ${t("tour.by", { name: tour.organiser })}`),
      el("p", { id: "tournament-status", role: "status" }, t(`tour.status_${tour.status}${tour.status === "running" && tour.format === "arena" ? "_arena" : ""}`, { when: clock(tour.starts_at), round: tour.round, rounds: tour.rounds }),
        tour.ends_at && tour.status === "running" ? ` · ${t("tour.ends", { when: clock(tour.ends_at) })}` : ""),
      myGame ? el("p", { class: "panel", id: "my-game" }, t("tour.your_game"), " ", el("a", { href: `/t/${myGame.table}`, class: "button" }, t("tour.go_play"))) : "",
      el("div", { class: "tools" }, buttons), error,
      el("h2", {}, t("tour.standings")),
      tour.standings.length ? standingsTable(tour, me) : el("p", { class: "muted" }, t("tour.nobody")),
      el("h2", {}, t("tour.games")), tour.games.length ? gamesList(tour) : el("p", { class: "muted" }, t("tour.no_games")),
      el("a", { href: "/torneos", class: "button secondary" }, t("tour.all")));
  }
  render(await api(`/api/tournaments/${id}`));
  let closed = false;
  const poll = async () => {
    clearTimeout(timer);
    if (closed) return;
    try { const tour = await api(`/api/tournaments/${id}`); if (!closed) render(tour); } catch { /* the next poll tries again */ }
    if (!closed && seen?.status !== "finished") timer = setTimeout(poll, stream?.readyState === 1 ? SLOW_MS : POLL_MS);
  };
  const stream = noticeStream(`?tournament=${encodeURIComponent(id)}`, () => poll());
  timer = setTimeout(poll, POLL_MS);
  return { close() { closed = true; clearTimeout(timer); stream?.close(); } };
}
