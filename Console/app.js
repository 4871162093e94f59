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
