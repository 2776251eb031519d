// Shared helpers of every page: DOM building (never innerHTML with data),
// the JSON API, the seat tokens kept in this browser, and the cards drawn as SVG.

const SVG_NS = "http://www.w3.org/2000/svg";

export const SUITS = "CDHS";
export const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANK_ORDER = "789JQKTA";
const LANGS = ["en", "fr"];
const LANG_KEY = "marjolet.lang";

// -- the words: one catalogue per language, shared with the terminal (marjolet.i18n) ------

let LANG = "en";
let CATALOGUE = {};
let FALLBACK = {};

/** The page's language: ?lang=, else the switch remembered in this browser, else the browser's. */
export function chooseLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (LANGS.includes(asked)) {
    try { localStorage.setItem(LANG_KEY, asked); } catch (err) { /* private mode */ }
    return asked;
  }
  let kept = null;
  try { kept = localStorage.getItem(LANG_KEY); } catch (err) { kept = null; }
  if (LANGS.includes(kept)) return kept;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = String(wanted).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export function lang() {
  return LANG;
}

async function fetchCatalogue(code) {
  const response = await fetch(`/i18n/${code}.json`);
  if (!response.ok) throw new Error(`catalogue ${code}: HTTP ${response.status}`);
  return response.json();
}

/** Load the catalogue, set <html lang> and translate the page's marked elements. */
export async function loadLanguage() {
  LANG = chooseLanguage();
  document.documentElement.lang = LANG;
  document.cookie = `marjolet_lang=${LANG}; path=/; max-age=31536000; SameSite=Lax`;
  try {
    [CATALOGUE, FALLBACK] = await Promise.all([
      fetchCatalogue(LANG), LANG === "en" ? Promise.resolve({}) : fetchCatalogue("en"),
    ]);
  } catch (err) {
    CATALOGUE = {};
  }
  translateDocument(document);
}

/** An integer as the page's language writes it in a sentence, as the server's
 *  marjolet.i18n.number does: French groups the digits of 1000 and more by three with
 *  the narrow no-break space ("1\u202f000"); English writes the digits alone ("1000"),
 *  as its texts and the rule book do. Scores, targets: every number a player reads. */
export function number(n) {
  const value = Number(n);
  if (LANG !== "fr" || !Number.isInteger(value) || Math.abs(value) < 1000) return String(n);
  const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, "\u202f");
  return value < 0 ? `-${digits}` : digits;
}

function pluralForm(n) {
  if (LANG === "fr") return Math.abs(n) < 2 ? "one" : "other";
  return Math.abs(n) === 1 ? "one" : "other";
}

/** The text of `key` with its {placeholders} filled (a count `n` picks the plural). */
export function t(key, args = {}) {
  let entry = CATALOGUE[key];
  if (entry === undefined) entry = FALLBACK[key];
  if (entry === undefined) return key;
  if (typeof entry === "object") entry = entry[pluralForm(Number(args.n || 0))];
  if (LANG === "fr") entry = elide(String(entry), args);
  return String(entry).replace(/\{([a-z_][a-z0-9_]*)\}/g, (m, name) =>
    (args[name] === undefined ? m : String(args[name])));
}

/** French "de" and "que" before a filled-in value that starts with a vowel:
 *  "forfait de {name}" reads "forfait d’amelie_r" (marjolet.i18n.elide). */
function elide(text, args) {
  return text.replace(/\b(de|que) \{([a-z_][a-z0-9_]*)\}/g, (m, word, name) => {
    const first = String(args[name] ?? "").slice(0, 1).toLowerCase();
    return first && "aeiouyàâäéèêëîïôöùûüœæ".includes(first) ? `${word.slice(0, -1)}’{${name}}` : m;
  });
}

/** Choices as a reader lists them: "A♠", "A♠ or K♠", "A♠, K♠ or 9♠". */
export function orList(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")}${t("tui.or")}${names[names.length - 1]}`;
}

