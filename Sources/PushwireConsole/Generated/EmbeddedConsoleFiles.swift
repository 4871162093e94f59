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
/** Forgets the token (and what kind it was). */
export function clearToken() { sessionStorage.removeItem(KEY); sessionStorage.removeItem(KIND); }

const KIND = "pushwire.kind";
/** "admin" or "application" once the server said which the token is; null before. */
export function tokenKind() { return sessionStorage.getItem(KIND); }
/** Remembers which kind the token is, so that a reload asks for its pages at once. */
export function setTokenKind(kind) { sessionStorage.setItem(KIND, kind); }

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
import { call, token, setToken, clearToken, tokenKind, setTokenKind } from "./api.js";
import { showCategories, setUpCategories } from "./categories.js";
import { setUpMessages, showMessageList, resetMessages } from "./messages.js";
import { setUpComposer, showComposer } from "./compose.js";
import { setUpDevices } from "./devices.js";
import { setUpApplications, showApplications } from "./applications.js";

const $ = (id) => document.getElementById(id);
const PAGES = ["applications", "application-form", "pages", "categories", "category-form", "preview", "messages", "message-details",
  "compose", "devices", "device-details"];

/** An application token's pages: categories, messages, composer and devices, loaded together. */
async function enterApplication() {
  // All three are asked for at once (the category list and the composer share one
  // ListCategories), but the messages list is drawn first, and the other pages are shown after
  // it: laying out and drawing them and the composer's previews while the list's answer came in
  // held the list up (Scripts/bench-console, docs/journal/2026-12-02-console-speed.md).
  for (const id of ["messages", "pages"]) $(id).hidden = false;
  const categories = call("Categories/ListCategories");
  categories.catch(() => {});  // awaited below; this only keeps an early failure from being "unhandled"
  await showMessageList(0);
  $("devices").hidden = false;
  await Promise.all([showCategories(categories), showComposer(categories)]);
  $("who").textContent = "Signed in with an application token";
}

/** Finds out what the stored token may do and shows that; throws when it is refused. A token
 * known to be an application's (a reload) skips the admin check, one round trip less. */
async function enter() {
  if (tokenKind() === "application") {
    await enterApplication();
  } else {
    try {
      await showApplications();
      setTokenKind("admin");
      $("who").textContent = "Signed in with the admin token";
    } catch (error) {
      $("applications").hidden = true;
      if (error.status !== 401 && error.status !== 403) throw error;
      await enterApplication();
      setTokenKind("application");
    }
  }
  $("sign-in").hidden = true;
  $("sign-out").hidden = false;
}

function signedOut(message) {
  for (const id of PAGES) $(id).hidden = true;
  resetMessages();
  $("new-token").textContent = "";
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("who").textContent = "";
  $("sign-in-error").textContent = message || "";
}

