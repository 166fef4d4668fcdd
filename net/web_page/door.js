// The browser door: the table drawn by xterm.js, its keys and size sent to
// the host over one websocket. The room code comes from the link's fragment
// (#KQXZ), which the browser never sends in a request; the player's id and
// name live in this browser's localStorage, so the same browser gets its
// seat back.
//
// The socket: a first text message {"hello": 1, code, id, name, watch, cols,
// rows}, then binary frames of keys and text frames {"resize": [cols, rows]};
// the host sends binary frames of terminal output. It closes with 1000 when
// the session ended as the player asked, 4000 with a sentence when it refused
// or ended the session, 4001 when the room code is wrong; only other closes
// (a dropped network) are tried again.
"use strict";

const KEYS = { id: "quackbox-id", name: "quackbox-name", reader: "quackbox-reader" };
const LEFT = 1000;
const REFUSED = 4000;
const WRONG_CODE = 4001;
const RETRY_DELAYS = [1000, 2000, 4000, 8000];
const KEY_CHUNK = 4096; // bytes a message of keys holds at most (a paste goes in several)

styleThroughCssom();

const store = openStore();
const params = new URLSearchParams(location.search);
const page = {
  terminal: document.getElementById("terminal"),
  join: document.getElementById("join"),
  name: document.getElementById("name"),
  code: document.getElementById("code"),
  codeRow: document.getElementById("code-row"),
  status: document.getElementById("status"),
  again: document.getElementById("again"),
  watch: document.getElementById("watch"),
  reader: document.getElementById("reader"),
};

let code = decodeURIComponent(location.hash.slice(1)).trim().toUpperCase();
let watching = params.get("watch") === "1";
let term = null;
let fit = null;
let socket = null;
let retries = 0;

// xterm.js 6 draws its styles with <style> elements and style attributes,
// which this page's Content-Security-Policy refuses (it allows no inline
// style). The CSSOM is outside the policy, so the same styles go in through
// it: a style element xterm.js makes is a stand-in whose text becomes a
// constructed style sheet of the document, and a style attribute it sets is
// set as the element's style.cssText. Nothing else on the page makes either.
function styleThroughCssom() {
  class AdoptedStyle extends HTMLElement {
    #sheet = new CSSStyleSheet();
    #text = "";
    get sheet() { return this.#sheet; }
    get textContent() { return this.#text; }
    set textContent(css) {
      this.#text = String(css);
      this.#sheet.replaceSync(this.#text);
    }
    get innerText() { return this.#text; }
    set innerText(css) { this.textContent = css; }
    connectedCallback() {
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, this.#sheet];
    }
    disconnectedCallback() {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== this.#sheet);
    }
  }
  customElements.define("quackbox-style", AdoptedStyle);
  const createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (name, options) {
    const wanted = String(name).toLowerCase() === "style" ? "quackbox-style" : name;
    return createElement.call(this, wanted, options);
  };
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === "style" && this.style) this.style.cssText = String(value);
    else setAttribute.call(this, name, value);
  };
}

function openStore() {
  // localStorage may be refused (a locked-down browser): keep the values for this visit only.
  try {
    const probe = "quackbox-probe";
    localStorage.setItem(probe, "1");
    localStorage.removeItem(probe);
    return localStorage;
  } catch (error) {
    const memory = new Map();
    return {
      getItem: (key) => (memory.has(key) ? memory.get(key) : null),
      setItem: (key, value) => memory.set(key, String(value)),
    };
  }
}

function playerId() {
  let id = store.getItem(KEYS.id);
  if (!/^[0-9a-f]{64}$/.test(id || "")) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    store.setItem(KEYS.id, id);
  }
  return id;
}

function say(text) {
  page.status.textContent = text;
}

function readerWanted() {
  if (params.get("reader") === "1") store.setItem(KEYS.reader, "1");
  return store.getItem(KEYS.reader) === "1";
}

function setReader(on) {
  store.setItem(KEYS.reader, on ? "1" : "0");
  page.reader.checked = on;
  if (term) term.options.screenReaderMode = on;
}

