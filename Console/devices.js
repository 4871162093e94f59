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
