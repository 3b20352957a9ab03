// The table drawn as in play, for a replay step: the same board, seats, baza slots
// and speech bubbles as table.js (its classes and positions), every hand face up.
// (A module of its own: table.js is being reworked elsewhere; this reuses its look,
// not its code.)
import { cardImg, cardName, el } from "./dom.js";
import { t } from "./i18n.js";

export const POSITIONS = { 2: ["bot", "top"], 4: ["bot", "r", "top", "l"], 6: ["bot", "br", "tr", "top", "tl", "bl"] };

/** What a move is, in words: ``past`` "Ana jugó el 12 de bastos", ``todo`` "cantar vale cuatro". */
export function moveWords(token, story, seat = null) {
  const name = seat === null ? "" : story.seatName(seat);
  if (token.startsWith("play ")) {
    const card = cardName(token.slice(5));
    return { past: t("log.play", { name, card }), todo: t("replay.move.play", { card }) };
  }
  if (token === "mazo") return { past: t("log.mazo", { name }), todo: t("replay.move.mazo") };
  if (token === "quiero" || token === "no-quiero") {
    return { past: t(`replay.did.${token}`, { name }), todo: t(`replay.move.${token}`) };
  }
  const call = t(`call.${token}`).toLocaleLowerCase();
  return { past: t("replay.did.call", { name, call }), todo: t("replay.move.call", { call }) };
}

/**
 * The board of one replay step. ``better``: the top bot's move at this step's decision
 * (a token, and the seat it was for), drawn on the board: its card lit in the seat's
 * hand, or its call in a bubble.
 */
export function replayBoard(step, story, n, better = null, caption = "") {
  const board = el("section", { class: `board players-${n} replay-board`, "aria-label": t("table.board") });
  for (let seat = 0; seat < n; seat++) board.append(seatBox(step, story, seat, POSITIONS[n][seat], better));
  board.append(center(step, story, caption));
  return board;
}

function seatBox(step, story, seat, pos, better) {
  const name = story.seatName(seat);
  const box = el("section", { class: `seat pos-${pos} team-${seat % 2}`, "data-seat": seat, "aria-label": name });
  const tags = step.mano === seat ? [el("span", { class: "badge" }, t("seat.mano"))] : [];
  box.append(el("div", { class: "seat-name" }, el("span", { class: "dot", "aria-hidden": "true" }), el("span", { class: "who" }, name), ...tags));
  if (step.seat === seat && step.action && !step.action.startsWith("play ")) {
    box.append(el("div", { class: "bubble", "data-bubble": seat }, story.sung(step.action)));
  }
  const best = better && better.seat === seat ? better.token : null;
  if (best && !best.startsWith("play ")) {
    box.append(el("div", { class: "bubble better", "data-better": best }, t("replay.better", { move: moveWords(best, story).todo })));
  }
  const size = n2size(step.cards.length);
  box.append(el("div", { class: "replay-hand", role: "group", "aria-label": t("replay.hand_of", { name }) },
    (step.cards[seat] || []).map((c) => {
      const img = cardImg(c, size);
      if (best === `play ${c}`) {
        img.classList.add("better");
        return el("span", { class: "better-card", "data-better": best, title: t("replay.better", { move: moveWords(best, story).todo }) }, img);
      }
      return img;
    })));
  box.append(bazaRow(step, story, seat));
  return box;
}

const n2size = (n) => (n > 2 ? "card small" : "card");

function bazaRow(step, story, seat) {
  const row = el("div", { class: "bazas-row" });
  for (let i = 0; i < 3; i++) {
    const slot = el("div", { class: "slot", "data-baza": i });
    const hit = (step.bazas[i] || []).find(([s]) => s === seat);
    if (hit) {
      const justPlayed = step.action === `play ${hit[1]}` && step.seat === seat;
      slot.append(cardImg(hit[1], `card small${justPlayed ? " just-played" : ""}`));
      const winner = (step.baza_winners || [])[i];
      if (winner === -1) slot.classList.add("parda");
      else if (winner === seat) {
        slot.classList.add("won");
        slot.append(el("span", { class: "star", role: "img", "aria-label": t("table.baza_won", { name: story.seatName(seat) }) }, "★"));
      } else if (winner !== null && winner !== undefined) slot.classList.add("lost");
    }
    row.append(slot);
  }
  return row;
}

function center(step, story, caption) {
  const box = el("div", { class: "center" });
  if (caption) box.append(el("div", { class: "turn replay-caption" }, caption));
  if (step.closed) {
    box.append(el("div", { class: "just-closed" }, el("strong", {}, t("replay.closed")), " ", story.whyLine(step.closed.why)));
  }
  return box;
}
