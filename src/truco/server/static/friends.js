// Friends (/amigos, accounts): whom the player follows, online or at a table (watch it
// in one click), follow and block by name, hide one's presence, and challenge a friend
// or make an open challenge link.
import { refusalText } from "./account.js";
import { challengeForm } from "./challenges.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";

export async function showFriends(ctx) {
  const { app, api, identity } = ctx;
  document.title = `${t("friends.title")} — Truco Argento`;
  if (!identity.player?.account) {
    app.replaceChildren(el("section", { class: "panel", id: "friends" }, el("h1", {}, t("friends.title")),
      el("p", { class: "muted" }, t("friends.accounts_only")), el("a", { href: "/", class: "button secondary" }, t("back_home"))));
    return;
  }
  const error = el("p", { class: "error", role: "alert" });
  const render = async () => {
    const data = await api("/api/friends");
    const act = (method, path) => async () => {
      try { await api(path, { method }); await render(); } catch (e) { error.textContent = refusalText(e); }
    };
    const byName = (path, label, id) => {
      const form = el("form", { id, class: "inline-form" }, el("input", { name: "name", maxlength: 24, required: true, "aria-label": label }), el("button", { type: "submit" }, label));
      form.addEventListener("submit", (ev) => { ev.preventDefault(); act("PUT", `${path}/${encodeURIComponent(new FormData(form).get("name"))}`)(); });
      return form;
    };
    const hide = el("input", { type: "checkbox", id: "hide-presence", checked: data.hidden });
    hide.addEventListener("change", async () => {
      try { await api("/api/me/presence", { method: "PUT", body: JSON.stringify({ hidden: hide.checked }) }); } catch (e) { error.textContent = refusalText(e); }
    });
    const friends = data.following.map((f) => el("li", { "data-friend": f.name, "data-status": f.status },
      el("a", { href: `/u/${encodeURIComponent(f.name)}` }, f.name), " — ", t(`friends.${f.status}`), " ",
      f.table ? el("a", { href: `/t/${f.table}`, class: "button small secondary" }, t("tour.watch")) : "", " ",
      el("button", { class: "small secondary", onclick: act("DELETE", `/api/friends/${encodeURIComponent(f.name)}`) }, t("friends.unfollow"))));
    const blocked = data.blocked.map((b) => el("li", {}, b.name, " ",
      el("button", { class: "small secondary", onclick: act("DELETE", `/api/blocks/${encodeURIComponent(b.name)}`) }, t("friends.unblock"))));
    app.replaceChildren(el("section", { id: "friends" }, el("h1", {}, t("friends.title")), error,
      el("section", { class: "panel" }, el("h2", {}, t("friends.following")),
        friends.length ? el("ul", { id: "following" }, friends) : el("p", { class: "muted" }, t("friends.none")),
        byName("/api/friends", t("friends.follow"), "follow-form")),
      el("section", { class: "panel" }, el("h2", {}, t("chal.title_send")), challengeForm(ctx)),
      el("section", { class: "panel" }, el("h2", {}, t("friends.followers")),
        el("p", {}, data.followers.length ? data.followers.join(", ") : t("friends.none"))),
      el("section", { class: "panel" }, el("h2", {}, t("friends.privacy")),
        el("label", {}, hide, ` ${t("friends.hide")}`),
        el("h3", {}, t("friends.blocked")), blocked.length ? el("ul", {}, blocked) : el("p", { class: "muted" }, t("friends.none")),
        byName("/api/blocks", t("friends.block"), "block-form")),
      el("a", { href: "/", class: "button secondary" }, t("back_home"))));
  };
  await render();
}

/** A profile's part: the player's tournaments; on someone else's profile, follow them
 * (accounts) and challenge them. */
export async function profileTogether(name, ctx, own) {
  const { api, identity } = ctx;
  const said = el("p", { role: "status", id: "follow-said" });
  const follow = async () => {
    try { await api(`/api/friends/${encodeURIComponent(name)}`, { method: "PUT" }); said.textContent = t("friends.now_following", { name }); } catch (e) { said.textContent = refusalText(e); }
  };
  const tournaments = await api(`/api/tournaments?player=${encodeURIComponent(name)}`).catch(() => ({ open: [], running: [], finished: [] }));
  const all = [...tournaments.running, ...tournaments.open, ...tournaments.finished];
  return el("section", { class: "panel", id: "profile-together" },
    el("h2", {}, t("tour.title")),
    all.length
      ? el("ul", {}, all.map((x) => el("li", { "data-tournament": x.id }, el("a", { href: `/torneos/${x.id}` }, x.name))))
      : el("p", { class: "muted" }, t("tour.none")),
    own ? "" : el("div", {},
      identity.player?.account ? el("button", { id: "follow", class: "secondary", onclick: follow }, t("friends.follow")) : "", said,
      el("h3", {}, t("chal.title_send")), challengeForm(ctx, name)));
}