/** The session key of the game "Play now" led to (online.js), which its table reads once
 *  to say whether the computer took the seat nobody else did (table.js). */
export const PLAY_NOW_GAME = "marjolet.playNowGame";

/** Whether the catalogue of the page (or the English one) has a text for `key`. */
export function hasText(key) {
  return typeof key === "string" && (Object.hasOwn(CATALOGUE, key) || Object.hasOwn(FALLBACK, key));
}

/** What the server says (an error or a notice: `{code, message, key, params}`) in the
 *  page's language: the catalogue text `key` with `params`, else the server's English `message`. */
export function serverText(said) {
  if (!said) return "";
  if (hasText(said.key)) {
    const params = said.params && typeof said.params === "object" ? said.params : {};
    return t(said.key, params);
  }
  return String(said.message || said.code || "");
}

/** A phrase as a sentence on its own: capital first letter and a final full stop. */
export function sentence(text, { keepCase = false } = {}) {
  const s = String(text).trim();
  if (!s) return s;
  const head = keepCase ? s : s[0].toLocaleUpperCase(LANG) + s.slice(1);
  return /[.!?…]$/.test(head) ? head : `${head}.`;
}

/** serverText() as a sentence; one that starts with a name keeps the name as its
 *  owner wrote it ("amelie_r left the game", not "Amelie_r"). */
export function serverSentence(said) {
  const text = serverText(said);
  const template = said && hasText(said.key) ? t(said.key, {}) : "";
  return sentence(text, { keepCase: template.startsWith("{") });
}

/** Like t(), but placeholders may be DOM nodes (cards in their colours): returns a list of parts. */
export function tNodes(key, args = {}) {
  const text = t(key, Object.fromEntries(Object.entries(args).filter(([, v]) => !(v instanceof Node || Array.isArray(v)))));
  const out = [];
  let last = 0;
  text.replace(/\{([a-z_][a-z0-9_]*)\}/g, (m, name, offset) => {
    out.push(text.slice(last, offset));
    out.push(args[name] === undefined ? m : args[name]);
    last = offset + m.length;
    return m;
  });
  out.push(text.slice(last));
  return out.filter((p) => p !== "");
}

