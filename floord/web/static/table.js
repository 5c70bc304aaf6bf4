// One table: its state, the round in play as sentences, the open alerts (acknowledged
// from here, signed in this page), the devices and their last word, the last events.
import { ackControls, clear, el, header, live, showConnection, signerPanel } from "/static/common.js";

header("table");
const params = new URLSearchParams(location.search);
const site = params.get("site") || "";
const tableId = params.get("table") || "";
document.title = `${tableId} - floord`;
document.getElementById("title").textContent = `${tableId} (${site})`;
document.getElementById("signer").append(signerPanel());
const alertRows = new Map();  // alert id -> its row, kept so a note being typed survives
let last = null;

function line(e) {
  return el("li", { class: `event ${e.family}`, "data-type": e.type },
    el("span", { class: "ts" }, e.ts), " ",
    el("span", { class: "text" }, e.text));  // the sentence ends in its citation
}

function renderAlerts(t) {
  const list = document.getElementById("alerts");
  const ids = new Set(t.alert_list.map((a) => a.id));
  for (const [id, row] of alertRows) if (!ids.has(id)) { row.remove(); alertRows.delete(id); }
  for (const a of t.alert_list) {
    let row = alertRows.get(a.id);
    if (!row) {
      row = el("li", { class: "alert", "data-alert": a.id },
        el("span", { class: "text" }, a.text), " ", ackControls(t.site, t.table, a.id));
      alertRows.set(a.id, row);
    }
    list.append(row);
  }
  if (!t.alert_list.length && !list.querySelector(".none")) {
    list.append(el("li", { class: "none muted" }, "no open alerts"));
  } else if (t.alert_list.length) {
    list.querySelectorAll(".none").forEach((n) => n.remove());
  }
}

function render() {
  const t = last;
  const state = document.getElementById("state");
  clear(state);
  if (!t) {
    state.append(el("div", { class: "words unknown" }, "this console has heard nothing of this table"));
    return;
  }
  state.className = `state ${t.colour}`;
  const parts = [el("div", { class: "game" }, t.game), el("div", { class: "words" }, t.words),
    el("div", {}, t.devices), ...t.notes.map((n) => el("div", { class: "note muted" }, n))];
  if (t.command) parts.push(el("div", { class: "command" }, `last command: ${t.command}`));
  state.append(...parts);
  const round = document.getElementById("round");
  clear(round);
  round.append(el("p", {}, t.round));
  const told = el("ol", { class: "events" });
  t.round_sentences.forEach((e) => told.append(line(e)));
  round.append(told);
  renderAlerts(t);
  const devices = document.getElementById("devices");
  clear(devices);
  for (const d of t.device_list) {
    devices.append(el("li", { class: d.online ? "up" : "down" },
      el("strong", {}, d.id), ` ${d.online ? "online" : "offline"}`,
      d.last ? el("span", { class: "muted" }, `; last word ${d.last.ts}: ${d.last.text}`) : null));
  }
  const events = document.getElementById("events");
  clear(events);
  const telemetry = document.getElementById("telemetry").checked;
  t.events.filter((e) => telemetry || e.family !== "telemetry").forEach((e) => events.append(line(e)));
}

document.getElementById("telemetry").onchange = render;

live({ page: "table", site, table: tableId }, (body) => {
  if (body.type === "snapshot" || body.type === "table") {
    last = body.table;
    if (body.type === "snapshot") showConnection(body, true);
    render();
  } else if (body.type === "connection") {
    showConnection(body, true);
  }
}, (current) => {
  if (current) return;
  showConnection(null, false);
  const state = document.getElementById("state");
  state.className = "state not-current";
  clear(state);
  state.append(el("div", { class: "words" }, "not current: the console is reconnecting"));
});
