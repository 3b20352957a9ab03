// Short synthesized sounds (no audio files): a card down, a call, your turn, a hand
// won or lost. Muted by the topbar switch; the choice is kept in localStorage.

let ctx = null;
let gesture = false;
for (const kind of ["pointerdown", "keydown"]) addEventListener(kind, () => { gesture = true; }, { capture: true, once: true });
const touched = () => gesture || Boolean(navigator.userActivation?.hasBeenActive);
export const sound = {
  get muted() { return localStorage.getItem("truco.muted") === "1"; },
  set muted(value) { localStorage.setItem("truco.muted", value ? "1" : "0"); },
  play(kind) {
    // a browser lets audio start only after the person touched the page: before that,
    // creating the AudioContext only logs a warning (a reload at one's turn did)
    if (this.muted || !touched()) return;
    try {
      ctx = ctx || new AudioContext();
      if (ctx.state === "suspended") ctx.resume();
      const notes = {
        card: [[180, 0.05, "triangle"]],
        call: [[520, 0.09, "square"], [700, 0.12, "square"]],
        turn: [[660, 0.08, "sine"], [880, 0.14, "sine"]],
        win: [[523, 0.1, "sine"], [659, 0.1, "sine"], [784, 0.18, "sine"]],
        lose: [[392, 0.12, "sine"], [330, 0.2, "sine"]],
      }[kind] || [];
      let at = ctx.currentTime;
      for (const [freq, length, type] of notes) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = type;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.12, at);
        gain.gain.exponentialRampToValueAtTime(0.001, at + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(at);
        osc.stop(at + length);
        at += length * 0.9;
      }
    } catch { /* no audio here: play on in silence */ }
  },
};
