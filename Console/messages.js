// The messages page: the list (Messages/ListMessages, newest first, by pages) and a message's
// page: delivery progress (refreshed every second), failures by reason, opens, taps per button
// as an SVG bar chart, and cancelling a scheduled one. A message opens from the list or by code.
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

// The list's pages: `tokens[i]` is the page token of page i (the first page's is "").
let tokens = [""];
let page = 0;

const statusName = (status) => (status || "MESSAGE_STATUS_UNSPECIFIED").replace("MESSAGE_STATUS_", "").toLowerCase();

/** Shows page `index` of the list (0: the newest messages). */
export async function showMessageList(index = 0) {
  try {
    const reply = await call("Messages/ListMessages", { pageSize: 20, pageToken: tokens[index] || "" });
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
      for (const value of [statusName(m.status), sendAt ? new Date(sendAt).toLocaleString() : "",
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