/** Fill elements marked data-i18n (text), data-i18n-title, data-i18n-label, data-i18n-placeholder. */
export function translateDocument(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  for (const node of root.querySelectorAll("[data-i18n-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nLabel));
  }
  for (const node of root.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
  // a number written in the page (the lobby's targets): its value, as the language writes it
  for (const node of root.querySelectorAll("[data-number]")) node.textContent = number(node.dataset.number);
  const title = document.querySelector("title[data-i18n]");
  if (title) document.title = title.textContent;
}

/** A player's name as stored, with a bot's strength in the page's language:
 *  "pimc (strongest)" reads "pimc (le plus fort)"; "you", the default, reads "You"/"Vous";
 *  "deleted player", the seat of an account deleted since, reads "joueur supprimé". */
/** The English names a level's player has in a record (marjolet.web.levels), by level key. */
const LEVEL_KEYS = { Beginner: "beginner", Amateur: "amateur", Skilled: "skilled", Expert: "expert" };

export function localName(name) {
  const text = String(name);
  const level = /^(Beginner|Amateur|Skilled|Expert)( #\d)?$/.exec(text);
  if (level) return `${t(`player_level.${LEVEL_KEYS[level[1]]}`)}${level[2] || ""}`;
  if (text === "friend") return t("lobby.friend_default");  // the guest before they sit down
  if (text === "deleted player") return t("player.deleted");  // an account deleted since
  const bot = /^(\S+) \((quick|normal|strong|strongest)\)( #\d)?$/.exec(text);
  if (bot) return `${bot[1]} (${t(`level.${bot[2]}`)})${bot[3] || ""}`;
  return text;
}

/** A player's name in a game's history, replay or review: as `localName`,
 *  and the default name "you" (a player who gave none) as "Player" ("Joueur"):
 *  these pages speak of both players in the third person ("Joueur joue A♠"). */
export function recordName(name) {
  return String(name) === "you" ? t("player.default_name") : localName(name);
}

export function suitName(suit) {
  return t(`suit.${suit}`);
}

/** Build an element: el("div", {class: "x", onclick: f}, child, "text", ...). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  setAttrs(node, attrs);
  appendAll(node, children);
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else {
      node.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function appendAll(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  appendAll(node, children);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** Call the JSON API; throws an Error with the server's one-line refusal in the page's
 *  language (serverText), its fields in `details`. */
export async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  if (options.json !== undefined) {
    init.method = options.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  } else if (options.body !== undefined) {
    init.method = options.method || "POST";
    init.headers["Content-Type"] = "text/plain; charset=utf-8";
    init.body = options.body;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new Error(t("error.unreachable"));
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? serverText(data.error) : `HTTP ${response.status}`;
    const error = new Error(message);
    error.details = data && data.error;
    throw error;
  }
  return data;
}

// -- seats held by this browser -------------------------------------------------------

const SEAT_KEY = "marjolet.seats";

/** Make `form` answer from the first moment: a submit before the page is set
 *  up waits for it (`ready()` gives the page's set-up promise) instead of
 *  submitting the page natively, which would reload it and lose the click.
 *  Then `handler(event)` runs, unless the set-up resolved to false. A submit
 *  while the last one is still being answered is dropped: a double click
 *  sends one request (it posted two identical offers). */
export function answerSubmit(form, ready, handler) {
  let busy = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    try {
      if ((await ready()) === false) return;
      await handler(event);
    } finally {
      busy = false;
    }
  });
}

export function seatsHeld() {
  try {
    return JSON.parse(localStorage.getItem(SEAT_KEY) || "{}");
  } catch (err) {
    return {};
  }
}

export function rememberSeat(gameId, seat, token) {
  const held = seatsHeld();
  held[gameId] = { seat, token };
  localStorage.setItem(SEAT_KEY, JSON.stringify(held));
}

/** Delete the seat keys of these games from this browser (after logging out). */
export function forgetSeats(gameIds) {
  const held = seatsHeld();
  for (const id of gameIds) delete held[id];
  try { localStorage.setItem(SEAT_KEY, JSON.stringify(held)); } catch (err) { /* private mode */ }
}

export function seatFor(gameId) {
  return seatsHeld()[gameId] || null;
}

/** Call `then` when another tab of this browser remembers a seat of this
 *  game (the storage event fires only in the other tabs). */
export function onSeatRemembered(gameId, then) {
  window.addEventListener("storage", (event) => {
    if (event.key === SEAT_KEY && seatFor(gameId)) then();
  });
}

export function playerName() {
  try { return localStorage.getItem("marjolet.name") || ""; } catch (err) { return ""; }
}

export function setPlayerName(name) {
  try { localStorage.setItem("marjolet.name", name); } catch (err) { /* storage blocked */ }
}

export function fourColour() {
  return localStorage.getItem("marjolet.fourColour") === "1";
}

export function setFourColour(on) {
  localStorage.setItem("marjolet.fourColour", on ? "1" : "0");
  document.documentElement.classList.toggle("four-colour", on);
}

export function applyPreferences() {
  document.documentElement.classList.toggle("four-colour", fourColour());
}

// -- cards ------------------------------------------------------------------------------

export function rankOf(card) {
  return card.slice(0, -1);
}

export function suitOf(card) {
  return card.slice(-1);
}

/** The rank as printed on the card in the page's language (roi R, dame D, valet V in French). */
export function rankLetter(card) {
  return t(`rank_letter.${rankOf(card)}`);
}

export function cardLabel(card) {
  return rankLetter(card) + SUIT_SYMBOLS[suitOf(card)];
}

/** The card's full name: "dame de pique", "queen of spades". */
export function cardTitle(card) {
  return t("card.name", { rank: t(`rank.${rankOf(card)}`), suit: t(`suit.${suitOf(card)}`) });
}

/** Suits left to right: colours alternate and trumps come last. */
export function suitOrder(trump) {
  const cycle = ["S", "H", "C", "D"];
  const i = cycle.indexOf(trump);
  if (i < 0) return cycle;
  return [...cycle.slice(i + 1), ...cycle.slice(0, i + 1)];
}

export function sortHand(cards, trump) {
  const order = suitOrder(trump);
  return [...cards].sort((a, b) => {
    const s = order.indexOf(suitOf(a)) - order.indexOf(suitOf(b));
    if (s !== 0) return s;
    return RANK_ORDER.indexOf(rankOf(b)) - RANK_ORDER.indexOf(rankOf(a));
  });
}

// Suit shapes drawn in a 100 x 100 box.
const SUIT_PATHS = {
  H: "M50 92 C22 70 4 52 4 31 C4 14 16 4 30 4 C40 4 47 10 50 19 C53 10 60 4 70 4 C84 4 96 14 96 31 C96 52 78 70 50 92 Z",
  D: "M50 3 C62 22 76 38 92 50 C76 62 62 78 50 97 C38 78 24 62 8 50 C24 38 38 22 50 3 Z",
  S: "M50 4 C62 22 96 38 96 62 C96 78 84 86 72 86 C63 86 56 81 53 74 C54 85 58 92 66 97 L34 97 C42 92 46 85 47 74 C44 81 37 86 28 86 C16 86 4 78 4 62 C4 38 38 22 50 4 Z",
  C: "M30 29 a20 20 0 1 1 40 0 a20 20 0 1 1 -40 0 Z M7 61 a20 20 0 1 1 40 0 a20 20 0 1 1 -40 0 Z M53 61 a20 20 0 1 1 40 0 a20 20 0 1 1 -40 0 Z M46 50 L54 50 C55 78 59 89 67 97 L33 97 C41 89 45 78 46 50 Z",
};

function pip(suit, x, y, size, flip = false) {
  const scale = size / 100;
  const transform = flip
    ? `translate(${x + size / 2} ${y + size / 2}) rotate(180) translate(${-size / 2} ${-size / 2}) scale(${scale})`
    : `translate(${x} ${y}) scale(${scale})`;
  return svg("path", { d: SUIT_PATHS[suit], transform, class: "pip" });
}

// Pip centres for the number cards (x, y in the 100 x 140 card).
const PIP_LAYOUTS = {
  7: [[32, 30], [68, 30], [50, 50], [32, 70], [68, 70], [32, 110], [68, 110]],
  8: [[32, 30], [68, 30], [50, 50], [32, 70], [68, 70], [50, 90], [32, 110], [68, 110]],
  9: [[32, 30], [68, 30], [32, 56.7], [68, 56.7], [50, 70], [32, 83.3], [68, 83.3], [32, 110], [68, 110]],
  T: [[32, 30], [68, 30], [50, 43], [32, 56.7], [68, 56.7], [32, 83.3], [68, 83.3], [50, 97], [32, 110], [68, 110]],
};

/** An SVG picture of a card (record name such as "QS"), or its back when card is null. */
export function cardSvg(card, options = {}) {
  const root = svg("svg", {
    viewBox: "0 0 100 140",
    class: "card-svg",
    role: "img",
    "aria-label": card ? cardTitle(card) : t("card.back"),
  });
  if (!card) {
    root.append(
      svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 8, class: "back-edge" }),
      svg("rect", { x: 7, y: 7, width: 86, height: 126, rx: 5, class: "back-field" }),
      svg("path", { d: latticePath(), class: "back-lattice" }),
      svg("rect", { x: 7, y: 7, width: 86, height: 126, rx: 5, class: "back-frame" }),
      svg("circle", { cx: 50, cy: 70, r: 15, class: "back-medal" }),
      svg("text", { x: 50, y: 77.5, class: "back-letter" }, "M"),
    );
    return root;
  }
  const rank = rankOf(card);
  const suit = suitOf(card);
  const label = rankLetter(card);
  const group = svg("g", { class: `suit-${suit}` });
  group.append(svg("rect", { x: 1.5, y: 1.5, width: 97, height: 137, rx: 8, class: "face" }));
  const index = (flip) => {
    const g = svg("g", flip ? { transform: "rotate(180 50 70)" } : {});
    g.append(svg("text", { x: 11, y: 22, class: label.length > 1 ? "index narrow" : "index" }, label));
    g.append(pip(suit, 4.5, 27, 13));
    return g;
  };
  group.append(index(false), index(true));
  if (rank === "A") {
    group.append(pip(suit, 25, 45, 50));
  } else if (PIP_LAYOUTS[rank]) {
    for (const [x, y] of PIP_LAYOUTS[rank]) group.append(pip(suit, x - 10, y - 10, 20, y > 72));
  } else {
    group.append(
      svg("rect", { x: 21, y: 20, width: 58, height: 100, rx: 5, class: "court-frame" }),
      svg("text", { x: 50, y: 82, class: "court-letter" }, label),
      pip(suit, 27, 26, 15),
      pip(suit, 58, 99, 15, true),
    );
    if (rank === "K" || rank === "Q") group.append(svg("path", { d: crownPath(rank), class: "crown" }));
  }
  root.append(group);
  return root;
}

