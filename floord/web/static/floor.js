// The floor: every table as a tile (game, state in words and colour, round, devices,
// alerts), live; filtered by site, game and state (kept in the page's address).
import { clear, el, header, live, showConnection, tableHref } from "/static/common.js";

header("floor");
const tiles = new Map();  // key -> the latest tile body
const filters = ["site", "game", "state"];
const chosen = new URLSearchParams(location.search);

function tileNode(t) {
  const last = t.last_ts ? `last event ${t.last_ts.slice(11, 19)} UTC` : "no event heard yet";
  return el("a", { href: tableHref(t.site, t.table), class: `tile ${t.colour}`,
      "data-key": t.key, "data-colour": t.colour, "data-ts": t.last_ts || "" },
    el("div", { class: "tile-head" },
      el("span", { class: "table-id" }, t.table),
      el("span", { class: "site" }, t.site)),
    el("div", { class: "game" }, t.game),
    el("div", { class: "words" }, t.words),
    el("div", { class: "round" }, t.round),
    el("div", { class: "devices" + (t.devices_down ? " warn" : "") }, t.devices),
    el("div", { class: "alert-count" + (t.alerts ? " has" : "") },
      t.alerts === 1 ? "1 open alert" : `${t.alerts} open alerts`),
    el("div", { class: "last muted" }, last));
}

function shown(t) {
  return filters.every((f) => !chosen.get(f) || chosen.get(f) === t[f]);
}

function fillFilter(name) {
  const select = document.getElementById(`filter-${name}`);
  const values = [...new Set([...tiles.values()].map((t) => t[name]))].sort();
  const want = chosen.get(name) || "";
  clear(select);
  select.append(el("option", { value: "" }, "all"));
  for (const v of values) select.append(el("option", { value: v }, v));
  if (want && !values.includes(want)) select.append(el("option", { value: want }, want));
  select.value = want;
}

function render() {
  const box = document.getElementById("tiles");
  clear(box);
  const all = [...tiles.values()].sort((a, b) => a.key.localeCompare(b.key));
  let halted = 0, alerts = 0, count = 0;
  for (const t of all) {
    if (!shown(t)) continue;
    count += 1;
    if (t.colour === "halted") halted += 1;
    alerts += t.alerts;
    box.append(tileNode(t));
  }
  filters.forEach(fillFilter);
  document.getElementById("totals").textContent =
    `${count} of ${all.length} tables shown, ${halted} halted, ${alerts} open alerts`;
}

for (const name of filters) {
  document.getElementById(`filter-${name}`).onchange = (event) => {
    if (event.target.value) chosen.set(name, event.target.value); else chosen.delete(name);
    history.replaceState(null, "", chosen.toString() ? `/?${chosen}` : "/");
    draw();
  };
}

// Changes coming fast are drawn together, at most every 100 ms (a timer, not an animation
// frame: a wall screen's tab that is not in front still keeps up). A change that comes
// when nothing was drawn for 100 ms is drawn at once: the server already gathers a
// tenth of a second's changes into one message, and waiting another tenth on the page
// would only make every tile late.
const DRAW_EVERY_MS = 100;
let pending = false;
let drawnAt = -Infinity;
function draw() {
  drawnAt = performance.now();
  render();
}
function later() {
  if (pending) return;
  const wait = DRAW_EVERY_MS - (performance.now() - drawnAt);
  if (wait <= 0) {
    draw();
    return;
  }
  pending = true;
  setTimeout(() => { pending = false; draw(); }, wait);
}

live({ page: "floor" }, (body) => {
  if (body.type === "snapshot") {
    tiles.clear();
    for (const t of body.tiles) tiles.set(t.key, t);
    showConnection(body, true);
    draw();
  } else if (body.type === "tiles") {
    for (const t of body.tiles) tiles.set(t.key, t);
    later();
  } else if (body.type === "connection") {
    showConnection(body, true);
  }
}, (current) => {
  if (current) return;
  showConnection(null, false);
  // Nothing shown stays as if it were current: every tile says so until the snapshot.
  for (const node of document.querySelectorAll(".tile")) {
    node.className = "tile not-current";
    node.querySelector(".words").textContent = "not current: the console is reconnecting";
  }
});
