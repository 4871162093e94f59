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