function crownPath(rank) {
  return rank === "K"
    ? "M36 44 L40 32 L45 40 L50 29 L55 40 L60 32 L64 44 Z"
    : "M39 44 L42 35 L46 40 L50 33 L54 40 L58 35 L61 44 Z";
}

let lattice = null;
function latticePath() {
  if (lattice) return lattice;
  const parts = [];
  for (let i = -140; i <= 100; i += 10) {
    parts.push(`M${i} 7 L${i + 126} 133`, `M${i + 126} 7 L${i} 133`);
  }
  lattice = parts.join(" ");
  return lattice;
}

/** A card element: <div class="card"> holding its SVG; options.onclick makes it a button. */
export function cardElement(card, options = {}) {
  const classes = ["card"];
  if (!card) classes.push("back");
  if (options.classes) classes.push(...options.classes);
  const attrs = { class: classes.join(" "), dataset: card ? { card } : {} };
  if (options.title) attrs.title = options.title;
  let node;
  if (options.onclick && options.disabled) {  // a card of the hand that may not be played now
    // (a button all the same: the keyboard reaches it, and pressing it says why)
    node = el("button", { ...attrs, type: "button", "aria-disabled": "true", onclick: options.onclick },
      el("span", { class: "visually-hidden" }, options.label || t("card.not_playable", { card: cardTitle(card) })));
  } else if (options.onclick) {
    node = el("button", { ...attrs, type: "button", onclick: options.onclick },
      el("span", { class: "visually-hidden" }, options.label || t("card.play", { card: cardTitle(card) })));
  } else {
    node = el("div", attrs);
    if (card) {
      node.setAttribute("role", "img");
      node.setAttribute("aria-label", options.label || cardTitle(card));
    }
  }
  const picture = cardSvg(card, options);
  if (options.onclick) {
    picture.setAttribute("aria-hidden", "true");  // the button carries the card's name
    picture.removeAttribute("role");
  }
  node.append(picture);
  if (options.key) node.append(el("span", { class: "card-key", "aria-hidden": "true" }, options.key));
  // "shown" / "known" in page text (readable at any card size; the card's label says it too)
  if (options.badge) node.append(el("span", { class: "card-badge", "aria-hidden": "true" }, options.badge));
  return node;
}

