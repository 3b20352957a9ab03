// The hints of a first match: one line under the board naming what the player may do
// right now, read from the legal actions the server lists (no rule of the game here).
// On after "Primera partida, con ayuda" in the lobby; the line's button turns it off.
import { el } from "./dom.js";
import { t } from "./i18n.js";

const KEY = "truco.hints";
export const hints = {
  get on() { return localStorage.getItem(KEY) === "1"; },
  set on(value) { localStorage.setItem(KEY, value ? "1" : "0"); },
};

/** "a, b o c" with the language's "or". */
function either(options) {
  if (options.length < 2) return options.join("");
  return `${options.slice(0, -1).join(", ")} ${t("tut.or")} ${options[options.length - 1]}`;
}

/** What one call is, said as something to do: "cantar envido (tecla E)". */
function option(action, keyOf) {
  const what = action === "quiero" ? t("tut.accept") : action === "no-quiero" ? t("tut.refuse")
    : action === "mazo" ? t("tut.mazo") : t("tut.say", { call: t(`call.${action}`).toLowerCase() });
  return keyOf[action] ? t("tut.option", { what, key: keyOf[action].toUpperCase() }) : what;
}

/** The hint line of the table ``screen`` for its seat now, or null when hints are off.
 * ``keyOf``: the keyboard key of each call. */
export function hintLine(screen, keyOf) {
  if (!hints.on) return null;
  const view = screen.state.view;
  const mine = view.legal.filter((a) => !a.startsWith("say "));
  let text;
  if (mine.length) {
    const options = mine.filter((a) => !a.startsWith("play ")).map((a) => option(a, keyOf));
    if (mine.some((a) => a.startsWith("play "))) options.push(t("tut.play_card"));
    text = t("tut.may", { options: either(options) });
    if (view.legal.some((a) => a.startsWith("say "))) text += ` ${t("tut.words")}`;
  } else if (view.actors.length) {
    text = t("tut.wait", { name: screen.story.seatName(view.actors[0]) });
  } else return null;
  const hide = el("button", { type: "button", class: "secondary small", id: "hint-off", onclick: () => { hints.on = false; screen.render(); } }, t("tut.hide"));
  return el("p", { class: "hint", id: "hint" }, el("strong", {}, `${t("tut.title")}: `), el("span", { id: "hint-text" }, text), " ", hide);
}
