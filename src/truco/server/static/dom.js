// Small DOM helpers and the card images, shared by the page's screens.
import { t } from "./i18n.js";

export const $ = (sel, root = document) => root.querySelector(sel);

/** ``el("div", {class: "x", onclick: f}, child, ...)``: an element with its children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** "1 de espadas", "ace of swords": the 1 is worded as each language's players say it. */
export const cardName = (c) => {
  const rank = c.slice(0, -1);
  return t("card", { rank: rank === "1" ? t("card.ace") : rank, suit: t(`suit.${c.slice(-1)}`) });
};
export const cardImg = (c, cls = "card") =>
  el("img", { class: cls, src: `/cards/${c}.svg`, alt: cardName(c), "data-card": c, draggable: "false" });
export const backImg = (cls = "card back", decorative = false) =>
  el("img", { class: cls, src: "/cards/back.svg", alt: decorative ? "" : t("card.back") });

/** A ``<select>`` of ``[value, label]`` pairs, ``chosen`` selected, described by the
 * element of id ``describedBy``. */
export function select(name, pairs, chosen = undefined, describedBy = undefined) {
  return el("select", { name, "aria-describedby": describedBy }, pairs.map(([v, label]) => el("option", { value: v, selected: v === chosen }, label)));
}

/** A button that copies ``text()`` to the clipboard and says so (or says to copy by hand). */
export function copyButton(text, id) {
  const said = el("span", { class: "copied", role: "status" });
  const button = el("button", { type: "button", class: "secondary small", id, onclick: async () => {
    try { await navigator.clipboard.writeText(text()); said.textContent = t("table.copied"); } catch { said.textContent = t("table.copy_failed"); }
  } }, t("table.copy_link"));
  return el("span", { class: "copy-box" }, button, said);
}
