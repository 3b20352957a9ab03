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

export const cardName = (c) => t("card", { rank: c.slice(0, -1), suit: t(`suit.${c.slice(-1)}`) });
export const cardImg = (c, cls = "card") =>
  el("img", { class: cls, src: `/cards/${c}.svg`, alt: cardName(c), "data-card": c, draggable: "false" });
export const backImg = (cls = "card back", decorative = false) =>
  el("img", { class: cls, src: "/cards/back.svg", alt: decorative ? "" : t("card.back") });

export function select(name, pairs) {
  return el("select", { name }, pairs.map(([v, label]) => el("option", { value: v }, label)));
}
