// "Jugar ya": choose a mode, wait in its queue (/ws/queue) with a cancel button, and
// go to the table the server seats you at.
import { el, select } from "./dom.js";
import { t } from "./i18n.js";
import { refusalText } from "./refusal.js";

/** The waits offered before bots fill a casual table ("" waits for people only). */
const BOT_WAITS = [10, 20, 30, 60];

/** The queue's name: "1v1-sinflor-15-rated". */
export function queueName({ mode, flor, target, rated }) {
  return `${mode}-${flor ? "flor" : "sinflor"}-${target}-${rated ? "rated" : "casual"}`;
}

function queueUrl(name, botsAfter) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const bots = botsAfter === null ? "" : `&bots_after=${botsAfter || "never"}`;
  return `${proto}://${location.host}/ws/queue?queue=${name}${bots}`;
}

/** ``options``: the server's /api/options (its default target and wait before bots). */
export function quickMatchPanel({ identity, go }, options) {
  const botWait = String(options.quick_bots_after);
  const waits = [...new Set([...BOT_WAITS, options.quick_bots_after])].sort((a, b) => a - b).map(String);
  const account = Boolean(identity.player?.account);
  const panel = el("section", { class: "panel", id: "quick-match" });
  const form = el("form", { id: "quick-form" },
    el("div", { class: "row" },
      el("label", {}, `${t("qm.mode")} `, select("quick_mode", [["1v1", t("lobby.p2")], ["2v2", t("lobby.p4")], ["3v3", t("lobby.p6")]])),
      el("label", {}, `${t("lobby.flor")} `, select("quick_flor", [["false", t("lobby.sin_flor")], ["true", t("lobby.con_flor")]])),
      el("label", {}, `${t("lobby.target")} `, select("quick_target", [["15", t("lobby.t15")], ["30", t("lobby.t30")]], String(options.defaults.target)))),
    el("div", { class: "row" },
      el("label", {}, el("input", { type: "radio", name: "kind", value: "casual", checked: !account }), ` ${t("qm.casual")}`),
      el("label", {}, el("input", { type: "radio", name: "kind", value: "rated", checked: account, disabled: !account }), ` ${t("qm.rated")}`)),
    account ? null : el("p", { class: "muted small" }, t("qm.rated_needs_account")),
    el("label", { id: "qm-bots" }, `${t("qm.bots_after")} `,
      select("bots_after", [...waits.map((s) => [s, t("qm.after_seconds", { n: Number(s) })]), ["", t("qm.never")]], botWait)),
    el("button", { type: "submit", id: "quick-play" }, t("qm.play")),
    el("p", { class: "error", id: "quick-error", role: "alert" }));
  const botsLabel = form.querySelector("#qm-bots");
  const syncKind = () => { botsLabel.hidden = new FormData(form).get("kind") === "rated"; };
  form.addEventListener("change", syncKind);
  syncKind();
  panel.append(el("h2", {}, t("qm.title")), form);

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const rated = f.get("kind") === "rated";
    const name = queueName({ mode: f.get("quick_mode"), flor: f.get("quick_flor") === "true", target: f.get("quick_target"), rated });
    try { await identity.ensure(); } catch (e) { form.querySelector("#quick-error").textContent = e.message; return; }
    wait(name, rated ? null : f.get("bots_after"));
  });

  function wait(name, botsAfter) {
    const status = el("p", { id: "quick-status", role: "status" }, t("qm.searching"));
    const cancel = el("button", { type: "button", id: "quick-cancel", class: "secondary" }, t("qm.cancel"));
    const waiting = el("div", { id: "quick-waiting", class: "quick-waiting" }, el("span", { class: "spinner", "aria-hidden": "true" }), status, cancel);
    form.hidden = true;
    panel.append(waiting);
    const ws = new WebSocket(queueUrl(name, botsAfter));
    let done = false;
    let refused = "";  // the queue's last refusal, in words
    const back = (message) => {
      done = true;
      waiting.remove();
      form.hidden = false;
      form.querySelector("#quick-error").textContent = message || "";
    };
    cancel.addEventListener("click", () => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "leave" }));
      else ws.close();
      back("");
    });
    ws.addEventListener("message", (msg) => {
      const data = JSON.parse(msg.data);
      if (data.type === "waiting") status.textContent = t("qm.waiting", { n: Math.round(data.seconds) });
      else if (data.type === "matched") { done = true; go(`/t/${data.table}`); }
      else if (data.type === "error") refused = refusalText(data);  // the close follows
    });
    ws.addEventListener("close", (ev) => { if (!done) back(ev.code === 4000 || ev.code === 1000 ? "" : refused || ev.reason || t("qm.lost")); });
    panel.close = () => { done = true; ws.close(); };
    // the page moved on (another screen replaced the lobby): out of the queue
    const watch = setInterval(() => {
      if (done) clearInterval(watch);
      else if (!panel.isConnected) { clearInterval(watch); panel.close(); }
    }, 500);
  }
  return panel;
}
