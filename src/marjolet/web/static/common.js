// Shared helpers of every page: DOM building (never innerHTML with data),
// the JSON API, the seat tokens kept in this browser, and the cards drawn as SVG.

const SVG_NS = "http://www.w3.org/2000/svg";

export const SUITS = "CDHS";
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANK_ORDER = "789JQKTA";
const RANK_LABEL = { T: "10" };

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

/** Call the JSON API; throws an Error with the server's one-line message. */
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
    throw new Error("the server cannot be reached");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `HTTP ${response.status}`;
    const error = new Error(message);
    error.details = data && data.error;
    throw error;
  }
  return data;
}

// -- seats held by this browser -------------------------------------------------------

const SEAT_KEY = "marjolet.seats";

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

export function seatFor(gameId) {
  return seatsHeld()[gameId] || null;
}

export function playerName() {
  return localStorage.getItem("marjolet.name") || "";
}

export function setPlayerName(name) {
  localStorage.setItem("marjolet.name", name);
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

export function cardLabel(card) {
  const r = rankOf(card);
  return (RANK_LABEL[r] || r) + SUIT_SYMBOLS[suitOf(card)];
}

export function cardTitle(card) {
  const names = { A: "ace", T: "ten", K: "king", Q: "queen", J: "jack", 9: "nine", 8: "eight", 7: "seven" };
  return `${names[rankOf(card)]} of ${SUIT_NAMES[suitOf(card)]}`;
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
    "aria-label": card ? cardTitle(card) : "card back",
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
  const label = RANK_LABEL[rank] || rank;
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
  if (options.badge) {
    root.append(
      svg("rect", { x: 56, y: 4, width: 40, height: 15, rx: 7.5, class: "badge-bg" }),
      svg("text", { x: 76, y: 15, class: "badge-text" }, options.badge),
    );
  }
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
  if (options.onclick) {
    node = el("button", { ...attrs, type: "button", onclick: options.onclick });
    node.setAttribute("aria-label", `play the ${cardTitle(card)}`);
  } else {
    node = el("div", attrs);
  }
  node.append(cardSvg(card, options));
  return node;
}

/** A short inline card text in its suit colour, for logs and buttons. */
export function cardText(card) {
  return el("span", { class: `card-text suit-${suitOf(card)}` }, cardLabel(card));
}

export function formatDate(seconds) {
  const date = new Date(seconds * 1000);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function topbar(active) {
  const link = (href, text) =>
    el("a", { href, class: active === href ? "active" : null }, text);
  const toggle = el("input", { type: "checkbox", id: "four-colour", checked: fourColour() });
  toggle.addEventListener("change", () => setFourColour(toggle.checked));
  return el(
    "header",
    { class: "topbar" },
    el("a", { href: "/", class: "brand" }, el("span", { class: "brand-mark" }, "\u2665\u2660"), "Marjolet"),
    el("nav", {}, link("/", "Lobby"), link("/history", "History"), link("/replay", "Replay a record")),
    el("label", { class: "pref", title: "clubs green, diamonds blue" }, toggle, " four-colour suits"),
  );
}
