// The browser door: the table drawn by xterm.js, its keys and size sent to
// the host over one websocket. The room code comes from the link's fragment
// (#KQXZ), which the browser never sends in a request; the player's id and
// name live in this browser's localStorage, so the same browser gets its
// seat back.
"use strict";

const KEYS = { id: "quackbox-id", name: "quackbox-name", reader: "quackbox-reader" };
// Closes the host uses for a sentence the player must act on: never retried.
const REFUSED = 4000;
const RETRY_DELAYS = [1000, 2000, 4000, 8000];

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
  reader: document.getElementById("reader"),
};

let code = decodeURIComponent(location.hash.slice(1)).trim().toUpperCase();
let term = null;
let fit = null;
let socket = null;
let retries = 0;

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
  });
  fit = new FitAddon.FitAddon();
  term.loadAddon(fit);
  term.open(page.terminal);
  fit.fit();
  term.onData((data) => send(new TextEncoder().encode(data)));
  term.onBinary((data) => send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
  term.onResize(({ cols, rows }) => sendText({ resize: [cols, rows] }));
  window.addEventListener("resize", () => fit.fit());
}

function send(bytes) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(bytes);
}

function sendText(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  page.again.hidden = true;
  say("Opening the table…");
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/term`);
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () => {
    fit.fit();
    socket.send(JSON.stringify({
      hello: 1,
      code: code,
      id: playerId(),
      name: store.getItem(KEYS.name) || "",
      watch: params.get("watch") === "1",
      cols: term.cols,
      rows: term.rows,
    }));
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data === "string") return; // nothing is sent as text yet
    if (retries) retries = 0;
    say("At the table.");
    term.write(new Uint8Array(event.data));
  });
  socket.addEventListener("close", (event) => closed(event));
  term.focus();
}

function closed(event) {
  socket = null;
  const reason = event.reason || "The connection to the table was lost.";
  if (event.code >= REFUSED && event.code < 5000) {
    say(reason);
    if (/room code/i.test(reason)) askForCode(reason);
    else page.again.hidden = false;
    return;
  }
  if (event.code === 1000) {
    say(reason);
    page.again.hidden = false;
    return;
  }
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
  document.getElementById("join-why").textContent = why;
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
