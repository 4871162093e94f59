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
