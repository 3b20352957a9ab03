// The page's words: one JSON catalog per language (i18n/es.json, i18n/en.json), one
// language per page. Spanish (Rioplatense) first; English when the browser prefers it
// (navigator.languages mirrors Accept-Language) or when the player picks it.

export const LANGUAGES = ["es", "en"];
let catalog = {};
export let lang = "es";

export function preferredLanguage() {
  const saved = localStorage.getItem("truco.lang");
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages?.length ? navigator.languages : [navigator.language || "es"]) {
    const base = String(tag).toLowerCase().slice(0, 2);
    if (LANGUAGES.includes(base)) return base;
  }
  return "es";
}

export async function loadLanguage(code) {
  const res = await fetch(`/static/i18n/${code}.json`);
  catalog = await res.json();
  lang = code;
  document.documentElement.lang = code === "es" ? "es-AR" : "en";
}

export function chooseLanguage(code) {
  localStorage.setItem("truco.lang", code);
  location.reload();
}

/** The text of ``key`` with ``{name}`` placeholders filled; ``n`` picks one/other. */
export function t(key, params = {}) {
  let text = catalog[key];
  if (text === undefined) { console.warn(`no text for ${key}`); return key; }
  if (typeof text === "object") text = params.n === 1 ? text.one : text.other;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (params[name] ?? whole));
}

/** Whether the catalog has words for ``key``. */
export const has = (key) => Object.hasOwn(catalog, key);

export const cap = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** "Ana", "Ana y Cami", "Ana, Beto y Cami". */
export function joinNames(names) {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${t("and")} ${names[names.length - 1]}`;
}
