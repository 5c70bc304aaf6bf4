// What every page shares: elements made from text (never markup), the live socket, the
// header, and the operator's signing key held in this page.
import { buildCommand, importKey } from "/static/sign.js";

// An element whose children are elements or text; text always goes in as text.
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "class") node.className = value;
    else if (name === "href") node.setAttribute("href", value);
    else if (name.startsWith("data-")) node.setAttribute(name, value);
    else node[name] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
}

export function tableHref(site, table) {
  return "/table?" + new URLSearchParams({ site, table }).toString();
}

// The page's live socket: `onMessage` gets each message in order; a socket that closes
// is reopened (0.5 s, doubling to 5 s) and the page is told it is not current
// meanwhile (`onState(false)`); the server's first message is always a snapshot.
export function live(params, onMessage, onState) {
  let delay = 500;
  let expected = 1;
  const open = () => {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/live?${new URLSearchParams(params)}`);
    ws.onopen = () => { delay = 500; expected = 1; };
    ws.onmessage = (event) => {
      const body = JSON.parse(event.data);
      if (body.seq !== expected && body.type !== "snapshot") {
        ws.send("snapshot");  // a message missed: ask for the whole page again
      }
      expected = body.seq + 1;
      if (body.type === "snapshot") onState(true);
      onMessage(body);
    };
    ws.onclose = () => {
      onState(false);
      // A session that ended (signed out elsewhere, expired, the server restarted) goes
      // back to the sign-in page rather than retrying for ever.
      fetch("/api/whoami").then((r) => { if (r.status === 401) location.href = "/login"; })
        .catch(() => {});
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 5000);
    };
  };
  open();
}

export function header(active) {
  const nav = el("nav", { class: "top" },
    el("span", { class: "brand" }, "floord"),
    el("a", { href: "/", class: active === "floor" ? "here" : "" }, "Floor"),
    el("a", { href: "/alerts", class: active === "alerts" ? "here" : "" }, "Alerts"),
    el("span", { id: "broker", class: "broker" }, active === "history" ? "" : "connecting…"),
    el("span", { id: "viewer", class: "viewer" }, ""));
  document.body.prepend(nav);
  fetch("/api/whoami").then((r) => r.json()).then((who) => {
    const viewer = document.getElementById("viewer");
    viewer.textContent = `viewing as ${who.viewer}`;
    // History reads the floor's archive: shown only when the console has one.
    if (who.archive) {
      nav.querySelector('a[href="/alerts"]').after(el("a",
        { href: "/history", id: "history-link", class: active === "history" ? "here" : "" },
        "History"));
    }
    if (who.login) {
      const out = el("form", { method: "post", action: "/logout", class: "logout" },
        el("button", { type: "submit" }, "Sign out"));
      viewer.after(out);
    }
  });
}

export function showConnection(body, current) {
  const broker = document.getElementById("broker");
  if (!broker) return;
  if (!current) {
    broker.textContent = "console connection lost: reconnecting; nothing shown is current";
    broker.className = "broker down";
    document.body.classList.add("not-current");
    return;
  }
  document.body.classList.remove("not-current");
  if (body && body.connected !== undefined) {
    broker.textContent = body.connected ? `broker ${body.node}` : `broker down: ${body.detail}`;
    broker.className = body.connected ? "broker up" : "broker down";
  }
}

// The operator's key: imported into this page as a non-extractable CryptoKey, the field
// emptied at once; never sent to the server, never stored.
const signer = { operator: null, key: null, listeners: [] };

export function canSign() {
  return signer.key !== null;
}

export function onSigner(listener) {
  signer.listeners.push(listener);
}

export function signerPanel() {
  const operator = el("input", { id: "operator", placeholder: "operator id", autocomplete: "off" });
  const key = el("input", { id: "key", type: "password", placeholder: "key", autocomplete: "off" });
  const status = el("span", { id: "signer-status", class: "muted" }, "read-only: no key held");
  const hold = el("button", { id: "hold-key", type: "button" }, "Hold key");
  const forget = el("button", { id: "forget-key", type: "button" }, "Forget key");
  // A listener answers false once its page part is gone, and is dropped.
  const tell = () => { signer.listeners = signer.listeners.filter((f) => f() !== false); };
  hold.onclick = async () => {
    const id = operator.value.trim();
    if (!id || !key.value) { status.textContent = "operator id and key expected"; return; }
    try {
      signer.key = await importKey(key.value);
      signer.operator = id;
      status.textContent = `signing as ${id}; the key stays in this page`;
    } catch (err) {
      status.textContent = `the key could not be used: ${err.message}`;
    }
    key.value = "";
    tell();
  };
  forget.onclick = () => {
    signer.key = null; signer.operator = null;
    status.textContent = "read-only: no key held";
    tell();
  };
  return el("div", { class: "signer" }, el("strong", {}, "Acknowledge as "), operator, key, hold,
    forget, status);
}

// Sign `ack_alert` here and hand it to the server, which forwards it to the table.
export async function acknowledge(site, table, alert, note) {
  if (!canSign()) return { ok: false, error: "hold an operator key first" };
  const args = note ? { alert, note } : { alert };
  const command = await buildCommand("ack_alert", signer.operator, args, signer.key);
  const response = await fetch("/api/command", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ site, table, command }),
  });
  try {
    return await response.json();
  } catch {
    return { ok: false, error: `the console answered ${response.status}` };
  }
}

export function ackControls(site, table, alert, onDone) {
  const note = el("input", { class: "note", placeholder: "note", maxLength: 1024 });
  const button = el("button", { type: "button", class: "ack" }, "Acknowledge");
  const answer = el("span", { class: "answer" });
  const enable = () => {
    if (!button.isConnected && button.dataset.shown) return false;
    button.disabled = !canSign();
    return true;
  };
  enable();
  onSigner(enable);
  button.onclick = async () => {
    button.disabled = true;
    answer.textContent = "sent, waiting for the table's answer";
    const result = await acknowledge(site, table, alert, note.value);
    answer.textContent = result.ok ? "accepted by the table" : `refused: ${result.error}`;
    enable();
    if (onDone) onDone(result);
  };
  button.dataset.shown = "1";
  return el("span", { class: "ack-controls" }, note, button, answer);
}
