// The lobby's account panel: sign up, log in, log out, change the name, and the
// player's ratings. A guest keeps playing exactly as before; an account may queue rated.
import { el } from "./dom.js";
import { t } from "./i18n.js";

export const MODES = ["1v1", "2v2", "3v3"];

/** A refused request in the page's language: ``refusal.<code>`` with its params, else
 * the server's own sentence. */
export function refusalText(error) {
  if (!error?.code) return error?.message ?? String(error);
  const key = `refusal.${error.code}`;
  const text = t(key, error.params || {});
  return text === key ? error.message : text;
}

/** "1523" or "1523?" (provisional), or "—" without games. */
export function ratingText(r) {
  if (!r || r.rating === null || r.rating === undefined) return "—";
  return `${Math.round(r.rating)}${r.provisional ? "?" : ""}`;
}

function credentials(id, submitLabel, onSubmit) {
  const error = el("p", { class: "error", role: "alert" });
  const form = el("form", { id, class: "account-form" },
    el("label", {}, `${t("acct.name")} `, el("input", { name: "name", maxlength: 24, required: true, autocomplete: "username" })),
    el("label", {}, `${t("acct.password")} `, el("input", { name: "password", type: "password", required: true, autocomplete: id === "signup-form" ? "new-password" : "current-password" })),
    el("button", { type: "submit" }, submitLabel), error);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    error.textContent = "";
    try { await onSubmit(String(f.get("name")), String(f.get("password"))); } catch (e) { error.textContent = refusalText(e); }
  });
  return form;
}

/** The panel; ``refresh`` redraws the lobby once who the player is changed. */
export function accountPanel({ api, identity }, refresh) {
  const panel = el("section", { class: "panel", id: "account" });
  const me = identity.player;
  if (me?.account) {
    const error = el("p", { class: "error", role: "alert" });
    const rename = el("form", { id: "rename-form", class: "row" },
      el("input", { name: "name", maxlength: 24, value: me.name, "aria-label": t("acct.new_name"), required: true }),
      el("button", { type: "submit", class: "secondary small" }, t("acct.rename")));
    rename.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      try { await identity.rename(String(new FormData(rename).get("name"))); refresh(); } catch (e) { error.textContent = refusalText(e); }
    });
    const logout = el("button", { type: "button", id: "logout", class: "secondary small" }, t("acct.logout"));
    logout.addEventListener("click", async () => {
      try { await api("/api/logout", { method: "POST" }); } catch (e) { error.textContent = refusalText(e); return; }
      identity.forget(); refresh();
    });
    panel.append(
      el("h2", {}, t("acct.hello", { name: me.name })),
      el("p", { id: "my-ratings" }, MODES.map((mode) => el("span", { class: "rating-chip", "data-mode": mode },
        `${mode}: `, el("strong", { "data-rating": me.ratings?.[mode]?.rating ?? "" }, ratingText(me.ratings?.[mode]))))),
      el("p", {}, el("a", { href: `/u/${encodeURIComponent(me.name)}`, id: "my-profile" }, t("acct.profile"))),
      rename, logout, error);
    return panel;
  }
  const enter = async (path, name, password) => {
    await api(path, { method: "POST", body: JSON.stringify({ name, password }) });
    await identity.refresh();
    refresh();
  };
  panel.append(
    el("h2", {}, t("acct.title")),
    el("p", { class: "muted" }, t("acct.why")),
    el("div", { class: "account-forms" },
      el("div", {}, el("h3", {}, t("acct.login")), credentials("login-form", t("acct.login"), (n, p) => enter("/api/login", n, p))),
      el("div", {}, el("h3", {}, t("acct.signup")), credentials("signup-form", t("acct.signup"), (n, p) => enter("/api/accounts", n, p)))));
  return panel;
}
