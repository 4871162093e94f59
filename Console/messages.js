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
