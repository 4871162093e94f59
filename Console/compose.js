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
