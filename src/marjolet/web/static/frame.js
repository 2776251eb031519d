// The top bar of a page whose words the server writes: the rules (marjolet.i18n.rulebook,
// the same words as the terminal's help screen) and a page not found. The body's
// data-here names the top bar's current entry.

import { applyPreferences, loadLanguage, topbar } from "./common.js";

async function main() {
  await loadLanguage();
  applyPreferences();
  document.getElementById("topbar").replaceWith(topbar(document.body.dataset.here || ""));
}

main();