/** A short inline card text in its suit colour, for logs and buttons: "10♣" for the
 *  eye, "dix de trèfle" for the ear (an image named in words; the symbol is not read). */
export function cardText(card) {
  return el("span", { class: `card-text suit-${suitOf(card)}`, title: cardTitle(card), role: "img",
    "aria-label": cardTitle(card) }, cardLabel(card));
}

/** A suit symbol in its colour, named in words for a screen reader ("♦" reads "carreau"). */
export function suitText(suit) {
  return el("span", { class: `card-text suit-${suit}`, role: "img", "aria-label": suitName(suit) }, SUIT_SYMBOLS[suit]);
}

/** A sentence written with card labels and suit symbols ("répondez à 10♣ ; fournissez ♦")
 *  as parts for el(): every card and suit becomes cardText / suitText, shown as before
 *  and spoken in words. The one way the pages put a card inside running text. */
export function speakCards(text) {
  const { pattern, letters, bySymbol } = cardPattern();
  const source = String(text);
  const out = [];
  let last = 0;
  for (const m of source.matchAll(pattern)) {
    if (m.index > last) out.push(source.slice(last, m.index));
    const suit = bySymbol[m[2]];
    out.push(m[1] ? cardText(letters[m[1]] + suit) : suitText(suit));
    last = m.index + m[0].length;
  }
  if (last < source.length) out.push(source.slice(last));
  return out;
}