function openTerminal() {
  term = new Terminal({
    fontFamily: "monospace",
    fontSize: 15,
    cursorBlink: false,
    scrollback: 0,
    screenReaderMode: page.reader.checked,
    allowProposedApi: true, // term.unicode, where the width addon's table is chosen, is proposed API in xterm.js 6
  });
  fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  // Emoji and other wide characters take the cells the table's child gave them:
  // the child counts widths by the same Unicode table (see WEB.md), where
  // xterm.js's own older one would shift the rest of their row.
  term.loadAddon(new Unicode11Addon.Unicode11Addon());
  term.unicode.activeVersion = "11";
  term.open(page.terminal);
  fit.fit();
  const encoder = new TextEncoder();
  term.onData((data) => send(encoder.encode(data)));
  term.onBinary((data) => send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
  term.onResize(({ cols, rows }) => sendText({ resize: [cols, rows] }));
  window.addEventListener("resize", () => fit.fit());
}

function send(bytes) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  for (let at = 0; at < bytes.length; at += KEY_CHUNK) socket.send(bytes.subarray(at, at + KEY_CHUNK));
}

function sendText(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  page.again.hidden = true;
  page.watch.hidden = true;
  say(watching ? "Opening the table to watch…" : "Opening the table…");
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const opened = new WebSocket(`${scheme}//${location.host}/term`);
  socket = opened;
  opened.binaryType = "arraybuffer";
  opened.addEventListener("open", () => {
    opened.send(JSON.stringify({
      hello: 1,
      code: code,
      id: playerId(),
      name: store.getItem(KEYS.name) || "",
      watch: watching,
      cols: term.cols,
      rows: term.rows,
    }));
    fit.fit(); // after the hello: a size changed meanwhile goes as a resize
  });
  opened.addEventListener("message", (event) => {
    if (typeof event.data === "string") return; // the host sends no text
    if (retries) retries = 0;
    say(watching ? "Watching the table." : "At the table.");
    term.write(new Uint8Array(event.data));
  });
  opened.addEventListener("close", (event) => closed(opened, event));
  term.focus();
}

function closed(which, event) {
  if (which !== socket) return;
  socket = null;
  if (event.code === WRONG_CODE) {
    askForCode(event.reason);
    return;
  }
  if (event.code === LEFT || (event.code >= REFUSED && event.code < 5000)) {
    say(event.reason || "The table ended your session.");
    page.again.hidden = false;
    page.watch.hidden = watching || event.code === LEFT;
    return;
  }
  const reason = "The connection to the table was lost.";
  if (retries < RETRY_DELAYS.length) {
    const wait = RETRY_DELAYS[retries++];
    say(`${reason} Trying again in ${wait / 1000} s…`);
    setTimeout(connect, wait);
    return;
  }
  say(`${reason} Is the host still running?`);
  page.again.hidden = false;
}

function askForCode(why) {
  page.terminal.hidden = true;
  page.join.hidden = false;
  page.codeRow.hidden = false;
  page.code.required = true;
  page.code.value = "";
  document.getElementById("join-why").textContent = why || "Type the room code the host gave you.";
  say(why || "The room code is needed.");
  page.name.value = store.getItem(KEYS.name) || "";
  (page.name.value ? page.code : page.name).focus();
}

function joined(event) {
  event.preventDefault();
  const name = page.name.value.trim();
  if (!name) return;
  store.setItem(KEYS.name, name);
  if (!page.codeRow.hidden) {
    code = page.code.value.trim().toUpperCase();
    history.replaceState(null, "", `${location.pathname}${location.search}#${code}`);
  }
  page.join.hidden = true;
  page.terminal.hidden = false;
  if (!term) openTerminal();
  fit.fit();
  connect();
}

function start() {
  page.reader.checked = readerWanted();
  page.reader.addEventListener("change", () => setReader(page.reader.checked));
  page.join.addEventListener("submit", joined);
  page.again.addEventListener("click", () => {
    retries = 0;
    connect();
  });
  page.watch.addEventListener("click", () => {
    watching = true;
    retries = 0;
    connect();
  });
  const needName = !store.getItem(KEYS.name);
  if (needName || !code) {
    page.terminal.hidden = true;
    page.join.hidden = false;
    page.codeRow.hidden = Boolean(code);
    page.code.required = !code;
    say(needName ? "Who are you?" : "This link has no room code.");
    (needName ? page.name : page.code).focus();
    return;
  }
  openTerminal();
  connect();
}

start();