document.addEventListener("DOMContentLoaded", () => {
  setUpCategories();
  setUpMessages();
  setUpComposer();
  setUpDevices();
  setUpApplications();
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
        "applications.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// The admin token's page: every application, creating one, renaming it, rotating its access
// token, and its APNs and FCM settings. Keys are write-only: the server never returns them, so
// the editor shows what is stored (team, key id, topic; project and e-mail) and an empty field
// keeps the stored key.
import { call } from "./api.js";

const $ = (id) => document.getElementById(id);
let applications = [];
let editingCode = null;

/** Loads and shows the applications (throws a CallError when the token is not the admin's). */
export async function showApplications() {
  const reply = await call("Admin/ListApplications");
  $("applications").hidden = false;
  applications = reply.applications || [];
  const rows = $("application-rows");
  rows.replaceChildren();
  for (const app of applications) {
    const row = document.createElement("tr");
    const fcm = app.hasFcmCredentials ? `yes (${app.fcmProjectId || ""})` : "no";
    for (const value of [app.code, app.name, app.hasApnsKey ? "yes" : "no", fcm, app.categoriesVersion || "0"]) {
      const cell = document.createElement("td"); cell.textContent = value || ""; row.append(cell);
    }
    const actions = document.createElement("td");
    const edit = document.createElement("button");
    edit.type = "button"; edit.textContent = "Edit"; edit.setAttribute("aria-label", `Edit ${app.name}`);
    edit.addEventListener("click", () => openEditor(app));
    actions.append(edit);
    row.append(actions);
    rows.append(row);
  }
}

function openEditor(app) {
  editingCode = app ? app.code : null;
  $("application-form").hidden = false;
  $("application-code").textContent = app ? app.code : "(new)";
  $("application-name").value = app ? app.name || "" : "";
  const apns = (app && app.apns) || {};
  $("apns-team").value = apns.teamId || "";
  $("apns-key-id").value = apns.keyId || "";
  $("apns-topic").value = apns.topic || "";
  $("apns-environment").value = apns.environment === "APNS_ENVIRONMENT_PRODUCTION" ? "APNS_ENVIRONMENT_PRODUCTION" : "APNS_ENVIRONMENT_SANDBOX";
  $("apns-p8").value = "";
  $("fcm-json").value = "";
  $("apns-clear").checked = false;
  $("fcm-clear").checked = false;
  $("rotate-token").checked = false;
  $("rotate-token").disabled = !app;
  $("apns-current").textContent = app && app.hasApnsKey ? "A signing key is stored." : "No APNs key stored.";
  $("fcm-current").textContent = app && app.hasFcmCredentials
    ? `Stored: project ${app.fcmProjectId || ""}, ${app.fcmClientEmail || ""}` : "No FCM credentials stored.";
  $("application-error").textContent = "";
  $("application-name").focus();
}

/** The APNs settings the form asks for, or undefined when it asks for no change. */
function apnsSettings(current) {
  const settings = { teamId: $("apns-team").value.trim(), keyId: $("apns-key-id").value.trim(), topic: $("apns-topic").value.trim(),
    environment: $("apns-environment").value, privateKeyP8: $("apns-p8").value.trim() };
  const stored = (current && current.apns) || {};
  const same = settings.teamId === (stored.teamId || "") && settings.keyId === (stored.keyId || "") && settings.topic === (stored.topic || "")
    && settings.environment === (stored.environment || "APNS_ENVIRONMENT_SANDBOX");
  if (!settings.privateKeyP8 && (same || (!settings.teamId && !settings.keyId && !settings.topic))) return undefined;
  return settings;
}

async function save(event) {
  event.preventDefault();
  $("application-error").textContent = "";
  const current = applications.find((a) => a.code === editingCode);
  const apns = apnsSettings(current);
  const fcmJSON = $("fcm-json").value.trim();
  try {
    let reply;
    if (!current) {
      const request = { name: $("application-name").value.trim() };
      if (apns) request.apns = apns;
      if (fcmJSON) request.fcm = { serviceAccountJson: fcmJSON };
      reply = await call("Admin/CreateApplication", request);
    } else {
      const request = { application: current.code, name: $("application-name").value.trim(),
        clearApns: $("apns-clear").checked, clearFcm: $("fcm-clear").checked, rotateAccessToken: $("rotate-token").checked };
      if (apns && !request.clearApns) request.apns = apns;
      if (fcmJSON && !request.clearFcm) request.fcm = { serviceAccountJson: fcmJSON };
      reply = await call("Admin/UpdateApplication", request);
    }
    const app = reply.application || {};
    $("new-token").textContent = reply.accessToken
      ? `Access token of ${app.name} (${app.code}), shown only now — store it: ${reply.accessToken}` : `Saved ${app.name} (${app.code}).`;
    $("apns-p8").value = "";
    $("fcm-json").value = "";
    await showApplications();
    openEditor(applications.find((a) => a.code === app.code) || null);
  } catch (error) {
    $("application-error").textContent = `The server refused: ${error.message}`;
  }
}

/** Wires the page's fixed controls once. */
export function setUpApplications() {
  $("new-application").addEventListener("click", () => openEditor(null));
  $("close-application").addEventListener("click", () => { $("application-form").hidden = true; editingCode = null; });
  $("application-form").addEventListener("submit", save);
}

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
export async function showCategories(listed) {
  $("categories").hidden = false;
  // `listed`: a ListCategories answer already asked for (the page's first load shares one with the composer).
  const reply = await (listed || call("Categories/ListCategories"));
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
        "compose.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// The composer: a notification's content, translations, category (with its preview), badge,
// sound, custom data, targeting and send time. The server renders the APNs payload
// (Messages/PreviewNotification, the sending path's own renderer and checks) and counts the
// devices the targeting matches (Messages/CountTargets, the fan-out's own selection); nothing
// about the payload is computed here, so what is shown is what will be sent.
import { call } from "./api.js";
import { renderPreviews } from "./preview.js";
import { openMessage, showMessageList } from "./messages.js";

const $ = (id) => document.getElementById(id);
let categories = [];
let previewTimer = null;
let countTimer = null;
let previewRun = 0;
let countRun = 0;

const list = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

/** A tag condition's value: a whole number, true/false, or a string. */
function tagValue(text) {
  if (/^-?\d+$/.test(text)) return { intValue: text };
  if (text === "true" || text === "false") return { boolValue: text === "true" };
  return { stringValue: text };
}

const OPERATORS = { "=": "CONDITION_OPERATOR_EQ", "in": "CONDITION_OPERATOR_IN", ">=": "CONDITION_OPERATOR_GTE",
  "<=": "CONDITION_OPERATOR_LTE", "between": "CONDITION_OPERATOR_BETWEEN" };

/** `plan = pro`, `plan in pro, team`, `age >= 18`, `age between 18, 65`; throws on a line it cannot read. */
function conditions(text) {
  return text.split("\n").map((l) => l.trim()).filter(Boolean).map((line) => {
    const match = /^(\S+)\s*(=|>=|<=|\bin\b|\bbetween\b)\s*(.+)$/i.exec(line);
    if (!match) throw new Error(`Tag condition "${line}": write it as tag = value, tag in a, b, tag >= n, tag <= n or tag between a, b`);
    return { tag: match[1], operator: OPERATORS[match[2].toLowerCase()], values: list(match[3]).map(tagValue) };
  });
}

/** `de: text | title | subtitle` lines as the three localized lists. */
function translations(text) {
  const content = [], titles = [], subtitles = [];
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf(":");
    if (at < 1) throw new Error(`Translation "${line}": write it as language: text | title | subtitle`);
    const language = line.slice(0, at).trim();
    const [body, title, subtitle] = line.slice(at + 1).split("|").map((s) => s.trim());
    if (body) content.push({ language, text: body });
    if (title) titles.push({ language, text: title });
    if (subtitle) subtitles.push({ language, text: subtitle });
  }
  return { content, titles, subtitles };
}

function targeting() {
  const platforms = ["compose-ios", "compose-android", "compose-mac"].filter((id) => $(id).checked).map((id) => $(id).value);
  return { devices: list($("compose-devices").value), userIds: list($("compose-users").value), platforms,
    conditions: conditions($("compose-conditions").value) };
}

/** The notification the form describes, in the API's JSON; throws with a sentence on bad input. */
function notification() {
  const t = translations($("compose-translations").value);
  const n = { content: $("compose-content").value, title: $("compose-title-text").value, subtitle: $("compose-subtitle").value,
    localizedContent: t.content, localizedTitle: t.titles, localizedSubtitle: t.subtitles,
    iosCategoryId: Number($("compose-category").value), iosSound: $("compose-sound").value,
    trimToFit: $("compose-trim").checked, targeting: targeting() };
  const data = $("compose-data").value.trim();
  if (data) {
    let parsed;
    try { parsed = JSON.parse(data); } catch (error) { throw new Error(`Custom data is not JSON: ${error.message}`); }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("Custom data must be a JSON object, e.g. {\"order\": 42}");
    n.data = data;
  }
  const mode = $("compose-badge-mode").value;
  if (mode) {
    const value = $("compose-badge").value.trim();
    if (!/^-?\d+$/.test(value) || (mode === "set" && value.startsWith("-"))) throw new Error("The badge must be a whole number (0 or more to set it)");
    n.iosBadge = mode === "set" ? { set: Number(value) } : { increment: Number(value) };
  }
  if ($("compose-later").checked) {
    const at = $("compose-at").value;
    if (!at) throw new Error("Choose a send time, or send now");
    n.sendAtMs = String(new Date(at).getTime());
  }
  return n;
}

function showCategoryPreview() {
  const category = categories.find((c) => (c.categoryId || 0) === Number($("compose-category").value));
  renderPreviews({ buttons: category ? category.buttons || [] : [] }, "compose-preview",
    $("compose-title-text").value || "App name", $("compose-content").value);
}

/** Asks the server to check and render the notification; shows its payloads and the size meter. */
async function preview() {
  const run = ++previewRun;
  let n;
  $("compose-data-error").textContent = "";
  try { n = notification(); } catch (error) {
    (error.message.startsWith("Custom data") ? $("compose-data-error") : $("compose-error")).textContent = error.message;
    return;
  }
  if (!n.content) {
    // Nothing to render yet: CreateMessage would refuse an empty body, so say what is missing instead.
    $("compose-error").textContent = "";
    $("compose-meter").value = 0;
    $("compose-size").textContent = "write the text to see the payload";
    $("compose-payloads").replaceChildren();
    return;
  }
  try {
    const reply = await call("Messages/PreviewNotification", { notification: { ...n, sendAtMs: undefined } });
    if (run !== previewRun) return;  // a later edit's answer is on its way
    $("compose-error").textContent = "";
    const payloads = reply.payloads || [];
    const largest = payloads.reduce((a, p) => (Number(p.worstCaseSize || 0) > Number(a.worstCaseSize || 0) ? p : a), payloads[0] || {});
    const limit = Number(reply.limit || 4096);
    $("compose-meter").max = limit;
    $("compose-meter").value = Number(largest.worstCaseSize || 0);
    $("compose-size").textContent = `${largest.worstCaseSize || 0} of ${limit} bytes (${largest.language || "default language"})`;
    $("compose-payloads").replaceChildren(...payloads.map((p) => {
      const figure = document.createElement("figure");
      const caption = document.createElement("figcaption");
      caption.textContent = `${p.language || "Default language"}: ${p.size || 0} bytes${p.trimmed ? ", body trimmed to fit" : ""}`;
      const pre = document.createElement("pre");
      pre.className = "payload"; pre.dataset.language = p.language || "";
      pre.textContent = p.apnsPayload || "";
      figure.append(caption, pre);
      return figure;
    }));
  } catch (error) {
    if (run !== previewRun) return;
    $("compose-error").textContent = `The server refused: ${error.message}`;
    $("compose-meter").value = 0;
    $("compose-size").textContent = "–";
    $("compose-payloads").replaceChildren();
  }
}

async function count() {
  const run = ++countRun;
  let t;
  try { t = targeting(); } catch (error) { $("compose-count").textContent = error.message; return; }
  try {
    const reply = await call("Messages/CountTargets", { targeting: t });
    if (run !== countRun) return;
    $("compose-count").textContent = `${reply.atLeast ? "at least " : ""}${reply.devices || 0}`;
  } catch (error) {
    if (run === countRun) $("compose-count").textContent = `The server refused: ${error.message}`;
  }
}

function changed(event) {
  showCategoryPreview();
  clearTimeout(previewTimer);
  previewTimer = setTimeout(preview, 200);
  if (!event || /compose-(devices|users|ios|android|mac|conditions)/.test(event.target.id)) {
    clearTimeout(countTimer);
    countTimer = setTimeout(count, 300);
  }
}

/** Loads the categories into the composer and draws its preview, payload and count. */
export async function showComposer(listed) {
  $("compose").hidden = false;
  // `listed`: a ListCategories answer already asked for (the page's first load shares one with the category list).
  const reply = await (listed || call("Categories/ListCategories"));
  categories = reply.categories || [];
  const select = $("compose-category");
  const chosen = select.value;
  select.replaceChildren(new Option("None", "0"), ...categories.map((c) => new Option(`${c.name} (${c.categoryId})`, String(c.categoryId))));
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
  changed();
}

async function send(event) {
  event.preventDefault();
  $("compose-sent").textContent = "";
  let n;
  try { n = notification(); } catch (error) { $("compose-error").textContent = error.message; return; }
  $("compose-send").disabled = true;
  try {
    const reply = await call("Messages/CreateMessage", { notifications: [n] });
    const code = (reply.messageCodes || [])[0];
    const unknown = reply.unknownDevices || [];
    const tokenless = reply.tokenlessDevices || [];
    $("compose-error").textContent = "";
    $("compose-sent").textContent = `Created message ${code}${unknown.length ? `; unknown devices: ${unknown.join(", ")}` : ""}` +
      `${tokenless.length ? `; devices without a push token (not targeted): ${tokenless.join(", ")}` : ""}`;
    await showMessageList(0);
    await openMessage(code);
  } catch (error) {
    $("compose-error").textContent = `The server refused: ${error.message}`;
  } finally {
    $("compose-send").disabled = false;
  }
}

/** Wires the composer's controls once. */
export function setUpComposer() {
  $("compose-form").addEventListener("input", changed);
  $("compose-form").addEventListener("change", changed);
  $("compose-form").addEventListener("submit", send);
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
nav { margin-bottom: 1rem; }
a { color: #0a4fa8; }
button.link { background: none; border: 0; padding: 0; margin: 0; color: #0a4fa8; text-decoration: underline; cursor: pointer; font: inherit; }
textarea { width: 100%; max-width: 40rem; font-family: ui-monospace, monospace; }
fieldset { margin: .75rem 0; border: 1px solid #bbb; }
meter { width: 16rem; }
pre.payload { background: #fff; border: 1px solid #bbb; padding: .5rem; white-space: pre-wrap; word-break: break-all; max-width: 60rem; }
section > section { margin-top: 1rem; }
#devices, #compose, #messages { border-top: 2px solid #1d3557; margin-top: 1.5rem; }

"""#),
        "devices.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: #"""
// Device lookup by hwid (Messages/GetDevice): platform, language, user, tags and whether the
// fan-out reaches it (its token live, dead or invalid as the push service answered and since
// when, or missing).
import { call } from "./api.js";

const $ = (id) => document.getElementById(id);

const PLATFORMS = { DEVICE_TYPE_IOS: "iOS", DEVICE_TYPE_ANDROID: "Android", DEVICE_TYPE_MACOS: "macOS", DEVICE_TYPE_SAFARI: "Safari" };
const TOKEN_STATES = {
  TOKEN_STATE_LIVE: "live: targeted",
  TOKEN_STATE_DEAD: "dead: no longer valid, the push service said",
  TOKEN_STATE_INVALID: "invalid: never valid for this app, the push service said",
  TOKEN_STATE_NO_TOKEN: "none: not targeted",
};

/** The token state's text; a refused token says since when and that a new token revives it. */
function tokenText(d) {
  const text = TOKEN_STATES[d.tokenState] || d.tokenState || "";
  if (d.tokenState !== "TOKEN_STATE_DEAD" && d.tokenState !== "TOKEN_STATE_INVALID") return text;
  // int64 fields come as strings in proto3 JSON; 0 (absent) is a refusal from before the time was kept.
  const since = Number(d.tokenRefusedAtMs || 0);
  const when = since > 0 ? ` (since ${new Date(since).toISOString()})` : " (since an unknown time)";
  return `${text}${when}; not targeted until the device registers a new token`;
}

function tagText(tag) {
  const v = tag.value || {};
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return String(v.intValue);
  if ("boolValue" in v) return String(v.boolValue);
  if ("dateValue" in v) return new Date(Number(v.dateValue) * 1000).toISOString();
  if ("listValue" in v) return (v.listValue.values || []).join(", ");
  return "";
}

async function lookUp(event) {
  event.preventDefault();
  try {
    const d = await call("Messages/GetDevice", { hwid: $("device-hwid").value.trim() });
    $("device-error").textContent = "";
    $("device-platform").textContent = PLATFORMS[d.deviceType] || d.deviceType || "unknown";
    $("device-language").textContent = d.language || "unknown";
    $("device-user").textContent = d.userId || "none";
    $("device-token").textContent = tokenText(d);
    $("device-token").dataset.state = (d.tokenState || "").replace("TOKEN_STATE_", "").toLowerCase();
    $("device-badge").textContent = String(d.badge || 0);
    $("device-tags").replaceChildren(...(d.tags || []).map((tag) => {
      const li = document.createElement("li"); li.textContent = `${tag.name} = ${tagText(tag)}`; return li;
    }));
    $("device-details").dataset.hwid = d.hwid || "";
    $("device-details").hidden = false;
  } catch (error) {
    $("device-error").textContent = `The server refused: ${error.message}`;
    $("device-details").hidden = true;
  }
}

/** Wires the lookup form once. */
export function setUpDevices() {
  $("device-form").addEventListener("submit", lookUp);
}

"""#),
        "index.html": ConsoleFile(contentType: "text/html; charset=utf-8", text: ##"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pushwire console</title>
<link rel="stylesheet" href="console.css">
<script type="module" src="app.js"></script>
<!-- Fetched with app.js instead of after it has been parsed: one round trip less before the pages load. -->
<link rel="modulepreload" href="api.js">
<link rel="modulepreload" href="categories.js">
<link rel="modulepreload" href="messages.js">
<link rel="modulepreload" href="compose.js">
<link rel="modulepreload" href="devices.js">
<link rel="modulepreload" href="applications.js">
<link rel="modulepreload" href="preview.js">
<link rel="modulepreload" href="rules.js">
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

  <nav id="pages" hidden aria-label="Pages">
    <a href="#categories">Categories</a> · <a href="#messages">Messages</a> · <a href="#compose">Compose</a> · <a href="#devices">Devices</a>
  </nav>

  <section id="applications" hidden aria-labelledby="applications-title">
    <h2 id="applications-title">Applications</h2>
    <table>
      <caption>Every application on this server (admin token)</caption>
      <thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">APNs key</th><th scope="col">FCM</th><th scope="col">Categories version</th><th scope="col">Actions</th></tr></thead>
      <tbody id="application-rows"></tbody>
    </table>
    <button id="new-application" type="button">New application</button>
    <p id="new-token" role="status" aria-live="polite"></p>

    <form id="application-form" hidden aria-labelledby="application-editor-title">
      <h3 id="application-editor-title">Application</h3>
      <p>Code <output id="application-code"></output></p>
      <label for="application-name">Name</label>
      <input id="application-name" autocomplete="off">
      <fieldset>
        <legend>APNs (token authentication)</legend>
        <p id="apns-current" class="hint"></p>
        <label for="apns-team">Team id</label><input id="apns-team" autocomplete="off" maxlength="10">
        <label for="apns-key-id">Key id</label><input id="apns-key-id" autocomplete="off" maxlength="10">
        <label for="apns-topic">Topic (bundle id)</label><input id="apns-topic" autocomplete="off">
        <label for="apns-environment">Environment</label>
        <select id="apns-environment"><option value="APNS_ENVIRONMENT_SANDBOX">Sandbox</option><option value="APNS_ENVIRONMENT_PRODUCTION">Production</option></select>
        <label for="apns-p8">Signing key (.p8, PEM); never shown back — leave empty to keep the stored one</label>
        <textarea id="apns-p8" rows="4" autocomplete="off"></textarea>
        <div><input type="checkbox" id="apns-clear"> <label class="inline" for="apns-clear">Remove the APNs settings</label></div>
      </fieldset>
      <fieldset>
        <legend>FCM</legend>
        <p id="fcm-current" class="hint"></p>
        <label for="fcm-json">Service account key (JSON); never shown back — leave empty to keep the stored one</label>
        <textarea id="fcm-json" rows="4" autocomplete="off"></textarea>
        <div><input type="checkbox" id="fcm-clear"> <label class="inline" for="fcm-clear">Remove the FCM settings</label></div>
      </fieldset>
      <div><input type="checkbox" id="rotate-token"> <label class="inline" for="rotate-token">Issue a new access token (the old one stops working at once)</label></div>
      <p id="application-error" class="error" role="alert"></p>
      <button id="save-application" type="submit">Save</button>
      <button id="close-application" type="button">Close</button>
    </form>
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
    <h2 id="messages-title">Messages</h2>
    <table>
      <caption>Messages of this application, newest first</caption>
      <thead><tr><th scope="col">Code</th><th scope="col">Status</th><th scope="col">Send time (UTC)</th><th scope="col">Category</th><th scope="col">Targeted / sent / failed</th></tr></thead>
      <tbody id="message-rows"></tbody>
    </table>
    <p><button id="newer-messages" type="button" disabled>Newer</button>
    <button id="older-messages" type="button" disabled>Older</button>
    <output id="message-page">page 1</output></p>
    <p id="list-error" class="error" role="alert"></p>
    <h3 id="message-title">A message</h3>
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
        <dt>Dead or invalid tokens</dt><dd id="message-invalid"></dd>
        <dt>Opened</dt><dd id="message-opened"></dd>
      </dl>
      <table><caption>Failures by reason</caption>
        <thead><tr><th scope="col">Reason</th><th scope="col">Count</th></tr></thead>
        <tbody id="message-failures"></tbody></table>
      <h3 id="taps-title">Taps per button</h3>
      <svg id="taps-chart" role="img" aria-labelledby="taps-title" width="480" height="40"></svg>
      <h3 id="taps-time-title">Taps over time (per minute, UTC)</h3>
      <svg id="taps-time-chart" role="img" aria-labelledby="taps-time-title" width="480" height="120"></svg>
      <button id="cancel-message" type="button" hidden>Cancel this scheduled message</button>
    </div>
  </section>

  <section id="compose" hidden aria-labelledby="compose-title">
    <h2 id="compose-title">Compose</h2>
    <form id="compose-form">
      <fieldset>
        <legend>Content</legend>
        <label for="compose-content">Text</label><textarea id="compose-content" rows="3"></textarea>
        <label for="compose-title-text">Title</label><input id="compose-title-text" autocomplete="off">
        <label for="compose-subtitle">Subtitle</label><input id="compose-subtitle" autocomplete="off">
        <label for="compose-translations">Translations, one language a line: <code>de: text | title | subtitle</code> (title and subtitle optional)</label>
        <textarea id="compose-translations" rows="3"></textarea>
      </fieldset>
      <fieldset>
        <legend>Options</legend>
        <label for="compose-category">Category</label><select id="compose-category"><option value="0">None</option></select>
        <label for="compose-badge-mode">Badge</label>
        <select id="compose-badge-mode"><option value="">Leave alone</option><option value="set">Set to</option><option value="increment">Add</option></select>
        <label for="compose-badge">Badge number</label><input id="compose-badge" inputmode="numeric" value="0">
        <label for="compose-sound">Sound</label><input id="compose-sound" autocomplete="off" placeholder="default">
        <label for="compose-data">Custom data (a JSON object)</label><textarea id="compose-data" rows="2" placeholder='{"order": 42}'></textarea>
        <p id="compose-data-error" class="error" role="alert"></p>
        <div><input type="checkbox" id="compose-trim"> <label class="inline" for="compose-trim">Trim the text to fit (<code>trim_to_fit</code>)</label></div>
      </fieldset>
      <fieldset>
        <legend>Targeting (all selectors must hold; none: every device)</legend>
        <label for="compose-devices">Devices (hwids, comma-separated)</label><input id="compose-devices" autocomplete="off">
        <label for="compose-users">Users (user ids, comma-separated)</label><input id="compose-users" autocomplete="off">
        <div role="group" aria-label="Platforms">
          <input type="checkbox" id="compose-ios" value="DEVICE_TYPE_IOS"> <label class="inline" for="compose-ios">iOS</label>
          <input type="checkbox" id="compose-android" value="DEVICE_TYPE_ANDROID"> <label class="inline" for="compose-android">Android</label>
          <input type="checkbox" id="compose-mac" value="DEVICE_TYPE_MACOS"> <label class="inline" for="compose-mac">macOS</label>
        </div>
        <label for="compose-conditions">Tag conditions, one a line: <code>plan = pro</code>, <code>plan in pro, team</code>, <code>age &gt;= 18</code>, <code>age &lt;= 65</code>, <code>age between 18, 65</code>, <code>beta = true</code></label>
        <textarea id="compose-conditions" rows="2"></textarea>
        <p>Devices it matches now: <output id="compose-count" aria-live="polite">–</output></p>
      </fieldset>
      <fieldset>
        <legend>When</legend>
        <div><input type="radio" name="when" id="compose-now" value="now" checked> <label class="inline" for="compose-now">Send now</label></div>
        <div><input type="radio" name="when" id="compose-later" value="later"> <label class="inline" for="compose-later">Schedule at (your local time)</label></div>
        <label for="compose-at">Send time</label><input id="compose-at" type="datetime-local">
      </fieldset>
      <p><label class="inline" for="compose-meter">Payload size (longest language) against APNs' 4096 bytes</label>
      <meter id="compose-meter" min="0" max="4096" low="3500" high="4000" optimum="0" value="0"></meter>
      <output id="compose-size">–</output></p>
      <p id="compose-error" class="error" role="alert"></p>
      <button id="compose-send" type="submit">Send</button>
      <p id="compose-sent" role="status" aria-live="polite"></p>
    </form>
    <section aria-labelledby="compose-preview-title">
      <h3 id="compose-preview-title">Preview</h3>
      <div class="devices">
        <figure><figcaption>iPhone banner</figcaption><div class="ios banner" id="compose-preview-banner" role="img" aria-label="iPhone banner preview"></div></figure>
        <figure><figcaption>iPhone expanded</figcaption><div class="ios expanded" id="compose-preview-expanded" role="img" aria-label="iPhone expanded preview"></div></figure>
        <figure><figcaption>Android</figcaption><div class="android" id="compose-preview-android" role="img" aria-label="Android preview"></div></figure>
      </div>
      <h3 id="payload-title">APNs payload as it will be sent (rendered by the server)</h3>
      <div id="compose-payloads" aria-labelledby="payload-title"></div>
    </section>
  </section>

  <section id="devices" hidden aria-labelledby="devices-title">
    <h2 id="devices-title">Devices</h2>
    <form id="device-form">
      <label for="device-hwid">Hardware id (hwid)</label>
      <input id="device-hwid" required autocomplete="off">
      <button type="submit">Look up</button>
    </form>
    <p id="device-error" class="error" role="alert"></p>
    <dl id="device-details" hidden>
      <dt>Platform</dt><dd id="device-platform"></dd>
      <dt>Language</dt><dd id="device-language"></dd>
      <dt>User id</dt><dd id="device-user"></dd>
      <dt>Token</dt><dd id="device-token"></dd>
      <dt>Badge</dt><dd id="device-badge"></dd>
      <dt>Tags</dt><dd><ul id="device-tags"></ul></dd>
    </dl>
  </section>
</main>
</body>
</html>

"""##),
        "messages.js": ConsoleFile(contentType: "text/javascript; charset=utf-8", text: ##"""
// The messages page: the list (Messages/ListMessages, newest first, by pages) and a message's
// page: delivery progress (refreshed every second), failures by reason, opens, taps per button
// as an SVG bar chart, button taps per minute as an SVG column chart, and cancelling a scheduled one. A message opens from the list or by code.
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

const clock = (ms) => new Date(ms).toISOString().slice(11, 16);

/** Draws the button taps per minute as columns on a time axis from the first minute with taps
 * to the last (`taps_over_time`: minutes without taps are absent, so they stay empty here). */
function drawTapsOverTime(minutes) {
  const chart = $("taps-time-chart");
  const width = 480, height = 120, base = 96, left = 4, span = width - 2 * left;
  chart.replaceChildren();
  if (minutes.length === 0) { chart.append(svg("text", { x: 0, y: 18 }, "No taps yet")); return; }
  const points = minutes.map((m) => ({ at: Number(m.minuteMs || 0), taps: Number(m.taps || 0) }));
  const first = points[0].at, last = points[points.length - 1].at;
  const slots = Math.max(1, (last - first) / 60000 + 1);
  const column = Math.max(2, Math.floor(span / slots) - 1);
  const most = Math.max(1, ...points.map((p) => p.taps));
  chart.append(svg("line", { x1: left, y1: base, x2: width - left, y2: base, stroke: "#555" }));
  for (const point of points) {
    const x = left + Math.floor(((point.at - first) / 60000) * (span / slots));
    const h = Math.max(1, Math.round((point.taps / most) * (base - 8)));
    const group = svg("g", { class: "minute", "data-minute-ms": point.at, "data-taps": point.taps });
    group.append(svg("title", {}, `${clock(point.at)} UTC: ${point.taps} taps`));
    group.append(svg("rect", { x, y: base - h, width: column, height: h, fill: "#1d3557" }));
    chart.append(group);
  }
  const total = points.reduce((sum, p) => sum + p.taps, 0);
  chart.append(svg("text", { x: left, y: base + 18, class: "total" },
    `${total} taps, ${clock(first)}–${clock(last + 60000)} UTC, at most ${most} a minute`));
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
    drawTapsOverTime(details.tapsOverTime || []);
    $("cancel-message").hidden = status !== "scheduled";
  } catch (error) {
    $("message-error").textContent = `The server refused: ${error.message}`;
    $("message-details").hidden = true;
  }
}

// The list's pages: `tokens[i]` is the page token of page i (the first page's is "").
let tokens = [""];
let page = 0;

/** `ms` as "2026-12-02 04:30:00", UTC. Not toLocaleString: a page's first call loads the ICU
 * locale data, 40–340 ms on the loaded test machine, which was most of the list's first draw. */
const utcTime = (ms) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

const statusName = (status) => (status || "MESSAGE_STATUS_UNSPECIFIED").replace("MESSAGE_STATUS_", "").toLowerCase();

/** Shows page `index` of the list (0: the newest messages). */
export async function showMessageList(index = 0) {
  try {
    const reply = await call("Messages/ListMessages", { pageSize: 20, pageToken: tokens[index] || "" });
    performance.mark("pushwire:messages-answered");
    page = index;
    tokens.length = index + 1;
    if (reply.nextPageToken) tokens.push(reply.nextPageToken);
    $("list-error").textContent = "";
    const rows = (reply.messages || []).map((m) => {
      const tr = document.createElement("tr");
      const codeCell = document.createElement("td");
      const open = document.createElement("button");
      open.type = "button"; open.className = "link"; open.textContent = m.messageCode;
      open.setAttribute("aria-label", `Open message ${m.messageCode}`);
      open.addEventListener("click", () => openMessage(m.messageCode));
      codeCell.append(open);
      tr.append(codeCell);
      const sendAt = Number(m.sendAtMs || 0);
      for (const value of [statusName(m.status), sendAt ? utcTime(sendAt) : "",
        m.iosCategoryId ? String(m.iosCategoryId) : "none", `${m.targeted || 0} / ${m.sent || 0} / ${m.failed || 0}`]) {
        const td = document.createElement("td"); td.textContent = value; tr.append(td);
      }
      return tr;
    });
    $("message-rows").replaceChildren(...rows);
    $("newer-messages").disabled = page === 0;
    $("older-messages").disabled = tokens.length <= page + 1;
    $("message-page").textContent = rows.length ? `page ${page + 1}` : "no messages yet";
    // Scripts/bench-console times the page by this mark: the list drawn and its buttons usable.
    performance.mark("pushwire:messages-listed");
  } catch (error) {
    $("list-error").textContent = `The server refused: ${error.message}`;
  }
}

/** Opens the page of message `code`, refreshed once a second. */
export async function openMessage(code) {
  shown = code;
  $("message-code").value = code;
  clearInterval(timer);
  await refresh();
  // Once a second: progress while it fans out and taps as they are reported.
  timer = setInterval(() => { if (!$("messages").hidden && shown) refresh(); }, 1000);
}

/** Forgets the list's pages and the open message (on sign-out). */
export function resetMessages() {
  clearInterval(timer);
  shown = null; tokens = [""]; page = 0;
  $("message-rows").replaceChildren();
}

/** Wires the list's buttons, the message form and the cancel button. */
export function setUpMessages() {
  $("newer-messages").addEventListener("click", () => showMessageList(Math.max(0, page - 1)));
  $("older-messages").addEventListener("click", () => showMessageList(page + 1));
  $("message-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await openMessage($("message-code").value.trim());
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

function render(target, category, limit, title, text) {
  target.replaceChildren();
  const heading = document.createElement("div");
  heading.className = "note-title";
  heading.textContent = title;
  const body = document.createElement("div");
  body.textContent = text || "Your notification's text";
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

/** Redraws the three previews of `category` in the elements `<prefix>-banner`, `-expanded` and
 * `-android` (the category editor's, or the composer's with its title and text). */
export function renderPreviews(category, prefix = "preview", title = "App name", text = "") {
  render(document.getElementById(`${prefix}-banner`), category, 2, title, text);
  render(document.getElementById(`${prefix}-expanded`), category, 4, title, text);
  render(document.getElementById(`${prefix}-android`), category, 3, title, text);
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
