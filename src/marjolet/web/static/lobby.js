// The lobby: new games against a bot or a friend, bot-vs-bot matches to
// watch, the rule profile and its variations, and the games of this browser.

import {
  answerSubmit, api, applyPreferences, cardElement, clear, el, formatDate, loadLanguage, recordName, playerName, rememberSeat,
  researchOn, scoreText, seatsHeld, setPlayerName, t, topbar,
} from "./common.js";

let options = null;

function $(id) {
  return document.getElementById(id);
}

function showError(message) {
  const node = $("lobby-error");
  clear(node).append(message);
  node.hidden = !message;
}

function rulesForm() {
  return $("rules");
}

function field(name) {
  return rulesForm().querySelector(`[name="${name}"]`);
}

/** Fill the variation fields with the chosen profile's values. */
function applyProfile() {
  const profile = options.profiles[field("profile").value];
  field("deal_pattern").value = profile.deal_pattern.join("-");
  field("all_tricks_bonus").value = profile.all_tricks_bonus;
  field("dix_on_play").checked = profile.dix_on_play;
  field("jack_queen").value = profile.jack_queen;
  field("one_meld_per_window").checked = profile.one_meld_per_window;
  field("target").value = String(profile.target);
}

/** The rules object of record.md: the profile and only what differs from it. */
function chosenRules() {
  const name = field("profile").value;
  const profile = options.profiles[name];
  const chosen = {
    deal_pattern: field("deal_pattern").value.split("-").map(Number),
    all_tricks_bonus: Number(field("all_tricks_bonus").value),
    dix_on_play: field("dix_on_play").checked,
    jack_queen: field("jack_queen").value,
    target: Number(field("target").value),
    one_meld_per_window: field("one_meld_per_window").checked,
  };
  const rules = { profile: name };
  for (const [key, value] of Object.entries(chosen)) {
    if (JSON.stringify(value) !== JSON.stringify(profile[key])) rules[key] = value;
  }
  return Object.keys(rules).length === 1 ? name : rules;
}

/** A research bot's menu label: its family and strength (never in the main menus). */
function programLabel(bot) {
  return bot.level ? `${bot.family} (${t(`level.${bot.level}`)})` : bot.family;
}

/** The level menus (the main choice) and the "other programs" menus in their fold. */
function fillBotMenus() {
  for (const select of document.querySelectorAll("select.bot-level, #bot-level")) {
    clear(select);
    for (const level of options.levels) {
      select.append(el("option", { value: level.choice, selected: level.key === options.default_level }, level.name));
    }
  }
  for (const select of document.querySelectorAll("select.bot-program")) {
    clear(select).append(el("option", { value: "" }, t("lobby.program_none")));
    for (const bot of options.bots) select.append(el("option", { value: bot.name }, programLabel(bot)));
  }
  const describe = () => {
    const level = options.levels.find((l) => l.choice === $("bot-level").value);
    clear($("bot-description")).append(level ? level.about : "");
    const bot = options.bots.find((b) => b.name === $("bot-program").value);
    clear($("program-description")).append(bot ? botDescription(bot) : "");
  };
  $("bot-level").addEventListener("change", () => {
    $("bot-program").value = "";
    describe();
  });
  $("bot-program").addEventListener("change", describe);
  describe();
}

/** The research programs' folds, only for a reader who asked for them (the
 *  settings menu): a hidden fold chooses nothing, so the level plays. */
function showPrograms() {
  for (const fold of document.querySelectorAll("details.programs")) {
    fold.hidden = !researchOn();
    if (fold.hidden) for (const select of fold.querySelectorAll("select")) select.value = "";
  }
  if ($("bot-program")) $("bot-program").dispatchEvent(new Event("change"));
}

/** A program chosen in the fold, else the level of the main menu. */
function opponent(form, levelName, programName) {
  const program = form.querySelector(`[name=${programName}]`).value;
  return program || form.querySelector(`[name=${levelName}]`).value;
}

async function create(payload, form) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  showError("");
  try {
    const game = await api("/api/games", { json: payload });
    if (game.token) rememberSeat(game.id, game.seat, game.token);
    if (game.invite_url) localStorage.setItem(`marjolet.invite.${game.id}`, game.invite_url);
    location.href = game.url;
  } catch (err) {
    showError(t("lobby.start_failed", { reason: err.message }));
    button.disabled = false;
  }
}

