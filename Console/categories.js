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
