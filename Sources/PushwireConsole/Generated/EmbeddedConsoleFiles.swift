// generated — do not edit. Source: Console/. Regenerate with Scripts/generate.

extension ConsoleFiles {
    /// Every file of Console/ by name.
    static let all: [String: ConsoleFile] = [
        "api.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// The console's one way to the server: Connect-style JSON calls on the HTTP door.
// The token lives in sessionStorage only (gone when the tab closes) and travels as
// `Authorization: Bearer`; no cookies are used, and `Content-Type: application/json` is not a
// "simple" content type, so another site cannot forge these requests without a CORS preflight.

const KEY = "pushwire.token";

/** The signed-in token, or null. */
export function token() { return sessionStorage.getItem(KEY); }
/** Keeps `value` for this tab's session. */
export function setToken(value) { sessionStorage.setItem(KEY, value); }
/** Forgets the token. */
export function clearToken() { sessionStorage.removeItem(KEY); }

/** A failed call: the server's `{code, message}` and the HTTP status. */
export class CallError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

/** Calls `Service/Method` with `body`; resolves to the reply, rejects with a CallError. */
export async function call(method, body = {}) {
  const headers = { "Content-Type": "application/json" };
  const current = token();
  if (current) headers.Authorization = `Bearer ${current}`;
  const response = await fetch(`/pushwire.v1.${method}`, {
    method: "POST", headers, body: JSON.stringify(body), credentials: "omit", cache: "no-store",
  });
  const text = await response.text();
  let reply = {};
  try { reply = text ? JSON.parse(text) : {}; } catch { reply = { code: "unknown", message: text }; }
  if (!response.ok) throw new CallError(response.status, reply.code || "unknown", reply.message || text);
  return reply;
}

"""#),
        "app.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// Sign-in and the pages an application token or the admin token can see.
import { call, token, setToken, clearToken } from "./api.js";
import { showCategories, setUpCategories } from "./categories.js";
import { setUpMessages } from "./messages.js";

const $ = (id) => document.getElementById(id);

async function showApplications() {
  $("applications").hidden = false;
  const reply = await call("Admin/ListApplications");
  const rows = $("application-rows");
  rows.replaceChildren();
  for (const app of reply.applications || []) {
    const row = document.createElement("tr");
    for (const value of [app.code, app.name, app.hasApnsKey ? "yes" : "no", app.categoriesVersion || "0"]) {
      const cell = document.createElement("td"); cell.textContent = value || ""; row.append(cell);
    }
    rows.append(row);
  }
}

/** Finds out what the stored token may do and shows that; returns false when it is refused. */
async function enter() {
  try {
    await showApplications();
    $("who").textContent = "Signed in with the admin token";
  } catch (error) {
    $("applications").hidden = true;
    if (error.status !== 401 && error.status !== 403) throw error;
    await showCategories();
    $("messages").hidden = false;
    $("who").textContent = "Signed in with an application token";
  }
  $("sign-in").hidden = true;
  $("sign-out").hidden = false;
}

function signedOut(message) {
  for (const id of ["applications", "categories", "category-form", "preview", "messages", "message-details"]) $(id).hidden = true;
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("who").textContent = "";
  $("sign-in-error").textContent = message || "";
}

document.addEventListener("DOMContentLoaded", () => {
  setUpCategories();
  setUpMessages();
  $("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken($("token").value.trim());
    $("token").value = "";
    try { await enter(); } catch (error) { clearToken(); signedOut(`Sign-in failed: ${error.message}`); }
  });
  $("sign-out").addEventListener("click", () => { clearToken(); signedOut(); });
  if (token()) enter().catch((error) => { clearToken(); signedOut(`Sign-in failed: ${error.message}`); });
});

"""#),
        "categories.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// The Categories page: the list, the editor with every button option, the rules checked as you
// type, the server's error when it disagrees, and the live previews.
import { call } from "./api.js";
import { categoryProblems } from "./rules.js";
import { renderPreviews } from "./preview.js";

const $ = (id) => document.getElementById(id);
let editing = null;  // {categoryId, name, buttons: [...]} while the editor is open

function newButton(id) {
  return { id, label: "", localizedLabels: [], destructive: false, startApplication: false,
    authenticationRequired: false, behavior: "BUTTON_BEHAVIOR_DEFAULT", textInputButtonTitle: "", textInputPlaceholder: "" };
}

/** A category from the server's JSON (defaults left out) in the editor's shape. */
function normalized(category) {
  return {
    categoryId: category.categoryId || 0, name: category.name || "",
    buttons: (category.buttons || []).map((b) => ({ ...newButton(b.id || 0), ...b, localizedLabels: b.localizedLabels || [] })),
  };
}

/** Loads and shows the categories and their version. */
export async function showCategories() {
  $("categories").hidden = false;
  const reply = await call("Categories/ListCategories");
  $("categories-version").textContent = reply.categoriesVersion || "0";
  const rows = $("category-rows");
  rows.replaceChildren();
  for (const category of (reply.categories || []).map(normalized)) {
    const row = document.createElement("tr");
    const name = document.createElement("td");
    name.textContent = category.name;
    if (category.name === "YesNo") {
      const tag = document.createElement("span");
      tag.className = "tag"; tag.textContent = "predefined";
      name.append(" ", tag);
    }
    const id = document.createElement("td"); id.textContent = String(category.categoryId);
    const labels = document.createElement("td"); labels.textContent = category.buttons.map((b) => b.label).join(" · ");
    const actions = document.createElement("td");
    const edit = document.createElement("button");
    edit.type = "button"; edit.textContent = "Edit"; edit.setAttribute("aria-label", `Edit ${category.name}`);
    edit.addEventListener("click", () => openEditor(category));
    const remove = document.createElement("button");
    remove.type = "button"; remove.textContent = "Delete"; remove.setAttribute("aria-label", `Delete ${category.name}`);
    remove.addEventListener("click", () => deleteCategory(category));
    actions.append(edit, remove);
    row.append(id, name, labels, actions);
    rows.append(row);
  }
}

async function deleteCategory(category) {
  if (!confirm(`Delete the category ${category.name}?`)) return;
  try {
    await call("Categories/DeleteCategory", { categoryId: category.categoryId });
    if (editing && editing.categoryId === category.categoryId) closeEditor();
  } catch (error) {
    $("server-error").textContent = `The server refused: ${error.message}`;
  }
  await showCategories();
}

function openEditor(category) {
  editing = structuredClone(category);
  $("category-form").hidden = false;
  $("preview").hidden = false;
  $("category-id").value = String(editing.categoryId);
  $("category-name").value = editing.name;
  $("server-error").textContent = "";
  drawButtons();
  $("category-name").focus();
}

function closeEditor() {
  editing = null;
  $("category-form").hidden = true;
  $("preview").hidden = true;
}

function field(labelText, input, id) {
  const wrapper = document.createElement("div");
  const label = document.createElement("label");
  label.htmlFor = id; label.textContent = labelText;
  input.id = id;
  if (input.type === "checkbox") { wrapper.append(input, " ", label); label.className = "inline"; }
  else wrapper.append(label, input);
  return wrapper;
}

function textInput(value, onInput) {
  const input = document.createElement("input");
  input.value = value;
  input.addEventListener("input", () => { onInput(input.value); changed(); });
  return input;
}

function checkbox(value, onChange) {
  const input = document.createElement("input");
  input.type = "checkbox"; input.checked = value;
  input.addEventListener("change", () => { onChange(input.checked); changed(); drawButtons(); });
  return input;
}

/** Rebuilds the button editors (after adding, removing, reordering or switching to text input). */
function drawButtons() {
  const list = $("buttons");
  list.replaceChildren();
  editing.buttons.forEach((button, index) => {
    const item = document.createElement("li");
    const p = `button-${index}`;
    item.setAttribute("aria-label", `Button ${index + 1}`);
    const id = textInput(String(button.id), (v) => { button.id = /^\d+$/.test(v) ? Number(v) : NaN; });
    id.inputMode = "numeric";
    item.append(field("Id", id, `${p}-id`), field("Label", textInput(button.label, (v) => { button.label = v; }), `${p}-label`));
    const translations = textInput(button.localizedLabels.map((l) => `${l.language}=${l.text}`).join("; "), (v) => {
      button.localizedLabels = v.split(";").map((s) => s.trim()).filter(Boolean).map((s) => {
        const at = s.indexOf("=");
        return at < 0 ? { language: s, text: "" } : { language: s.slice(0, at).trim(), text: s.slice(at + 1).trim() };
      });
    });
    item.append(field("Labels by language (de=Ja; fr=Oui)", translations, `${p}-labels`));
    item.append(field("Destructive (shown in red)", checkbox(button.destructive, (v) => { button.destructive = v; }), `${p}-destructive`));
    item.append(field("Opens the app (foreground)", checkbox(button.startApplication, (v) => { button.startApplication = v; }), `${p}-foreground`));
    item.append(field("Requires unlocking", checkbox(button.authenticationRequired, (v) => { button.authenticationRequired = v; }), `${p}-auth`));
    const isText = button.behavior === "BUTTON_BEHAVIOR_TEXT_INPUT";
    item.append(field("Text input", checkbox(isText, (v) => { button.behavior = v ? "BUTTON_BEHAVIOR_TEXT_INPUT" : "BUTTON_BEHAVIOR_DEFAULT"; }), `${p}-text`));
    if (isText) {
      item.append(field("Send button title", textInput(button.textInputButtonTitle, (v) => { button.textInputButtonTitle = v; }), `${p}-text-title`));
      item.append(field("Placeholder", textInput(button.textInputPlaceholder, (v) => { button.textInputPlaceholder = v; }), `${p}-text-placeholder`));
    }
    const remove = document.createElement("button");
    remove.type = "button"; remove.textContent = "Remove"; remove.setAttribute("aria-label", `Remove button ${index + 1}`);
    remove.addEventListener("click", () => { editing.buttons.splice(index, 1); drawButtons(); changed(); });
    item.append(remove);
    list.append(item);
  });
  changed();
}

/** After every edit: the rules and the previews. */
function changed() {
  editing.name = $("category-name").value;
  const problems = categoryProblems(editing);
  const list = $("rule-errors");
  list.replaceChildren(...problems.map((text) => { const li = document.createElement("li"); li.textContent = text; return li; }));
  $("add-button").disabled = editing.buttons.length >= 4;
  renderPreviews(editing);
}

async function save(event) {
  event.preventDefault();
  $("server-error").textContent = "";
  // Sent even when the local rules object to it, so the server's own message is shown when it disagrees.
  const category = { categoryId: editing.categoryId, name: editing.name, buttons: editing.buttons.map((b) => ({ ...b, id: Number.isFinite(b.id) ? b.id : 0 })) };
  try {
    const reply = await call("Categories/UpsertCategory", { category });
    editing = normalized(reply.category || category);
    $("category-id").value = String(editing.categoryId);
    drawButtons();  // the editors now edit the stored category's buttons
    $("server-error").textContent = "";
    $("categories-version").textContent = reply.categoriesVersion || "0";
    await showCategories();
  } catch (error) {
    $("server-error").textContent = `The server refused: ${error.message}`;
  }
}

/** Wires the page's fixed controls once. */
export function setUpCategories() {
  $("new-category").addEventListener("click", () => openEditor({ categoryId: 0, name: "", buttons: [newButton(1)] }));
  $("add-button").addEventListener("click", () => {
    const next = Math.max(0, ...editing.buttons.map((b) => (Number.isFinite(b.id) ? b.id : 0))) + 1;
    editing.buttons.push(newButton(next));
    drawButtons();
  });
  $("category-name").addEventListener("input", changed);
  $("cancel-edit").addEventListener("click", closeEditor);
  $("category-form").addEventListener("submit", save);
}

"""#),
        "console.css": ConsoleFile(contentType: "text/css; charset=utf-8", text: #"""
:root { font-family: system-ui, sans-serif; color: #111; background: #fafafa; }
body { margin: 0; }
.top { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #1d3557; color: #fff; }
.top h1 { font-size: 1.2rem; margin: 0; }
.top p { margin: 0; flex: 1; }
main { padding: 1rem; max-width: 70rem; }
table { border-collapse: collapse; margin: .5rem 0; }
th, td { border: 1px solid #bbb; padding: .25rem .5rem; text-align: left; }
caption { text-align: left; font-weight: 600; padding: .25rem 0; }
label { display: block; margin-top: .5rem; }
input[type=checkbox] + label, label.inline { display: inline; }
button { margin: .25rem .25rem .25rem 0; padding: .3rem .7rem; }
:focus-visible { outline: 3px solid #e76f00; outline-offset: 2px; }
.error { color: #a00000; }
.hint { color: #444; }
.tag { background: #1d3557; color: #fff; border-radius: .3rem; padding: 0 .3rem; font-size: .8rem; }
#buttons > li { border: 1px solid #ccc; padding: .5rem; margin: .5rem 0; background: #fff; }
.devices { display: flex; gap: 1.5rem; flex-wrap: wrap; }
figure { margin: 0; }
.ios, .android { width: 18rem; border-radius: 1rem; background: #e9e9ee; padding: .6rem; }
.android { border-radius: .3rem; background: #fff; box-shadow: 0 1px 4px #0004; }
.note-title { font-weight: 600; }
.actions { display: flex; flex-direction: column; margin-top: .5rem; }
.actions span { background: #fff; border-top: 1px solid #ccc; padding: .4rem; text-align: center; color: #0a60d0; }
.banner .actions { flex-direction: row; }
.banner .actions span { flex: 1; }
.android .actions { flex-direction: row; }
.android .actions span { border: 0; color: #1a73e8; text-transform: uppercase; font-size: .85rem; text-align: left; }
.actions span.destructive { color: #c00000; }

"""#),
        "index.html": ConsoleFile(contentType: "text/html; charset=utf-8", text: #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pushwire console</title>
<link rel="stylesheet" href="console.css">
<script type="module" src="app.js"></script>
</head>
<body>
<header class="top">
  <h1>Pushwire console</h1>
  <p id="who" aria-live="polite"></p>
  <button id="sign-out" type="button" hidden>Sign out</button>
</header>
<main id="main">
  <section id="sign-in" aria-labelledby="sign-in-title">
    <h2 id="sign-in-title">Sign in</h2>
    <form id="sign-in-form">
      <label for="token">Application access token or admin token</label>
      <input id="token" name="token" type="password" autocomplete="off" required>
      <button type="submit">Sign in</button>
      <p id="sign-in-error" class="error" role="alert"></p>
    </form>
    <p class="hint">The token is kept in this tab's session storage only and sent as
    <code>Authorization: Bearer</code>; closing the tab forgets it.</p>
  </section>

  <section id="applications" hidden aria-labelledby="applications-title">
    <h2 id="applications-title">Applications</h2>
    <table>
      <caption>Every application on this server (admin token)</caption>
      <thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">APNs key</th><th scope="col">Categories version</th></tr></thead>
      <tbody id="application-rows"></tbody>
    </table>
  </section>

  <section id="categories" hidden aria-labelledby="categories-title">
    <h2 id="categories-title">Categories</h2>
    <p>Categories version <output id="categories-version">–</output></p>
    <table>
      <caption>Button categories of this application</caption>
      <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Buttons</th><th scope="col">Actions</th></tr></thead>
      <tbody id="category-rows"></tbody>
    </table>
    <button id="new-category" type="button">New category</button>

    <form id="category-form" hidden aria-labelledby="editor-title">
      <h3 id="editor-title">Category</h3>
      <input type="hidden" id="category-id" value="0">
      <label for="category-name">Name</label>
      <input id="category-name" required>
      <fieldset>
        <legend>Buttons (1–4, in display order)</legend>
        <ol id="buttons"></ol>
        <button id="add-button" type="button">Add button</button>
      </fieldset>
      <ul id="rule-errors" class="error" role="alert" aria-label="Problems"></ul>
      <p id="server-error" class="error" role="alert"></p>
      <button id="save-category" type="submit">Save</button>
      <button id="cancel-edit" type="button">Close</button>
    </form>

    <section id="preview" hidden aria-labelledby="preview-title">
      <h3 id="preview-title">Preview</h3>
      <div class="devices">
        <figure>
          <figcaption>iPhone banner (first two buttons)</figcaption>
          <div class="ios banner" id="preview-banner" role="img" aria-label="iPhone banner preview"></div>
        </figure>
        <figure>
          <figcaption>iPhone expanded (up to four)</figcaption>
          <div class="ios expanded" id="preview-expanded" role="img" aria-label="iPhone expanded preview"></div>
        </figure>
        <figure>
          <figcaption>Android</figcaption>
          <div class="android" id="preview-android" role="img" aria-label="Android preview"></div>
        </figure>
      </div>
    </section>
  </section>

  <section id="messages" hidden aria-labelledby="messages-title">
    <h2 id="messages-title">Message</h2>
    <form id="message-form">
      <label for="message-code">Message code</label>
      <input id="message-code" required autocomplete="off">
      <button type="submit">Show</button>
    </form>
    <p id="message-error" class="error" role="alert"></p>
    <div id="message-details" hidden>
      <dl>
        <dt>Status</dt><dd id="message-status"></dd>
        <dt>Targeted / sent / failed</dt><dd id="message-progress"></dd>
        <dt>Invalid tokens</dt><dd id="message-invalid"></dd>
        <dt>Opened</dt><dd id="message-opened"></dd>
      </dl>
      <table><caption>Failures by reason</caption>
        <thead><tr><th scope="col">Reason</th><th scope="col">Count</th></tr></thead>
        <tbody id="message-failures"></tbody></table>
      <h3 id="taps-title">Taps per button</h3>
      <svg id="taps-chart" role="img" aria-labelledby="taps-title" width="480" height="40"></svg>
      <button id="cancel-message" type="button" hidden>Cancel this scheduled message</button>
    </div>
  </section>
</main>
</body>
</html>

"""#),
        "messages.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: ##"""
// A message's page: delivery progress (refreshed every second while it is scheduled or sending),
// failures by reason, opens, taps per button as an SVG bar chart, and cancelling a scheduled one.
// The API has no method to list messages yet, so a message is opened by its code.
import { call } from "./api.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let timer = null;
let shown = null;

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** Draws one bar per button, scaled to the largest count, with the label and count as text. */
function drawTaps(taps) {
  const chart = $("taps-chart");
  const row = 28;
  chart.replaceChildren();
  chart.setAttribute("height", String(Math.max(1, taps.length) * row + 4));
  if (taps.length === 0) { chart.append(svg("text", { x: 0, y: 18 }, "No taps yet")); return; }
  const most = Math.max(1, ...taps.map((t) => Number(t.count || 0)));
  taps.forEach((tap, index) => {
    const count = Number(tap.count || 0);
    const y = index * row + 2;
    const group = svg("g", { class: "bar", "data-button": tap.buttonId || 0 });
    group.append(svg("title", {}, `${tap.label || tap.buttonId}: ${count}`));
    group.append(svg("text", { x: 0, y: y + 17 }, tap.label || `button ${tap.buttonId || 0}`));
    group.append(svg("rect", { x: 140, y, height: row - 6, width: Math.round((count / most) * 280), fill: "#1d3557" }));
    group.append(svg("text", { x: 430, y: y + 17, class: "count" }, String(count)));
    chart.append(group);
  });
}

async function refresh() {
  try {
    const details = await call("Messages/GetMessageDetails", { messageCode: shown });
    $("message-error").textContent = "";
    $("message-details").hidden = false;
    const status = (details.status || "MESSAGE_STATUS_UNSPECIFIED").replace("MESSAGE_STATUS_", "").toLowerCase();
    $("message-status").textContent = status;
    $("message-progress").textContent = `${details.targeted || 0} / ${details.sent || 0} / ${details.failed || 0}`;
    $("message-invalid").textContent = String(details.invalidTokens || 0);
    $("message-opened").textContent = String(details.opened || 0);
    const failures = $("message-failures");
    failures.replaceChildren(...(details.failures || []).map((f) => {
      const tr = document.createElement("tr");
      for (const value of [f.reason, f.count]) { const td = document.createElement("td"); td.textContent = String(value || 0); tr.append(td); }
      return tr;
    }));
    drawTaps(details.taps || []);
    $("cancel-message").hidden = status !== "scheduled";
  } catch (error) {
    $("message-error").textContent = `The server refused: ${error.message}`;
    $("message-details").hidden = true;
  }
}

/** Wires the message form and the cancel button. */
export function setUpMessages() {
  $("message-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    shown = $("message-code").value.trim();
    clearInterval(timer);
    await refresh();
    // Once a second: progress while it fans out and taps as they are reported.
    timer = setInterval(() => { if (!$("messages").hidden && shown) refresh(); }, 1000);
  });
  $("cancel-message").addEventListener("click", async () => {
    if (!confirm("Cancel this scheduled message?")) return;
    try { await call("Messages/DeleteMessage", { messageCode: shown }); } catch (error) {
      $("message-error").textContent = `The server refused: ${error.message}`;
    }
    await refresh();
  });
}

"""##),
        "preview.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// How a notification with a category shows: the iPhone banner (the first two buttons), the
// expanded iPhone notification (up to four, destructive ones in red) and Android's (up to three).
// Built with DOM calls and textContent only, so labels can never inject markup.

function render(target, category, limit, title) {
  target.replaceChildren();
  const heading = document.createElement("div");
  heading.className = "note-title";
  heading.textContent = title;
  const body = document.createElement("div");
  body.textContent = "Your notification's text";
  const actions = document.createElement("div");
  actions.className = "actions";
  for (const button of category.buttons.slice(0, limit)) {
    const span = document.createElement("span");
    span.textContent = button.behavior === "BUTTON_BEHAVIOR_TEXT_INPUT"
      ? `${button.label || "…"} ✎` : (button.label || "…");
    if (button.destructive) span.classList.add("destructive");
    actions.append(span);
  }
  target.append(heading, body, actions);
}

/** Redraws the three previews of `category`. */
export function renderPreviews(category) {
  render(document.getElementById("preview-banner"), category, 2, "App name");
  render(document.getElementById("preview-expanded"), category, 4, "App name");
  render(document.getElementById("preview-android"), category, 3, "App name");
}

"""#),
        "rules.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// Apple's rules for a category's buttons, checked as the operator types. The server checks them
// again (and more); when it disagrees its own message is shown next to these.

/** The problems with `category` ({name, buttons}) as sentences; empty when it looks valid. */
export function categoryProblems(category) {
  const problems = [];
  if (!category.name.trim()) problems.push("The category needs a name.");
  const buttons = category.buttons;
  if (buttons.length < 1) problems.push("A category needs at least one button.");
  if (buttons.length > 4) problems.push(`A category has at most 4 buttons (this one has ${buttons.length}).`);
  const seen = new Set();
  buttons.forEach((button, index) => {
    const n = index + 1;
    if (!Number.isInteger(button.id) || button.id < 1) problems.push(`Button ${n}: the id must be a positive whole number.`);
    else if (seen.has(button.id)) problems.push(`Button ${n}: id ${button.id} is used by another button.`);
    seen.add(button.id);
    if (!button.label.trim()) problems.push(`Button ${n}: the label must not be empty.`);
    for (const localized of button.localizedLabels) {
      if (!localized.language.trim() || !localized.text.trim()) problems.push(`Button ${n}: each translation needs a language and a text.`);
    }
  });
  return problems;
}

"""#),
    ]
}
