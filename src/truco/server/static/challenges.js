// Challenges: the form that sends one (to an account by name, or an open link to share),
// the link's page (/desafio/{id}: accept or decline; a newcomer gets a guest session
// first), and the watch every page keeps while a session is open: a challenge received
// is shown with its buttons, and a challenge sent that was accepted takes the
// challenger to the table. The watch hears of a change on the server's notice stream
// (/api/notices) and then asks; without a stream it asks every few seconds.
import { refusalText } from "./account.js";
import { copyButton, el } from "./dom.js";
import { t } from "./i18n.js";

export const WATCH_MS = 4000;
/** With a notice stream open, a look now and then all the same (a notice may be lost). */
export const SLOW_MS = 30000;

/** A stream of notices (``/api/notices``) that calls ``heard`` at each change; null where
 * the browser has none. The browser opens a dropped one again by itself. */
export function noticeStream(query, heard) {
  if (typeof EventSource === "undefined") return null;
  const source = new EventSource(`/api/notices${query}`);
  source.addEventListener("changed", heard);
  return source;
}

export function rulesText(rules) {
  const size = { 2: "1v1", 4: "2v2", 6: "3v3" }[rules.players] || "1v1";
  return `${size} · ${rules.flor ? t("tour.flor") : t("tour.sinflor")} · ${t("tour.to", { target: rules.target })}`;
}

const names = (text) => String(text || "").split(",").map((n) => n.trim()).filter(Boolean);

/** The form that challenges ``target`` (or, empty, makes an open link). */
export function challengeForm({ api }, target = "") {
  const said = el("div", { id: "challenge-sent", role: "status" });
  const form = el("form", { id: "challenge-form", class: "account-form" },
    el("label", {}, `${t("chal.mode")} `, el("select", { name: "players" }, el("option", { value: 2 }, "1v1"), el("option", { value: 4 }, "2v2"), el("option", { value: 6 }, "3v3"))),
    el("label", {}, `${t("chal.whom")} `, el("input", { name: "target", maxlength: 80, value: target, placeholder: t("chal.anyone") })),
    el("label", { class: "team-only" }, `${t("chal.partners")} `, el("input", { name: "partners", maxlength: 60, placeholder: t("chal.names") })),
    el("label", {}, `${t("tour.target")} `, el("select", { name: "target_points" }, el("option", { value: 15 }, "15"), el("option", { value: 30 }, "30"))),
    el("label", {}, el("input", { name: "flor", type: "checkbox" }), ` ${t("tour.flor")}`),
    el("label", {}, el("input", { name: "rated", type: "checkbox" }), ` ${t("tour.rated")}`),
    el("button", { type: "submit" }, t("chal.send")), said);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const players = Number(f.get("players"));
    const rules = { players, target: Number(f.get("target_points")), flor: f.get("flor") === "on" };
    const body = players === 2
      ? { target: f.get("target") || null, rated: f.get("rated") === "on", rules }
      : { partners: names(f.get("partners")), rivals: names(f.get("target")), rated: f.get("rated") === "on", rules };
    try {
      const made = await api("/api/challenges", { method: "POST", body: JSON.stringify(body) });
      const link = `${location.origin}${made.link}`;
      const invited = made.seats.filter((x) => x.seat > 0 && x.name).map((x) => x.name);
      const to = made.target || invited.join(", ");
      said.replaceChildren(el("p", {}, to ? t("chal.sent_to", { name: to }) : t("chal.link_made")),
        el("a", { href: made.link, id: "challenge-link" }, link), " ", copyButton(() => link, "copy-challenge"));
    } catch (e) { said.replaceChildren(el("p", { class: "error", role: "alert" }, refusalText(e))); }
  });
  return form;
}

