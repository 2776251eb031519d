// The rules page: its text is written by the server (marjolet.i18n.rulebook, the same
// words as the terminal's help screen); this script adds the top bar.

import { applyPreferences, loadLanguage, topbar } from "./common.js";

async function main() {
  await loadLanguage();
  applyPreferences();
  document.getElementById("topbar").replaceWith(topbar("/rules"));
}

main();