function nameOf(form) {
  const value = form.querySelector("[name=name]").value.trim();
  if (value) setPlayerName(value);
  return value || "you";  // shown as "You" / "Vous" in either language
}

async function listGames() {
  const box = $("my-games");
  const live = $("live-watch");
  let data;
  try {
    data = await api("/api/games");
  } catch (err) {
    clear(box).append(t("lobby.history_unavailable", { reason: err.message }));
    return;
  }
  const held = seatsHeld();
  const mine = data.games.filter((g) => held[g.id] && g.status !== "finished").slice(0, 8);
  clear(box);
  if (!mine.length) {
    box.append(t("lobby.no_games"));
  } else {
    const list = el("ul", { class: "game-list" });
    for (const g of mine) {
      list.append(el("li", {},
        el("a", { href: `/game/${g.id}` }, t("game.versus", { a: recordName(g.players[0]), b: recordName(g.players[1]) })),
        el("span", { class: "muted" }, ` · ${scoreText(g.totals[0], g.totals[1])} · ${formatDate(g.updated)}`)));
    }
    box.append(list);
  }
  const watching = data.games.filter((g) => g.mode === "watch" && g.status !== "finished").slice(0, 5);
  clear(live);
  if (watching.length) {
    live.append(el("h3", {}, t("lobby.live")));
    const list = el("ul", { class: "game-list" });
    for (const g of watching) {
      list.append(el("li", {}, el("a", { href: `/game/${g.id}` }, t("game.versus", { a: recordName(g.players[0]), b: recordName(g.players[1]) })),
        el("span", { class: "muted" }, ` · ${scoreText(g.totals[0], g.totals[1])}`)));
    }
    live.append(list);
  }
}

function heroCards() {
  const box = $("hero-cards");
  for (const card of ["JD", "QS", "KH", "QH", "TC", "AS"]) {
    const node = cardElement(card);
    node.setAttribute("aria-hidden", "true");
    box.append(node);
  }
}

/** The bot's description in the page's language when the catalogue has one. */
function botDescription(bot) {
  const key = `bot.${bot.family}`;
  const text = t(key);
  return text === key ? bot.description : text;
}

/** The forms answer from the first moment (a click before the options have loaded
 *  waits for them instead of submitting the page natively). */
function onSubmit(id, payload) {
  const form = $(id);
  answerSubmit(form, () => ready, () => create(payload(form), form));
}

onSubmit("vs-bot", (form) => {
  const choice = opponent(form, "level", "program");
  const level = options.levels.find((l) => l.choice === choice);
  const who = level ? { level: level.key } : { bot: choice };
  return { mode: "bot", name: nameOf(form), ...who, rules: chosenRules() };
});
onSubmit("vs-friend", (form) => ({ mode: "friend", name: nameOf(form), rules: chosenRules() }));
onSubmit("watch", (form) => ({
  mode: "watch",
  bots: [opponent(form, "bot0", "program0"), opponent(form, "bot1", "program1")],
  rules: chosenRules(),
}));

async function main() {
  await loadLanguage();
  applyPreferences();
  $("topbar").replaceWith(topbar("/"));
  heroCards();
  for (const input of document.querySelectorAll("input[name=name]")) {
    if (!input.value) input.value = playerName();  // never over what was typed meanwhile
  }
  try {
    options = await api("/api/options");
  } catch (err) {
    showError(t("lobby.unreachable", { reason: err.message }));
    return false;
  }
  fillBotMenus();
  showPrograms();
  document.addEventListener("marjolet:research", showPrograms);
  applyProfile();
  // open to the player only now: a box ticked before the profiles came was untied by them
  rulesForm().disabled = false;
  field("profile").addEventListener("change", applyProfile);
  const rulesLink = () => {
    $("rules-link").href = `/rules?rules=${encodeURIComponent(JSON.stringify(chosenRules()))}`;
  };
  rulesForm().addEventListener("change", rulesLink);
  rulesLink();
  listGames();
  return true;
}

const ready = main();
