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
