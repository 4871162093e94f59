// Apple's rules for a category's buttons, checked as the operator types. The server checks them
// again (and more); when it disagrees its own message is shown next to these.

/** The problems with `category` ({name, buttons}) as sentences; empty when it looks valid. */
export function categoryProblems(category) {
  const problems = [];
  if (!category.name.trim()) problems.push("The category needs a name.");
  const buttons = category.buttons;
  if (buttons.length < 1) problems.push("A category needs at least one button.");
  if (buttons.length > 4) problems.push(`A category has at most 4 buttons (this one has ${buttons.length}).`);
  const seen = new Set();
  buttons.forEach((button, index) => {
    const n = index + 1;
    if (!Number.isInteger(button.id) || button.id < 1) problems.push(`Button ${n}: the id must be a positive whole number.`);
    else if (seen.has(button.id)) problems.push(`Button ${n}: id ${button.id} is used by another button.`);
    seen.add(button.id);
    if (!button.label.trim()) problems.push(`Button ${n}: the label must not be empty.`);
    for (const localized of button.localizedLabels) {
      if (!localized.language.trim() || !localized.text.trim()) problems.push(`Button ${n}: each translation needs a language and a text.`);
    }
  });
  return problems;
}