/** The page of a challenge's link. */
export async function showChallenge(id, { app, api, identity, go }) {
  const data = await api(`/api/challenges/${id}`);
  const error = el("p", { class: "error", role: "alert" });
  const me = identity.player;
  const mine = me && me.name === data.challenger;
  const seats = data.seats || [];
  const mySeat = seats.find((x) => x.name === me?.name);
  const forMe = seats.length
    ? (mySeat ? !mySeat.accepted : seats.some((x) => !x.name))
    : !mine && (!data.target || data.target === me?.name);
  const accept = async () => {
    try {
      await identity.ensure(); // a newcomer plays as a guest (a rated challenge needs an account)
      const taken = await api(`/api/challenges/${id}/accept`, { method: "POST" });
      if (taken.table) go(`/t/${taken.table}`); else showChallenge(id, { app, api, identity, go });
    } catch (e) { error.textContent = refusalText(e); }
  };
  const decline = async () => {
    try { await api(`/api/challenges/${id}/decline`, { method: "POST" }); go("/"); } catch (e) { error.textContent = refusalText(e); }
  };
  const open = data.status === "open";
  app.replaceChildren(el("section", { class: "panel", id: "challenge", "data-status": data.status },
    el("h1", {}, t("chal.title", { name: data.challenger })),
    el("p", {}, `${rulesText(data.rules)} · ${data.rated ? t("tour.rated") : t("tour.casual")}`),
    el("p", { role: "status" }, t(`chal.status_${data.status}`)),
    seats.length ? el("ul", { id: "challenge-seats" }, seats.map((x) => el("li", { "data-seat": x.seat, "data-accepted": String(x.accepted) },
      `${t("chal.team", { n: x.team + 1 })}: ${x.name || t("chal.open_seat")} — ${x.accepted ? t("chal.said_yes") : t("chal.waiting")}`))) : "",
    data.table ? el("a", { href: `/t/${data.table}`, class: "button" }, t("chal.to_table")) : "",
    open && forMe ? el("div", { class: "tools" },
      el("button", { id: "accept-challenge", onclick: accept }, t("chal.accept")),
      data.target || mySeat ? el("button", { id: "decline-challenge", class: "secondary", onclick: decline }, t("chal.decline")) : "") : "",
    error, el("a", { href: "/", class: "button secondary" }, t("back_home"))));
}

/** Keep an eye on the player's challenges from any page: ``box`` shows the ones
 * received; an accepted one of theirs takes them to its table. */
export function watchChallenges({ api, identity, go }, box) {
  const known = new Set();
  let stream = null;
  let timer = null;
  const tick = async () => {
    clearTimeout(timer);
    if (identity.player && !stream) stream = noticeStream("", () => tick());
    if (identity.player && !location.pathname.startsWith("/t/")) {
      try {
        const data = await api("/api/challenges");
        for (const sent of data.sent) {
          if (sent.status === "accepted" && sent.table && !known.has(sent.id)) {
            known.add(sent.id);
            if (Date.now() / 1000 - sent.expires_at < 0) go(`/t/${sent.table}`);
          }
        }
        box.replaceChildren(...data.received.map((c) => el("div", { class: "panel challenge-note", "data-challenge": c.id },
          t("chal.received", { name: c.challenger }), ` (${rulesText(c.rules)}${c.rated ? `, ${t("tour.rated")}` : ""}) `,
          el("button", { class: "small", onclick: async () => {
            try { const taken = await api(`/api/challenges/${c.id}/accept`, { method: "POST" }); go(taken.table ? `/t/${taken.table}` : `/desafio/${c.id}`); } catch (e) { box.title = refusalText(e); }
          } }, t("chal.accept")), " ",
          el("button", { class: "small secondary", onclick: async () => {
            await api(`/api/challenges/${c.id}/decline`, { method: "POST" }).catch(() => {}); tick();
          } }, t("chal.decline")))));
      } catch { /* no session, or the server away: the next look tries again */ }
    }
    timer = setTimeout(tick, stream?.readyState === 1 ? SLOW_MS : WATCH_MS);
  };
  // what was accepted before this page opened does not move it
  // (asked only with a session: a first visit's console shows no 401)
  if (!identity.player) { timer = setTimeout(tick, WATCH_MS); return; }
  api("/api/challenges").then((data) => data.sent.forEach((c) => c.status === "accepted" && known.add(c.id))).catch(() => {}).finally(tick);
}
