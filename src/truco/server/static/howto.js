// How to play (/como-se-juega, /how-to-play): the rules text the server ships in the
// page's language (server/howto.py renders it from the package's howto/<lang>.md).
import { el } from "./dom.js";
import { lang, t } from "./i18n.js";

export async function showHowTo({ app, api }) {
  const { html } = await api(`/api/howto/${lang}`);
  const text = el("article", { class: "howto-text" });
  text.innerHTML = html;  // the project's own text, rendered with raw HTML off
  document.title = `${t("howto.title")} · Truco Argento`;
  app.replaceChildren(el("section", { class: "panel howto", id: "howto", lang: lang === "es" ? "es-AR" : "en" },
    text, el("a", { href: "/", class: "button" }, t("back_home"))));
}
