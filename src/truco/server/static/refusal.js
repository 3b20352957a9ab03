// A refusal of the server (an ``error`` or ``why`` frame, an HTTP refusal's body) in the
// page's language, from its code and params: ``refusal.<code>`` of the catalogs (codes:
// truco/refusals.py). The server's English sentence only for a code this page has no
// words for. Never parses prose.
import { cardName } from "./dom.js";
import { has, t } from "./i18n.js";

/** One parameter as a person reads it; ``seatName(seat)`` names the player in a seat. */
function word(name, value, seatName) {
  if (name === "player" && Number.isInteger(value)) return seatName ? seatName(value) : t("seat.numbered", { n: value + 1 });
  if (name === "seat" && Number.isInteger(value)) return String(value + 1);
  if (name === "card" && typeof value === "string") return cardName(value);
  if (name === "action" && typeof value === "string") {
    const key = value.startsWith("say ") ? `word.${value.slice(4)}` : `call.${value}`;
    return has(key) ? t(key).toLowerCase() : value;
  }
  if (name === "call" && typeof value === "string") return has(`call.${value}`) ? t(`call.${value}`).toLowerCase() : value;
  return String(value);
}

/** ``msg`` (``{code, params, reason}`` or ``{detail, code, params}``) in words. */
export function refusalText(msg, seatName = null) {
  const key = `refusal.${msg?.code}`;
  if (!msg?.code || !has(key)) return msg?.reason || msg?.detail || msg?.message || "";
  const params = {};
  for (const [name, value] of Object.entries(msg.params || {})) params[name] = word(name, value, seatName);
  return t(key, params);
}
