// The lobby: create a table, join one by its code, the open tables and the finished matches.
import { accountPanel } from "./account.js";
import { $, el, select } from "./dom.js";
import { t } from "./i18n.js";
import { quickMatchPanel } from "./quickmatch.js";
import { TEAM_KEYS, botDescription, botOptions, describeRules, tableTitle } from "./story.js";
import { hints } from "./tutorial.js";

export async function showLobby(ctx) {
  const { app, api, identity, go } = ctx;
  const options = await api("/api/options");
  const target = String(options.defaults.target);  // the same default here and in "Jugar ya"
  const botHelp = el("p", { class: "muted small", id: "bot-help" });
  const form = el("form", { id: "create-form", class: "panel" },
    el("h2", {}, t("lobby.new")),
    el("label", {}, `${t("lobby.table_name")} `, el("input", { name: "name", maxlength: 80, placeholder: t("lobby.table_name_ph") })),
    el("div", { class: "row" },
      el("label", {}, `${t("lobby.players")} `, select("players", [["2", t("lobby.p2")], ["4", t("lobby.p4")], ["6", t("lobby.p6")]])),
      el("label", {}, `${t("lobby.flor")} `, select("flor", [["false", t("lobby.sin_flor")], ["true", t("lobby.con_flor")]])),
      el("label", {}, `${t("lobby.target")} `, select("target", [["15", t("lobby.t15")], ["30", t("lobby.t30")]], target)),
      el("label", {}, `${t("lobby.chicos")} `, select("chicos", [["1", t("lobby.c1")], ["3", t("lobby.c3")]])),
    ),
    el("details", {},
      el("summary", {}, t("lobby.variants")),
      el("label", {}, `${t("lobby.falta")} `, select("falta_envido", Object.keys(options.falta_envido).map((k) => [k, t(`falta.${k}`)]))),
      el("label", {}, el("input", { type: "checkbox", name: "con_flor_quiero" }), ` ${t("lobby.con_flor_quiero")}`),
      el("label", {}, el("input", { type: "checkbox", name: "pica_pica" }), ` ${t("lobby.pica_pica")}`),
      el("label", {}, `${t("lobby.turn_seconds")} `, el("input", { type: "number", name: "turn_seconds", min: 0, max: 600, value: options.turn_seconds })),
    ),
    el("label", {}, `${t("lobby.bots")} `, el("select", { name: "bots", "aria-describedby": "bot-help" }, el("option", { value: "", selected: true }, t("lobby.no_bots")), botOptions(options.bots))),
    botHelp,
    el("button", { type: "submit", id: "create" }, t("lobby.create")),
    el("p", { class: "error", id: "create-error", role: "alert" }),
  );
  const describeBot = () => { const b = form.elements.bots.value; botHelp.textContent = b ? botDescription(b) || "" : t("botdesc.none"); };
  form.elements.bots.addEventListener("change", describeBot);
  describeBot();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const players = Number(f.get("players"));
    const rules = {
      players, flor: f.get("flor") === "true", target: Number(f.get("target")), chicos: Number(f.get("chicos")),
      falta_envido: f.get("falta_envido"), con_flor_quiero: f.get("con_flor_quiero") === "on", pica_pica: f.get("pica_pica") === "on",
    };
    const botLevel = f.get("bots");
    const seatBots = {};
    if (botLevel) for (let s = 1; s < players; s++) seatBots[s] = botLevel;
    try {
      await identity.ensure();
      const table = await api("/api/tables", { method: "POST", body: JSON.stringify({ rules, name: f.get("name") || t("lobby.default_name", { name: identity.name }), seat: 0, bots: seatBots, turn_seconds: Number(f.get("turn_seconds")) }) });
      go(`/t/${table.id}`);
    } catch (e) { $("#create-error").textContent = e.message; }
  });
  const join = el("form", { id: "join-form", class: "panel" },
    el("h2", {}, t("lobby.join")),
    el("input", { name: "code", placeholder: t("lobby.code_ph"), "aria-label": t("lobby.code_ph"), maxlength: 12, required: true }),
    el("button", { type: "submit" }, t("lobby.go")));
  join.addEventListener("submit", (ev) => { ev.preventDefault(); go(`/t/${encodeURIComponent(new FormData(join).get("code").trim().toLowerCase())}`); });

  const tables = el("section", { class: "panel", id: "tables" }, el("h2", {}, t("lobby.open")));
  const history = el("section", { class: "panel", id: "history" }, el("h2", {}, t("lobby.done")));
  const quick = quickMatchPanel(ctx, options);
  const redraw = () => { quick.close?.(); showLobby(ctx); };
  const first = el("button", { type: "button", id: "first-match" }, t("lobby.first_match"));
  first.addEventListener("click", async () => {  // 1v1 against the beginner bot, with the hints on
    try {
      await identity.ensure();
      const rules = { players: 2, flor: false, target: 15, chicos: 1 };
      const table = await api("/api/tables", { method: "POST", body: JSON.stringify({ rules, name: t("lobby.first_match_name", { name: identity.name }), seat: 0, bots: { 1: "simple" } }) });
      hints.on = true;
      go(`/t/${table.id}`);
    } catch (e) { $("#create-error").textContent = e.message; }
  });
  const welcome = el("section", { class: "panel welcome", id: "welcome" },
    el("h1", {}, t("lobby.h1")),
    el("p", {}, t("lobby.welcome")),
    el("p", { class: "row" }, el("a", { href: "/como-se-juega", class: "button secondary", id: "howto-link" }, t("nav.howto")), first));
  app.replaceChildren(welcome, el("div", { class: "lobby" }, el("div", {}, quick, form), el("div", {}, accountPanel(ctx, redraw), join, tables, history)));
  const list = await api("/api/tables");
  if (!list.length) tables.append(el("p", { class: "muted" }, t("lobby.no_open")));
  for (const table of list) {
    const free = table.seats.filter((s) => s.kind === "empty").length;
    tables.append(el("div", { class: "listing" },
      el("span", {}, `${tableTitle(table)} · ${describeRules(table.rules)} · `, table.status === "waiting" ? t("lobby.free", { n: free }) : t("lobby.playing")),
      el("a", { href: `/t/${table.id}`, class: "button", "data-table": table.id }, t(table.status === "waiting" ? "lobby.sit" : "lobby.watch"))));
  }
  const done = await api("/api/history");
  if (!done.length) history.append(el("p", { class: "muted" }, t("lobby.no_done")));
  for (const h of done.slice(0, 20)) {
    const won = h.winner === null || h.winner === undefined ? "" : ` · ${t("lobby.won_by", { team: t(`team.${TEAM_KEYS[h.winner]}`) })}`;
    history.append(el("div", { class: "listing" },
      el("span", {}, `${tableTitle(h)} · ${describeRules(h.rules)} · ${h.seats.join(", ")}${won}`),
      el("a", { href: `/replay/${h.id}`, class: "button" }, t("lobby.see"))));
  }
  return { close: () => quick.close?.() };
}