/** The pattern of a card or a suit in running text, in the page's language (built once
 *  a catalogue: every redraw of the table reads its sentences through it). */
const cardPatterns = new WeakMap();
function cardPattern() {
  if (!cardPatterns.has(CATALOGUE)) {
    const letters = {};
    for (const rank of RANK_ORDER) letters[t(`rank_letter.${rank}`)] = rank;
    const ranks = Object.keys(letters).sort((a, b) => b.length - a.length)
      .map((r) => r.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
    const pattern = new RegExp(`(?:(${ranks})?)([${Object.values(SUIT_SYMBOLS).join("")}])`, "gu");
    const bySymbol = Object.fromEntries(Object.entries(SUIT_SYMBOLS).map(([k, v]) => [v, k]));
    cardPatterns.set(CATALOGUE, { pattern, letters, bySymbol });
  }
  return cardPatterns.get(CATALOGUE);
}

let announcer = null;

/** Say `text` through one polite live region made at page load (empty until then):
 *  a box that is shown with its text already in it is skipped by screen readers. */
export function announce(text) {
  if (!announcer) announcer = announcerNode();
  clear(announcer);
  // a tick later, so that the same words said twice are said again
  setTimeout(() => { clear(announcer).append(...speakCards(String(text))); }, 60);
}

/** The page's live region for announce(), made once (call at load, before anything is said). */
export function announcerNode() {
  if (!announcer) {
    announcer = el("div", { id: "announcer", class: "visually-hidden", role: "status", "aria-live": "polite" });
    document.body.append(announcer);
  }
  return announcer;
}

/** How a forfeited match ended: "bot" (a program broke down), "resigned"
 *  (a person gave it up), "timeout" (a person did not move in time) or
 *  "left" (a person left and did not come back). */
export function forfeitKind(forfeit) {
  if (forfeit.winner === null) return "aborted";  // a player never moved: no result
  if (forfeit.bot !== "") return "bot";
  return { resigned: "resigned", "did not move in time": "timeout" }[forfeit.reason] || "left";
}

/** A finished game's result for one seat, in a game list: won or lost, and
 * "by resignation" or "by forfeit" when the game ended so (a player gave it
 * up; a player left or broke down). */
export function resultText(won, forfeit, resigned = false) {
  const how = resigned ? "_resigned" : forfeit ? "_forfeit" : "";
  return t(`online.${won ? "won" : "lost"}${how}`);
}

/** A player's rating as the pages show it: "1500, provisional" while it is
 *  still uncertain (few games played). */
export function ratingText(rating, provisional) {
  const written = number(rating);  // « 1 500 » in French, as every other number
  return provisional ? t("rating.provisional", { rating: written }) : written;
}

/** A score, "520 – 310" (the player's first, or seat 0's), never broken at the dash. */
export function scoreText(mine, theirs) {
  return `${number(mine)}\u00a0–\u00a0${number(theirs)}`;
}

export function formatDate(seconds) {
  const date = new Date(seconds * 1000);
  return date.toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short" });
}

// The "Online" link shows how many games wait for the logged-in player (their
// turn, or a rematch offer to answer), and so does the page title, "(2) …",
// which a background tab shows too; nothing for a visitor without an account.
// Asked when the page opens, when a table's turn changes or the lobby socket
// says a game changed (refreshOnline), when the page is shown again, and every
// minute while an account is logged in (a visitor's page does not keep asking).
// A rise is said once, politely, and shown as a browser notification if the
// player asked for them here (Settings: "Tell me when it is my turn").
const online = { badge: null, words: null, status: null, notify: null, waiting: 0,
  known: false, signedIn: false, timer: 0, asked: 0 };
const ASK_EVERY = 60_000;
const NOTIFY_KEY = "marjolet.notify_turn";

function onlineLink(node) {
  online.badge = el("span", { class: "badge", "aria-hidden": "true", hidden: true });
  online.words = el("span", { class: "visually-hidden" });
  node.append(" ", online.badge, online.words);
  refreshOnline();
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && online.signedIn && Date.now() - online.asked > 10_000) refreshOnline();
  });
  return node;
}

