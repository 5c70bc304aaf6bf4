// Signing an operator command in the browser, byte for byte as floord does
// (floord/operator/commands.py, docs/contract.md "Operator commands"): the lower-case hex
// HMAC-SHA256, keyed with the operator's secret, of the command without `sig` as Python's
// json.dumps(cmd, sort_keys=True, separators=(",", ":")) writes it (ASCII only: every
// other character as \uXXXX, UTF-16). The key is imported as a non-extractable CryptoKey
// and never leaves this page: it is not sent, not stored.

function codePoints(text) {
  return Array.from(text, (c) => c.codePointAt(0));
}

// Python sorts keys by code point; JavaScript's sort compares UTF-16 units.
function byCodePoint(a, b) {
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

const SHORT = { 0x22: '\\"', 0x5c: "\\\\", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0c: "\\f" };

function pyString(text) {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (SHORT[unit] !== undefined) out += SHORT[unit];
    else if (unit < 0x20 || unit > 0x7e) out += "\\u" + unit.toString(16).padStart(4, "0");
    else out += text[i];
  }
  return out + '"';
}

export function canonical(value) {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error("only whole numbers are signed");
    return String(value);
  }
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (typeof value === "object") {
    const keys = Object.keys(value).sort(byCodePoint);
    return "{" + keys.map((k) => pyString(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  throw new Error("a JSON value expected");
}

// floord's read_secret: the file's bytes without surrounding ASCII white space.
export function secretBytes(text) {
  return new TextEncoder().encode(text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, ""));
}

export async function importKey(text) {
  return crypto.subtle.importKey(
    "raw", secretBytes(text), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// floord's format_ts: UTC, microseconds, a Z.
export function wireTime(date) {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export async function signature(command, key) {
  const body = {};
  for (const k of Object.keys(command)) if (k !== "sig") body[k] = command[k];
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(canonical(body)));
  return hex(mac);
}

export async function buildCommand(name, by, args, key, now = new Date(), id = null) {
  const command = {
    id: id || crypto.randomUUID().replaceAll("-", ""),
    name, by, ts: wireTime(now), args,
  };
  command.sig = await signature(command, key);
  return command;
}
