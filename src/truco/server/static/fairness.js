// Provably fair deals on the page (docs/protocol.md, "Fair deals"). Before each hand the
// server publishes a commitment: the SHA-256 of "truco-fair/1|<hand>|<40 cards>|<salt hex>".
// When the match is over it reveals every deck and salt, and this page checks them itself:
// the hash opens the commitment it was shown before the hand, and its own cards are the
// ones the deck gives its seat (seat s gets cards 3s..3s+2). WebCrypto does the hashing
// where the browser offers it (secure contexts: https, localhost); elsewhere a small
// SHA-256 written here does, and the panel says so.

import { t } from "./i18n.js";

const SCHEME = "truco-fair/1";
const CARD = /^(?:[1-7]|1[012])[eboc]$/;

// ------------------------------------------------------------------ SHA-256
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

/** SHA-256 of some bytes, as hex, in plain JavaScript (the fallback without WebCrypto). */
export function sha256HexPlain(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = H0.slice();
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => { h[i] = (h[i] + x) >>> 0; });
  }
  return h.map((x) => x.toString(16).padStart(8, "0")).join("");
}

/** Whether this page can use WebCrypto (only in secure contexts). */
export const hasWebCrypto = () => Boolean(globalThis.crypto && crypto.subtle && crypto.subtle.digest);

/** SHA-256 of a text (UTF-8), as hex: WebCrypto when available, else the plain version. */
export async function sha256Hex(text) {
  const bytes = new TextEncoder().encode(text);
  if (!hasWebCrypto()) return sha256HexPlain(bytes);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** The text a hand's commitment hashes (the canonical encoding of truco.fairness). */
export const encodeDeal = (hand, deck, salt) => `${SCHEME}|${hand}|${deck.join(",")}|${salt}`;

/** Check one revealed deck: null when it is right, else the reason (one line, in the page's language).
 * ``seen`` is the commitment this page was shown before the hand (or undefined);
 * ``mine`` is ``{seat, cards}``, the cards this page was dealt in that hand (or undefined). */
export async function checkReveal(reveal, seen, mine) {
  const deck = Array.isArray(reveal.deck) ? reveal.deck.map((c) => String(c).toLowerCase()) : [];
  if (reveal.scheme !== SCHEME) return t("fair.bad_scheme", { scheme: reveal.scheme });
  if (deck.length !== 40 || new Set(deck).size !== 40 || !deck.every((c) => CARD.test(c))) return t("fair.bad_deck");
  if (!/^[0-9a-f]{64}$/.test(reveal.salt || "")) return t("fair.bad_salt");
  if (seen !== undefined && seen !== reveal.commitment) return t("fair.other_commitment");
  if (await sha256Hex(encodeDeal(reveal.hand, deck, reveal.salt)) !== reveal.commitment) return t("fair.no_match");
  if (mine) {
    const given = deck.slice(3 * mine.seat, 3 * mine.seat + 3);
    if (given.join(" ") !== mine.cards.join(" ")) return t("fair.not_your_cards", { mine: mine.cards.join(" "), deck: given.join(" ") });
  }
  return null;
}

// ------------------------------------------------------------------ the page's panel
export class FairDeals {
  /** ``onChange`` is called when a verification finishes (the page re-renders). */
  constructor(onChange) {
    this.onChange = onChange;
    this.commitments = new Map(); // hand -> the first commitment this page was shown
    this.mine = new Map(); // hand -> {seat, cards} this page was dealt
    this.results = new Map(); // hand -> null (verified) or the reason it does not verify
    this.current = null; // {hand, commitment} of the hand being played
  }

  /** Read a state message (the hook in app.js calls this for every one). */
  receive(msg) {
    const summary = msg.table?.fairness;
    this.current = summary || null;
    if (summary && !this.commitments.has(summary.hand)) this.commitments.set(summary.hand, summary.commitment);
    const view = msg.view;
    if (view && msg.you?.seat !== null && msg.you?.seat !== undefined && view.dealt?.length) {
      this.mine.set(view.hand_index, { seat: msg.you.seat, cards: view.dealt.slice() });
    }
    for (const e of msg.events || []) {
      if (e.kind === "commitment" && !this.commitments.has(e.hand)) this.commitments.set(e.hand, e.commitment);
      if (e.kind === "deck_revealed") this.verify(e);
    }
  }

  async verify(reveal) {
    let reason;
    try {
      reason = await checkReveal(reveal, this.commitments.get(reveal.hand), this.mine.get(reveal.hand));
    } catch (err) {
      reason = t("fair.failed", { reason: err.message });
    }
    this.results.set(reveal.hand, reason);
    if (!this.commitments.has(reveal.hand)) this.commitments.set(reveal.hand, reveal.commitment);
    this.onChange?.();
  }

  panel() {
    const node = (tag, attrs = {}, ...children) => {
      const n = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
      n.append(...children);
      return n;
    };
    const short = (c) => node("code", { class: "commitment", title: c, "data-commitment": c }, `${c.slice(0, 12)}…`);
    const panel = node("section", { class: "panel fairness", id: "fairness" }, node("h2", {}, t("fair.title")));
    if (this.current) {
      panel.append(node("p", { id: "fair-current", "data-hand": this.current.hand },
        t("fair.current", { hand: this.current.hand + 1 }), " ", short(this.current.commitment)));
    }
    if (this.results.size) {
      const bad = [...this.results.values()].filter((r) => r !== null).length;
      const mark = bad ? t("fair.bad", { n: bad }) : t("fair.good", { n: this.results.size });
      panel.append(node("p", { id: "fair-verdict", class: bad ? "error" : "verified", "data-verified": String(!bad) }, mark));
      const list = node("ul", { class: "fair-hands" });
      for (const [hand, reason] of [...this.results.entries()].sort((a, b) => a[0] - b[0])) {
        list.append(node("li", { "data-hand": hand, "data-verified": String(reason === null) },
          t("fair.hand", { hand: hand + 1 }), " ", short(this.commitments.get(hand) || ""), " ", reason === null ? t("fair.verified") : `✗ ${reason}`));
      }
      panel.append(list);
      if (!hasWebCrypto()) panel.append(node("p", { class: "muted", id: "fair-fallback" }, t("fair.no_webcrypto")));
    } else if (this.current) {
      panel.append(node("p", { class: "muted" }, t("fair.pending")));
    } else {  // no deal yet: say what this panel will show
      panel.append(node("p", { class: "muted", id: "fair-waiting" }, t("fair.waiting")));
    }
    return panel;
  }
}