/** Ask the server again how many games wait for the player. */
export function refreshOnline() {
  online.asked = Date.now();
  fetch("/api/me").then((r) => (r.ok ? r.json() : null)).then((me) => {
    if (!me) return askAgain();
    const wasIn = online.signedIn;
    showWaiting(me);
    // this device's session ended elsewhere (a new password, "log out on my
    // other devices"): a page that shows the account draws itself again
    if (wasIn && !online.signedIn) window.dispatchEvent(new Event("marjolet:signed-out"));
  }).catch(askAgain);
}

function askAgain() {
  clearTimeout(online.timer);
  if (online.signedIn) online.timer = setTimeout(refreshOnline, ASK_EVERY);
}

/** Show the count of an answer of /api/me (a page that asked for it itself
 *  passes it on here). */
export function showWaiting(me) {
  const before = online.known ? online.waiting : null;
  online.signedIn = Boolean(me.account);
  online.waiting = online.signedIn ? me.waiting || 0 : 0;
  online.known = true;
  askAgain();
  const n = online.waiting;
  if (online.badge) {
    online.badge.hidden = !n;
    online.badge.textContent = String(n);
    online.badge.title = n ? t("online.waiting_title", { n }) : "";
    online.words.textContent = n ? ` (${t("online.waiting_title", { n })})` : "";
  }
  if (online.notify) online.notify.hidden = !(online.signedIn && notificationsHere());
  setTitle(document.title);
  if (before !== null && n > before) turnCame(n);
}

/** More games wait than before: said politely, once; and a notification
 *  when the player asked for them and is looking elsewhere. */
function turnCame(n) {
  const words = t("online.waiting_title", { n });
  if (online.status) {
    online.status.textContent = "";
    setTimeout(() => { online.status.textContent = words; }, 60);
  }
  if (!document.hidden || !notifyOn() || Notification.permission !== "granted") return;
  try {
    const note = new Notification("Marjolet", { body: words, tag: "marjolet-turn", icon: "/static/favicon.svg" });
    note.addEventListener("click", () => { window.focus(); location.href = "/online"; });
  } catch (err) { /* a browser that only notifies from a service worker */ }
}

function notificationsHere() {
  return window.isSecureContext && "Notification" in window;
}

function notifyOn() {
  try { return notificationsHere() && localStorage.getItem(NOTIFY_KEY) === "1"; } catch (err) { return false; }
}

/** The settings' "Tell me when it is my turn": permission is asked for only
 *  on this click, never when a page opens; the choice is kept per browser. */
function notifyPref() {
  const box = el("input", { type: "checkbox", id: "notify-turn",
    checked: notifyOn() && Notification.permission === "granted" });
  const blocked = el("span", { class: "pref-note", hidden: true }, t("top.notify_blocked"));
  box.addEventListener("change", async () => {
    blocked.hidden = true;
    let on = box.checked;
    if (on && Notification.permission !== "granted") {
      on = (await Notification.requestPermission()) === "granted";
      blocked.hidden = on;
    }
    box.checked = on;
    try { localStorage.setItem(NOTIFY_KEY, on ? "1" : "0"); } catch (err) { /* private mode */ }
  });
  online.notify = el("div", { hidden: true },
    el("label", { class: "pref" }, box, " ", t("top.notify_turn")), blocked);
  return online.notify;
}

