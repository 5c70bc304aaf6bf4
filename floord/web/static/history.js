// The History page: a table's events from the floor's archive, newest first, by table,
// type and time, a page at a time. Every text goes in as text (`el`), never as markup.
import { clear, el, header } from "/static/common.js";

header("history");
const PAGE = 50;
const form = document.getElementById("filters");
const tableSelect = document.getElementById("table");
const typeSelect = document.getElementById("type");
const fromInput = document.getElementById("from");
const toInput = document.getElementById("to");
const status = document.getElementById("status");
const newer = document.getElementById("newer");
const older = document.getElementById("older");
// The search being paged: its parameters, pinned to the `until` of its first answer so
// that its pages count back from the same newest event.
let search = null;

// A datetime-local value (this browser's time) as UTC ISO 8601, or "" when empty.
function utc(value) {
  if (!value) return "";
  const when = new Date(value);
  return Number.isNaN(when.getTime()) ? "" : when.toISOString();
}

function local(iso) {
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}T` +
    `${pad(when.getHours())}:${pad(when.getMinutes())}:${pad(when.getSeconds())}`;
}

function chosen() {
  const params = {};
  const [site, table] = tableSelect.value ? JSON.parse(tableSelect.value) : [null, null];
  if (site) params.site = site;
  if (table) params.table = table;
  if (typeSelect.value) params.type = typeSelect.value;
  const from = utc(fromInput.value);
  const to = utc(toInput.value);
  if (from) params.from = from;
  if (to) params.to = to;
  return params;
}

function render(body) {
  const rows = document.getElementById("rows");
  clear(rows);
  for (const e of body.events) {
    const text = el("td", { class: "text" }, e.text);
    if (e.rule) text.append(", ", el("span", { class: "rule" }, e.rule));
    rows.append(el("tr", { class: `event ${e.family}`, "data-seq": String(e.seq ?? "") },
      el("td", { class: "ts" }, e.ts), el("td", { class: "where" }, `${e.table} (${e.site})`),
      el("td", { class: "seq" }, String(e.seq ?? "?")), el("td", { class: "type" }, e.type), text,
      el("td", {}, e.source)));
  }
  if (!body.events.length) {
    rows.append(el("tr", { class: "none" }, el("td", { colSpan: 6, class: "muted" },
      "no events in the archive for these filters")));
  }
  const first = body.offset + 1;
  const last = body.offset + body.events.length;
  status.textContent = body.events.length
    ? `events ${first} to ${last}, newest first, up to ${body.until}`
    : `no events up to ${body.until}`;
  newer.disabled = body.offset === 0;
  older.disabled = !body.more;
}

async function load(offset) {
  status.textContent = "reading the archive…";
  const params = new URLSearchParams({ ...search, limit: String(PAGE), offset: String(offset) });
  let response;
  try {
    response = await fetch(`/api/history?${params}`);
  } catch {
    status.textContent = "the console did not answer";
    return;
  }
  let body;
  try {
    body = await response.json();
  } catch {
    status.textContent = `the console answered ${response.status}`;
    return;
  }
  if (!response.ok) {
    status.textContent = body.error || `the console answered ${response.status}`;
    newer.disabled = true; older.disabled = true;
    return;
  }
  if (!search.to) search.to = body.until;
  render(body);
  const shown = { ...search };
  delete shown.to;
  if (toInput.value) shown.to = utc(toInput.value);
  history.replaceState(null, "", `/history?${new URLSearchParams(shown)}`);
}

let offset = 0;
form.onsubmit = (event) => {
  event.preventDefault();
  search = chosen();
  offset = 0;
  load(offset);
};
newer.onclick = () => { offset = Math.max(0, offset - PAGE); load(offset); };
older.onclick = () => { offset += PAGE; load(offset); };

async function start() {
  const asked = new URLSearchParams(location.search);
  try {
    const response = await fetch("/api/history/filters");
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `the console answered ${response.status}`);
    for (const t of body.tables) {
      tableSelect.append(el("option", { value: JSON.stringify([t.site, t.table]) },
        `${t.table} (${t.site})`));
    }
    for (const type of body.types) typeSelect.append(el("option", { value: type }, type));
  } catch (err) {
    status.textContent = `the archive's tables could not be read: ${err.message}`;
  }
  if (asked.get("table")) {
    const value = JSON.stringify([asked.get("site") || "", asked.get("table")]);
    if (![...tableSelect.options].some((o) => o.value === value)) {
      tableSelect.append(el("option", { value }, `${asked.get("table")} (${asked.get("site") || "?"})`));
    }
    tableSelect.value = value;
  }
  if (asked.get("type")) typeSelect.value = asked.get("type");
  if (asked.get("from")) fromInput.value = local(asked.get("from"));
  if (asked.get("to")) toInput.value = local(asked.get("to"));
  search = chosen();
  load(offset);
}

start();
