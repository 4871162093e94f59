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
