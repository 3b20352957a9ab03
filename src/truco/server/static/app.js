// Truco Argento: the browser page. This module holds who the player is (the guest
// token), the calls to the server, the top bar and the routing; each screen lives in
// its own module (lobby.js, table.js, replay.js), the words in i18n/*.json.
import { $, el } from "./dom.js";
import { LANGUAGES, chooseLanguage, lang, loadLanguage, preferredLanguage, t } from "./i18n.js";
import { showChallenge, watchChallenges } from "./challenges.js";
import { showFriends } from "./friends.js";
import { showHowTo } from "./howto.js";
import { showLeaderboard } from "./leaderboard.js";
import { showLobby } from "./lobby.js";
import { showProfile } from "./profile.js";
import { refusalText } from "./refusal.js";
import { showReplay } from "./replay.js";
import { tableReportPanel } from "./report.js";
import { sound } from "./sound.js";
import { TABLE_CODE, TableScreen } from "./table.js";
import { showTournament, showTournaments } from "./tournament.js";

const app = $("#app");

// ------------------------------------------------------------------ identity
// The session lives in an HttpOnly cookie the server sets: this page never sees the
// token, it only knows whether it has a session and under which name.
const identity = {
  player: null,
  renaming: null, // the POST /api/guest in flight, if any
  get name() { return this.player?.name || localStorage.getItem("truco.name") || ""; },
  async resume() { // a session from an earlier visit gets a new expiry
    localStorage.removeItem("truco.token"); // tokens of older versions of this page
    // only a page that had a session asks (a first visit has none: no 401 in its console)
    if (this.player || !localStorage.getItem("truco.session")) return this.player;
    const renewed = await fetch("/api/session/renew", { method: "POST" });
    if (renewed.ok) this.remember(await renewed.json());
    if (renewed.ok) await this.refresh(); // an account, and its ratings
    else localStorage.removeItem("truco.session");
    return this.player;
  },
  async ensure() {
    await this.renaming?.catch(() => {}); // a name typed just before "create" is the one the table gets
    return this.player || (await this.resume()) || this.rename(this.name || t("guest"));
  },
  async refresh() { // who the cookie speaks for now (after logging in or out): an account or not
    const res = await fetch("/api/me");
    if (!res.ok) { this.forget(); return null; }
    const data = await res.json();
    return this.remember({ ...data, id: data.id ?? this.player?.id });
  },
  rename(name) {
    this.renaming = (async () => {
      if (this.player?.account) { // an account's name changes for good, everywhere
        const res = await fetch("/api/me", { method: "PATCH", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
        const data = await res.json().catch(() => ({}));
        if (!res.ok) throw refusal(res, data);
        return this.refresh();
      }
      const res = await fetch("/api/guest", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }) });
      const data = await res.json();
      if (!res.ok) throw refusal(res, data);
      return this.remember(data);
    })();
    return this.renaming;
  },
  remember(data) {
    this.player = { id: data.id, name: data.name, account: Boolean(data.account), ratings: data.ratings || {} };
    localStorage.setItem("truco.name", data.name);
    localStorage.setItem("truco.session", "1");
    $("#name").value = data.name;
    return this.player;
  },
  forget() { this.player = null; localStorage.removeItem("truco.session"); },
};

/** The Error of a refused request: its English ``detail`` as the message, and the
 * ``code`` and ``params`` the page words it by (``refusal.<code>``). */
function refusal(res, data) {
  return Object.assign(new Error(refusalText(data) || data.detail || res.statusText), { status: res.status, code: data.code, params: data.params || {} });
}

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const res = await fetch(path, { ...options, headers });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw refusal(res, data);
  return data;
}

/** The table's WebSocket address (the session cookie goes with it); ``since`` asks for
 * what was missed after that version. */
function socketUrl(id, since) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const after = since === null || since === undefined ? "" : `?since=${since}`;
  return `${proto}://${location.host}/ws/${id}${after}`;
}

// ------------------------------------------------------------------ routing
const ctx = { app, api, identity, socketUrl, go };
const reportSlot = $("#report-slot"); // "report a player" beside a live table (report.js)
let current = null;
function go(path) { history.pushState({}, "", path); route(); }
async function route() {
  current?.close?.();
  current = null;
  document.title = "Truco Argento";
  const path = location.pathname;
  reportSlot.replaceChildren();
  try {
    if (path.startsWith("/t/")) {
      const id = decodeURIComponent(path.slice(3));
      current = new TableScreen(id, ctx);
      window.truco = current;
      await current.open();
      if (TABLE_CODE.test(id)) reportSlot.replaceChildren(tableReportPanel(id, () => identity.ensure()));
    } else if (path.startsWith("/replay/")) await showReplay(path.slice(8), ctx);
    else if (path === "/ranking") await showLeaderboard(ctx);
    else if (path === "/como-se-juega" || path === "/how-to-play") await showHowTo(ctx);
    else if (path.startsWith("/u/")) await showProfile(decodeURIComponent(path.slice(3)), ctx);
    else if (path === "/torneos") await showTournaments(ctx);
    else if (path.startsWith("/torneos/")) current = await showTournament(decodeURIComponent(path.slice(9)), ctx);
    else if (path === "/amigos") await showFriends(ctx);
    else if (path.startsWith("/desafio/")) await showChallenge(decodeURIComponent(path.slice(9)), ctx);
    else current = await showLobby(ctx);
  } catch (e) {
    app.replaceChildren(el("p", { class: "error", role: "alert" }, refusalText(e)), el("a", { href: "/", class: "button" }, t("back_home")));
  }
}

// ------------------------------------------------------------------ top bar
function topbar() {
  $("#name-label").textContent = t("top.name");
  $("#name").value = identity.name;
  $("#nav-ranking").textContent = t("rank.title");
  $("#nav-howto").textContent = t("nav.howto");
  $("#report-slot").setAttribute("aria-label", t("report.title"));
  $("#nav-tournaments").textContent = t("tour.title");
  $("#nav-friends").textContent = t("friends.title");
  $("#name").addEventListener("change", async (ev) => {
    try { await identity.rename(ev.target.value); } catch (e) { ev.target.value = identity.name; ev.target.title = refusalText(e); return; }
    if (current instanceof TableScreen) { const id = current.id; current.close(); current = new TableScreen(id, ctx); window.truco = current; await current.open(); }
  });
  const language = $("#lang");
  language.setAttribute("aria-label", t("top.lang"));
  language.replaceChildren(...LANGUAGES.map((code) => el("option", { value: code, selected: code === lang }, code.toUpperCase())));
  language.addEventListener("change", () => chooseLanguage(language.value));
  const mute = $("#mute");
  const label = () => { mute.textContent = sound.muted ? t("top.sound_off") : t("top.sound_on"); mute.setAttribute("aria-pressed", String(!sound.muted)); };
  mute.title = t("top.sound_label");
  mute.addEventListener("click", () => { sound.muted = !sound.muted; label(); if (!sound.muted) sound.play("call"); });
  label();
}

window.addEventListener("popstate", route);
document.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[href^='/']");
  if (a && !ev.metaKey && !ev.ctrlKey) { ev.preventDefault(); go(a.getAttribute("href")); }
});
await loadLanguage(preferredLanguage());
topbar();
identity.resume().finally(() => { route(); watchChallenges(ctx, $("#challenges-box")); });
