// Every open alert on the floor, newest first, each with its acknowledgement; the
// acknowledged ones with who, when and the note.
import { ackControls, clear, el, header, live, showConnection, signerPanel, tableHref } from "/static/common.js";

header("alerts");
document.getElementById("signer").append(signerPanel());
const rows = new Map();

function render(alerts) {
  const list = document.getElementById("open");
  const keys = new Set(alerts.open.map((a) => `${a.site}/${a.table}/${a.id}`));
  for (const [key, row] of rows) if (!keys.has(key)) { row.remove(); rows.delete(key); }
  list.querySelectorAll(".none").forEach((n) => n.remove());
  for (const a of alerts.open) {
    const key = `${a.site}/${a.table}/${a.id}`;
    let row = rows.get(key);
    if (!row) {
      row = el("li", { class: "alert", "data-alert": a.id },
        el("a", { href: tableHref(a.site, a.table) }, `${a.table} (${a.site})`), " ",
        el("span", { class: "ts" }, a.raised || "raised before this console started"), " ",
        el("span", { class: "text" }, a.text), " ", ackControls(a.site, a.table, a.id));
      rows.set(key, row);
    }
    list.append(row);
  }
  if (!alerts.open.length) list.append(el("li", { class: "none muted" }, "no open alerts"));
  document.getElementById("acked-from").textContent = alerts.acknowledged_from === "archive"
    ? "From the floor's archive (read again every 30 s) and the tables' records as this console sees them."
    : "As this console saw them on the tables' records since it started.";
  const acked = document.getElementById("acked");
  clear(acked);
  for (const a of alerts.acknowledged) {
    acked.append(el("tr", { "data-alert": a.id },
      el("td", {}, a.ts), el("td", {}, `${a.table} (${a.site})`),
      el("td", {}, a.text), el("td", {}, a.by), el("td", { class: "note" }, a.note)));
  }
}

live({ page: "alerts" }, (body) => {
  if (body.type === "snapshot") { showConnection(body, true); render(body.alerts); }
  else if (body.type === "alerts") render(body.alerts);
  else if (body.type === "connection") showConnection(body, true);
}, (current) => {
  if (!current) showConnection(null, false);
});