/** The page title, after the count of waiting games if there are any: "(2) Your turn · Marjolet". */
export function setTitle(text) {
  const bare = text.replace(/^\(\d+\) /, "");
  document.title = online.waiting ? `(${online.waiting}) ${bare}` : bare;
}

export function topbar(active) {
  const link = (href, key) =>
    el("a", { href, class: active === href ? "active" : null, "aria-current": active === href ? "page" : null }, t(key));
  const toggle = el("input", { type: "checkbox", id: "four-colour", checked: fourColour() });
  toggle.addEventListener("change", () => setFourColour(toggle.checked));
  const sound = el("input", { type: "checkbox", id: "sound", checked: soundOn() });
  sound.addEventListener("change", () => setSound(sound.checked));
  const research = el("input", { type: "checkbox", id: "research", checked: researchOn() });
  research.addEventListener("change", () => setResearch(research.checked));
  const languages = el("div", { class: "lang-switch", role: "group", "aria-label": t("top.language") },
    LANGS.map((code) => el("a", {
      href: languageHref(code),
      class: "lang" + (code === LANG ? " active" : ""),
      hreflang: code,
      lang: code,
      "aria-current": code === LANG ? "true" : null,
      title: t(`top.lang_${code}`),
    }, code.toUpperCase())));
  return el(
    "header",
    { class: "topbar" },
    el("a", { href: "/", class: "brand" }, el("span", { class: "brand-mark", "aria-hidden": "true" }, "\u2665\u2660"), "Marjolet"),
    el("nav", { "aria-label": t("top.menu") }, link("/", "top.lobby"), onlineLink(link("/online", "top.online")),
      link("/history", "top.history"), link("/replay", "top.replay"), link("/rules", "top.rules")),
    el("details", { class: "prefs-menu" },
      el("summary", {}, t("top.settings")),
      el("div", { class: "prefs" },
        el("label", { class: "pref", title: t("top.four_colour_title") }, toggle, " ", t("top.four_colour")),
        el("label", { class: "pref" }, sound, " ", t("top.sound")),
        el("label", { class: "pref", title: t("top.research_title") }, research, " ", t("top.research")),
        notifyPref())),
    languages,
    online.status = el("span", { class: "visually-hidden", role: "status", "aria-live": "polite" }),
  );
}

/** This page's address in another language (the choice is remembered). */
function languageHref(code) {
  const url = new URL(location.href);
  url.searchParams.set("lang", code);
  return url.pathname + url.search + url.hash;
}

// -- sounds (off by default) --------------------------------------------------------------

/** Whether the home page offers the research programs beside the levels (their
 *  names are the programs', not a player's words: off until asked for). */
export function researchOn() {
  try { return localStorage.getItem("marjolet.research") === "1"; } catch (err) { return false; }
}

export function setResearch(on) {
  try { localStorage.setItem("marjolet.research", on ? "1" : "0"); } catch (err) { /* private mode */ }
  document.dispatchEvent(new CustomEvent("marjolet:research"));
}

export function soundOn() {
  try { return localStorage.getItem("marjolet.sound") === "1"; } catch (err) { return false; }
}

export function setSound(on) {
  try { localStorage.setItem("marjolet.sound", on ? "1" : "0"); } catch (err) { /* private mode */ }
}

let audio = null;

/** A short click for a card laid down (`kind` "card") or a trick taken ("trick"); silent unless switched on. */
export function playSound(kind) {
  if (!soundOn()) return;
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = kind === "trick" ? 330 : 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.12);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.13);
  } catch (err) {
    /* no audio here */
  }
}

/** Whether the player asked the system for less motion. */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
