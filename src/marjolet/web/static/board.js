// Draws one position (a "view" sent by the server) on the felt: both seats,
// the stock and the indicator, the trick, the meld window, the scores, the log.
// Used by the live table (one seat's view) and the replay viewer (open hands).

import {
  cardElement, cardLabel, cardText, cardTitle, clear, el, number, orList, playSound, reducedMotion, sentence,
  sortHand, speakCards, suitName, suitOf, suitText, SUIT_SYMBOLS, t, tNodes,
} from "./common.js";

/** How long a card takes to travel, in milliseconds (none under prefers-reduced-motion). */
export const MOVE_MS = 250;

const SOURCES = ["cards", "melds", "dix", "last_card", "last_trick", "all_tricks"];

/** A player's name as shown to `viewer`: the viewer's own name is marked "(you)". */
export function playerLabel(view, player, viewer) {
  const name = view.players[player];
  if (viewer !== player) return name;
  return ["you", "vous", t("lobby.you_default")].includes(String(name).toLowerCase())
    ? t("player.you") : t("player.you_named", { name });
}

/** A score table's heading of a player: a name with a word of more than
 * 10 letters ("Marie-Françoise_Dupont", up to 24) may break anywhere rather
 * than widen the page; a usual one ("Débutant", "Jean-Édouard") keeps its
 * words whole. */
function nameHeading(view, player, viewer) {
  const label = playerLabel(view, player, viewer);
  const long = String(label).split(/[\s-]+/).some((word) => word.length > 10);
  return el("th", long ? { class: "long-name" } : {}, label);
}

/** The subject of a sentence: "You" for the viewer, else the name. */
function subject(view, player, viewer) {
  return viewer === player ? t("player.you") : view.players[player];
}

function suitSpan(suit) {
  return suitText(suit);
}

/** The board skeleton inside `root`; returns the parts render() fills. */
export function buildBoard(root) {
  clear(root);
  const parts = {
    top: el("div", { class: "seat-area top" }),
    center: el("div", { class: "center" }),
    prompt: el("div", { class: "prompt", role: "status", "aria-live": "polite" }),
    actions: el("div", { class: "window-actions" }),
    bottom: el("div", { class: "seat-area bottom" }),
    // a hint or why a card is held back: under the hand, so that nothing above it moves
    note: el("div", { class: "table-note", role: "status", "aria-live": "polite" }),
  };
  parts.felt = el("div", { class: "felt" }, parts.top, parts.center, parts.prompt, parts.actions, parts.bottom, parts.note);
  // the live prompt in two boxes: what happened since this seat last moved (a sentence
  // per line, added one by one) and what to do now, so that neither is said twice
  parts.news = el("div", { class: "prompt-newsbox" });
  parts.line = el("div", { class: "prompt-line" });
  parts.prompt.append(parts.news, parts.line);
  root.append(parts.felt);
  // the keyboard's place on the board, kept across redrawing (renderBoard)
  parts.root = root;
  parts.focus = { key: null, wanted: false };
  document.addEventListener("focusin", (event) => {
    const inside = root.contains(event.target);
    parts.focus.wanted = inside;
    if (inside) parts.focus.key = focusKey(event.target);
  });
  return parts;
}

/** What names a control of the board across redrawing: its card or its action. */
function focusKey(node) {
  const control = node.closest ? node.closest("[data-card], [data-action], .action") : null;
  if (!control) return null;
  if (control.dataset.card) return `[data-card="${control.dataset.card}"]`;
  if (control.dataset.action) return `[data-action="${control.dataset.action}"]`;
  const kind = ["hint", "last-trick"].find((c) => control.classList.contains(c));
  return kind ? `.action.${kind}` : null;
}

/** After redrawing, give the keyboard back its place: the same card or button if it is
 *  still there, else the first card to play, else the main action (draw). Only when the
 *  focus was on the board (or lost with it): focus elsewhere on the page is left alone. */
function restoreFocus(parts, lost) {
  const f = parts.focus;
  const active = document.activeElement;
  if (!f.wanted || !(lost || !active || active === document.body || active === parts.root)) return;
  const usable = (node) => node && node.matches("button:not([disabled]), a[href]") && node.offsetParent !== null;
  const same = f.key ? parts.felt.querySelector(`button${f.key}, .action${f.key}`) : null;
  if (same && same.disabled) return;  // greyed a moment (the hint being thought): back to it after
  const next = [same, parts.felt.querySelector(".hand.mine .card.playable"),
    parts.felt.querySelector(".action.draw"), parts.felt.querySelector(".action.meld, .action.dix")].find(usable);
  if (next) {
    next.focus({ preventScroll: true });
    f.key = focusKey(next);
  }
}

function nameplate(view, player, ctx) {
  const label = playerLabel(view, player, ctx.seat);
  const melds = view.melds[player];
  const connected = ctx.connected ? ctx.connected[player] : true;
  const turn = view.to_move === player;
  return el(
    "div",
    { class: "nameplate" + (turn ? " to-move" : "") },
    el("span", { class: "dot " + (connected ? "on" : "off"), title: t(connected ? "seat.connected" : "seat.not_connected"),
      role: "img", "aria-label": t(connected ? "seat.connected" : "seat.not_connected") }),
    el("span", { class: "player-name" }, label),
    view.ratings && view.ratings[player]
      ? el("span", { class: "chip rating", title: t("seat.rating_title") }, t("seat.rating", { rating: view.ratings[player] }))
      : null,
    view.dealer === player ? el("span", { class: "chip dealer", title: t("seat.dealer_title") }, t("seat.dealer")) : null,
    el("span", { class: "chip points", title: t("seat.points_title") }, t("seat.points", { n: number(view.points[player]) })),
    el("span", { class: "chip", title: t("seat.tricks_title") }, t("seat.tricks", { n: view.won[player] / 2 })),
    el("span", { class: "chip match", title: t("seat.match_title") },
      t("seat.match", { n: number(view.running[player]), target: number(view.target) })),
    melds.length
      ? el(
        "span",
        { class: "meld-list" },
        melds.map((m) => el("span", { class: "chip meld", title: meldName(m.id, view) },
          m.cards.map(cardText), ` ${m.value}`)),
      )
      : null,
  );
}

function handRow(view, player, ctx, isBottom) {
  const hand = view.hands[player];
  const exposed = new Set(view.exposed[player]);
  const row = el("div", { class: "hand" + (isBottom ? " mine" : " theirs") });
  if (hand.cards) {
    const legalCards = new Set(
      (ctx.legal || []).filter((a) => a.kind === "card").map((a) => a.action),
    );
    const clickable = ctx.interactive && ctx.seat === player && legalCards.size > 0 && !ctx.pending;
    const myTurn = ctx.interactive && ctx.seat === player && (ctx.legal || []).length > 0 && !ctx.pending;
    for (const card of sortHand(hand.cards, view.trump)) {
      const classes = [];
      let onclick = null;
      let title = view.blocked && view.blocked[card] ? blockedReason(view, card) : null;
      let disabled = false;
      if (clickable && legalCards.has(card)) {
        classes.push("playable");
        onclick = () => ctx.onAction(card);
      } else if (ctx.seat === player && legalCards.size > 0) {
        classes.push("unplayable");
      }
      if (!onclick && myTurn && ctx.onBlocked && (legalCards.size > 0 || title)) {
        // held back (tricks 11-16, the meld window): a button all the same, reached by
        // the keyboard, named "(not playable)", that says why when pressed
        const why = title || t("table.blocked_now", { card: cardLabel(card) });
        onclick = () => ctx.onBlocked(why);
        disabled = true;
      }
      if (ctx.hint === card) classes.push("hinted");
      if (exposed.has(card)) classes.push("exposed");
      const key = ctx.seat === player && ctx.interactive && legalCards.size > 0 ? playableKey(card, hand.cards, view.trump, legalCards) : null;
      const node = cardElement(card, {
        classes, onclick, disabled, title, badge: exposed.has(card) ? t("card.badge_shown") : null, key: key ? String(key) : null,
      });
      if (!onclick && title && ctx.onBlocked) node.addEventListener("click", () => ctx.onBlocked(title));  // a tap says why
      row.append(node);
    }
  } else {
    const known = sortHand(hand.known || [], view.trump);
    for (const card of known) {
      const badge = exposed.has(card) ? t("card.badge_shown") : t("card.badge_known");
      const title = exposed.has(card) ? t("card.declared_title") : t("card.known_title");
      row.append(cardElement(card, { classes: ["known"], badge, title,
        label: `${cardTitle(card)} (${title})` }));
    }
    const backs = hand.size - known.length;
    for (let i = 0; i < backs; i += 1) {
      const back = cardElement(null, { classes: ["small"] });
      back.setAttribute("aria-hidden", "true");
      row.append(back);
    }
    if (backs > 0) {
      row.setAttribute("role", "group");
      row.setAttribute("aria-label", t("seat.hidden_cards", { n: backs }));
    }
  }
  // mid-deal an empty hand is news; once the deal is over both are, and the summary says so
  if (hand.size === 0 && !view.deal_over) row.append(el("div", { class: "empty-hand" }, t("seat.no_cards")));
  return row;
}

function stockPile(view) {
  const pile = el("div", { class: "stock", title: t("stock.title", { n: view.stock }) });
  if (view.indicator) {
    pile.append(el("div", { class: "indicator", title: t("stock.indicator") },
      cardElement(view.indicator, { label: t("stock.indicator_named", { card: cardTitle(view.indicator) }) })));
  }
  const hidden = Math.max(0, view.stock - (view.indicator ? 1 : 0));
  const layers = Math.min(hidden, 5);
  const stack = el("div", { class: "stack" });
  for (let i = 0; i < layers; i += 1) {
    const c = cardElement(null);
    c.setAttribute("aria-hidden", "true");
    c.style.setProperty("--layer", String(i));
    stack.append(c);
  }
  pile.append(stack);
  pile.append(
    el("div", { class: "stock-count" }, view.stock > 0 ? t("stock.count", { n: view.stock }) : t("stock.empty")),
  );
  return pile;
}

function trickArea(view, ctx, bottomPlayer) {
  const area = el("div", { class: "trick" });
  const place = (card, player, extra) => {
    const slot = player === bottomPlayer ? "near" : "far";
    area.append(el("div", { class: `trick-card ${slot} ${extra || ""}`, dataset: { player: String(player) } }, cardElement(card)));
  };
  let caption = null;
  if (view.lead) {
    place(view.lead, view.leader, "");
    caption = t(ctx.seat === view.leader ? "trick.you_led" : "trick.led",
      { name: view.players[view.leader], card: cardLabel(view.lead) });
  } else if (view.last_trick) {
    const last = view.last_trick;
    place(last.cards[0], last.players[0], "done");
    place(last.cards[1], last.players[1], "done second");
    area.dataset.winnerSide = last.winner === bottomPlayer ? "near" : "far";
    caption = t(ctx.seat === last.winner ? "trick.you_win" : "trick.wins",
      { name: view.players[last.winner], n: last.number });
  } else {
    area.append(el("div", { class: "trick-empty" }, t("trick.empty")));
  }
  if (caption) area.append(el("div", { class: "trick-caption" }, speakCards(caption)));
  return area;
}

function trumpBadge(view) {
  return el(
    "div",
    { class: "trump-badge", title: t("trump.title", { suit: suitName(view.trump) }) },
    el("span", { class: "trump-word" }, t("trump.word")),
    el("span", { class: `big-suit suit-${view.trump}`, "aria-hidden": "true" }, SUIT_SYMBOLS[view.trump]),
    el("span", { class: "trump-name" }, suitName(view.trump)),
    el("span", { class: "small" }, view.deal_over ? t("trump.deal_over")
      : view.phase === 2 ? t("trump.trick_phase2", { n: view.trick_number })
        : t("trump.trick", { n: Math.min(view.trick_number, 16) })),
  );
}

/** The buttons of the meld window (melds with their values, dix, draw) and the hint. */
function windowActions(view, ctx) {
  const box = el("div", { class: "action-row" });
  const mine = ctx.interactive && ctx.seat !== null && view.to_move === ctx.seat;
  if (mine && view.in_window) {
    for (const a of ctx.legal) {
      if (a.kind === "meld") {
        box.append(el("button", {
          type: "button",
          class: "action meld" + (ctx.hint === a.action ? " hinted" : ""),
          title: meldName(a.meld, view),
          disabled: ctx.pending,
          dataset: { action: a.action },
          onclick: () => ctx.onAction(a.action),
        }, tNodes("window.declare", { cards: a.cards.map(cardText) }),
        // heard as "Annoncer roi de pique dame de pique (mariage d’atout) +40": the shown
        // words first (a voice command says what it sees), the cards and the meld in words
        el("span", { class: "visually-hidden" }, ` (${meldName(a.meld, view)})`),
        el("span", { class: "value" }, `+${a.value}`)));
      } else if (a.kind === "dix") {
        box.append(el("button", {
          type: "button",
          class: "action dix" + (ctx.hint === a.action ? " hinted" : ""),
          title: t("window.dix_title"),
          disabled: ctx.pending,
          dataset: { action: "dix" },
          onclick: () => ctx.onAction("dix"),
        }, tNodes("window.dix", { seven: cardText(a.cards[0]), indicator: cardText(a.cards[1]) }),
        el("span", { class: "value" }, `+${a.value}`)));
      }
    }
    const draw = ctx.legal.find((a) => a.kind === "draw");
    if (draw) {
      box.append(el("button", {
        type: "button",
        class: "action draw primary" + (ctx.hint === "draw" ? " hinted" : ""),
        disabled: ctx.pending,
        dataset: { action: "draw" },
        onclick: () => ctx.onAction("draw"),
      }, view.tricks_played === 10 ? t("window.draw_last") : t("window.draw")));
    }
  }
  if (ctx.onNote && view.lead && view.last_trick) {  // the trick just taken, again (a phone has no hover)
    const last = view.last_trick;
    const who = (i) => `${playerLabel(view, last.players[i], ctx.seat)} ${cardLabel(last.cards[i])}`;
    const text = t("trick.last_text", { n: last.number, a: who(0), b: who(1), winner: playerLabel(view, last.winner, ctx.seat) });
    box.append(el("button", { type: "button", class: "action last-trick", onclick: () => ctx.onNote(text) }, t("trick.last_button")));
  }
  const over = view.deal_over || view.match_over || Boolean(view.forfeit);
  if (ctx.onHint && !over) {  // no advice button left greyed out once the deal is over
    box.append(el("button", {
      type: "button",
      class: "action hint" + (ctx.hintPending ? " busy" : ""),
      disabled: !mine || ctx.pending || ctx.hintPending,
      "aria-busy": ctx.hintPending ? "true" : "false",
      title: t("window.hint_title"),
      onclick: ctx.onHint,
    }, ctx.hintPending ? t("window.hint_busy") : t("window.hint")));
  }
  return box;
}

export function promptText(view, ctx) {
  if (view.deal_over) return view.match_over ? t("prompt.match_over") : t("prompt.deal_over");
  const who = view.to_move;
  const name = view.players[who];
  if (ctx.seat !== null && who === ctx.seat) {
    if (view.in_window) {
      // the trick just won is in the log; say what is left to do, not the win again
      // name only what this window offers: melds, the seven's exchange, or both
      const legal = view.legal || [];
      const melds = legal.some((a) => a.kind === "meld");
      const dix = legal.some((a) => a.kind === "dix");
      const last = view.tricks_played === 10 ? "_last" : "";  // trick 10: "draw the last cards"
      if (!melds && !dix) return t(`prompt.window${last}_draw`);
      const which = melds && dix ? "" : melds ? "_melds" : "_dix";
      return t(`prompt.window${last}${which}`);
    }
    if (view.lead) {
      // tricks 11-16: the duty the server names (marjolet.engine.r16_duty), in words
      const card = cardLabel(view.lead);
      const suit = SUIT_SYMBOLS[suitOf(view.lead)];
      if (DUTIES[view.duty]) return t("prompt.answer_duty", { card, duty: t(DUTIES[view.duty], { suit, card }) });
      if (view.duty === "any") return t("prompt.answer_free", { card, suit });
      return t("prompt.answer", { card });
    }
    return t("prompt.lead");
  }
  if (view.in_window) return t("prompt.other_window", { name });
  if (ctx.seat === null) return t("prompt.to_play", { name });
  const away = ctx.connected && ctx.connected[who] === false;  // never thinking while away
  return away ? t("prompt.to_play_offline", { name }) : t("prompt.thinking", { name });
}

/** What the other player did since this seat last moved that the felt does not show
 *  (the seven of trumps exchanged, a meld declared), with the points the server's log
 *  gives it: "Amélie échange le sept d’atout (+10)". Empty for a spectator. */
export function opponentNews(view, seat) {
  const out = [];
  if (seat === null || seat === undefined || !view.log) return out;
  for (let i = view.log.length - 1; i >= 0 && view.log[i].player !== seat; i -= 1) {
    const entry = view.log[i];
    const name = view.players[entry.player];
    const n = entry.gain ? entry.gain[entry.player] : 0;
    const scored = n > 0 ? "" : "_plain";
    if (entry.action === "dix") {
      out.unshift(t(`table.opponent_dix${scored}`, { name, n }));
    } else if (entry.action.startsWith("meld ")) {
      out.unshift(t(`table.opponent_meld${scored}`, { name, n, meld: meldName(entry.action.slice(5), view) }));
    }
  }
  return out;
}

/** Why `card` may not be played now, in the reader's words (never a rule id). The
 *  server says why (view.blocked: "window", the duty of tricks 11-16 "overtake",
 *  "follow" or "trump", else "now") and which cards the duty leaves (view.must_play);
 *  the page only words it, so the rule lives in one place (marjolet.engine.r16_duty). */
export function blockedReason(view, card) {
  const why = (view.blocked || {})[card];
  if (why === "window") return sentence(t("error.illegal_window"));  // the button named
  const plain = t("table.blocked_now", { card: cardLabel(card) });
  const allowed = view.must_play || [];
  if (!DUTIES[why] || !allowed.length) return plain;
  const sym = SUIT_SYMBOLS[suitOf(view.lead)];
  const duty = t(DUTIES[why], { suit: sym, card: cardLabel(view.lead) });
  const names = sortHand(allowed, view.trump).map(cardLabel);
  return t("table.blocked", { card: cardLabel(card), duty, cards: orList(names) });
}

/** The words of each duty of tricks 11-16 (view.blocked's reasons). */
const DUTIES = { overtake: "tui.duty_beat", follow: "tui.duty_follow", trump: "tui.duty_trump" };

/** The number a digit key plays (1-6, left to right among the hand as drawn), or null. */
export function playableKey(card, cards, trump, legalCards) {
  const sorted = sortHand(cards, trump);
  const i = sorted.indexOf(card);
  return i >= 0 && i < 9 && legalCards.has(card) ? i + 1 : null;
}

/** Draw `view` into the parts of buildBoard. ctx: {seat, interactive, legal,
 *  pending, hint, onAction, onHint, connected}. */
export function renderBoard(parts, view, ctx) {
  const bottomPlayer = ctx.seat === null || ctx.seat === undefined ? 0 : ctx.seat;
  const topPlayer = 1 - bottomPlayer;
  ctx.legal = view.legal || [];
  const focus = parts.focus || { key: null, wanted: false };
  parts.focus = focus;
  const lost = parts.felt.contains(document.activeElement);  // redrawing takes it away
  clear(parts.top).append(nameplate(view, topPlayer, ctx), handRow(view, topPlayer, ctx, false));
  clear(parts.center).append(stockPile(view), trickArea(view, ctx, bottomPlayer), trumpBadge(view));
  const news = (ctx.news || []).map((line) => (typeof line === "string" ? { text: line, shown: true } : line));
  if (parts.news) {
    setLines(parts.news, news.map((n) => ({ key: n.text, cls: n.shown ? "prompt-news" : "prompt-news visually-hidden",
      content: speakCards(n.text) })));
    const message = ctx.message || promptText(view, ctx);
    const key = typeof message === "string" ? message : message.textContent;
    setLines(parts.line, [{ key, cls: "prompt-text", content: typeof message === "string" ? speakCards(message) : message }]);
  } else {
    clear(parts.prompt).append(...news.map((n) => el("div", { class: "prompt-news" }, speakCards(n.text))),
      ctx.message || promptText(view, ctx));
  }
  clear(parts.note);
  if (ctx.note) {
    parts.note.append(el("p", { class: ctx.noteKind === "hint" ? "hint-text" : "why-text" },
      typeof ctx.note === "string" ? speakCards(ctx.note) : ctx.note));
  }
  clear(parts.actions).append(windowActions(view, ctx));
  clear(parts.bottom).append(handRow(view, bottomPlayer, ctx, true), nameplate(view, bottomPlayer, ctx));
  restoreFocus(parts, lost);
}

/** Lines of a live region, each {key, cls, content}: the lines already there are kept,
 *  only the new ones are added (a screen reader says the added ones, once each). */
function setLines(box, lines) {
  const kids = [...box.children];
  let same = 0;
  while (same < lines.length && same < kids.length && kids[same].dataset.key === lines[same].key) same += 1;
  for (const kid of kids.slice(same)) kid.remove();
  for (const line of lines.slice(same)) box.append(el("div", { class: line.cls, dataset: { key: line.key } }, line.content));
}

/** What happened since this seat last moved, a sentence each, in the order played: the
 *  other player's cards, who took each trick, their melds and exchanges (shown on the
 *  felt: {text, shown: true}) and the card this seat drew (said, not shown: the felt
 *  shows the rest). "Débutant joue 10♣ et prend le pli.", "Vous piochez D♠." */
export function moveNews(view, seat) {
  const out = [];
  if (seat === null || seat === undefined || !view.log) return out;
  const log = view.log;
  let start = log.length;
  while (start > 0 && log[start - 1].player !== seat) start -= 1;
  const melds = opponentNews(view, seat);
  for (let i = Math.max(0, start - 1); i < log.length; i += 1) {
    const entry = log[i];
    const mine = entry.player === seat;
    const name = view.players[entry.player];
    const a = entry.action;
    const said = (text) => out.push({ text, shown: false });
    if (a === "draw") {
      if (entry.you_drew) said(t("news.you_drew", { card: cardLabel(entry.you_drew) }));
    } else if (a === "dix" || a.startsWith("meld ")) {
      if (!mine && melds.length) out.push({ text: sentence(melds.shift(), { keepCase: true }), shown: true });
    } else if (entry.won_by === undefined) {
      if (!mine) said(t("news.led", { name, card: cardLabel(a) }));
    } else if (mine) {
      said(entry.won_by === seat ? t("news.you_take") : t("news.takes", { name: view.players[entry.won_by] }));
    } else {
      said(t(entry.won_by === seat ? "news.played_you_take" : "news.played_takes", { name, card: cardLabel(a) }));
    }
  }
  return out;
}

/** The score panel: this deal by source, and the match. */
export function scorePanel(view, seat) {
  const order = seat === null || seat === undefined ? [0, 1] : [seat, 1 - seat];
  const head = el("tr", {}, el("th", {}, el("span", { class: "visually-hidden" }, t("score.source_col"))),
    order.map((p) => nameHeading(view, p, seat)));
  const rows = SOURCES.map((key) =>
    el("tr", {}, el("td", {}, t(`source.${key}`)), order.map((p) => el("td", { class: "num" }, number(view.breakdown[p][key])))));
  const total = el("tr", { class: "total" }, el("td", {}, t("score.deal", { n: view.deal + 1 })),
    order.map((p) => el("td", { class: "num" }, number(view.points[p]))));
  const bars = order.map((p) => {
    const value = view.running[p];
    const pct = Math.min(100, (100 * value) / view.target);
    const bar = el("div", { class: "bar" }, el("div", { class: "fill" + (p === order[0] ? " mine" : "") }));
    bar.firstChild.style.width = `${pct}%`;
    return el("div", { class: "match-line" },
      el("span", { class: "who" }, playerLabel(view, p, seat)),
      bar,
      el("span", { class: "num" }, number(value)));
  });
  return el("div", { class: "panel score-panel" },
    el("h2", {}, t("score.title")),
    el("table", { class: "breakdown" }, el("thead", {}, head), el("tbody", {}, rows, total)),
    el("h3", {}, t("score.match_to", { n: number(view.target) })),
    bars,
    el("p", { class: "muted small" }, t("score.completed", { a: number(view.totals[order[0]]), b: number(view.totals[order[1]]) })));
}

/** Why a player scored by an action, in words: ": aces and tens 10, last card 10". */
function gainReasons(entry, player) {
  const why = (entry.why || []).filter((w) => w.player === player && w.points);
  if (!why.length) return "";
  return `${t("log.because")}${why.map((w) => `${t(`log.source.${w.source}`)} ${w.points > 0 ? "+" : ""}${w.points}`).join(", ")}`;
}

function describeAction(entry, view, seat) {
  const who = el("span", { class: "who" }, subject(view, entry.player, seat));
  const mine = seat === entry.player;
  const a = entry.action;
  let parts;
  if (a === "draw") {
    parts = entry.you_drew ? tNodes("log.drew_you", { card: cardText(entry.you_drew) }) : [t("log.drew")];
  } else if (a === "dix") {
    parts = tNodes(mine ? "log.you_dix" : "log.dix", { who });
  } else if (a.startsWith("meld ")) {
    const id = a.slice(5);
    const meld = (view.melds[entry.player] || []).find((m) => m.id === id);
    const name = meldName(id, view);  // "le marjolet et la dame de trèfle", never "JQC"
    parts = meld ? tNodes(mine ? "log.you_declared" : "log.declared", { who, name, cards: meld.cards.flatMap((c, i) => (i ? [" ", cardText(c)] : [cardText(c)])) })
      : tNodes(mine ? "log.you_declared_name" : "log.declared_name", { who, name });
  } else if (entry.won_by === undefined) {
    parts = tNodes(mine ? "log.you_led" : "log.led", { who, card: cardText(a) });
  } else {
    parts = tNodes(mine ? "log.you_played" : "log.played", { who, card: cardText(a) });
    const taker = seat === entry.won_by ? t("log.you_take") : t("log.takes", { name: view.players[entry.won_by] });
    parts.push(el("span", { class: "muted" }, ` \u2192 ${taker}`));
  }
  if (entry.gain) {
    const g = entry.gain.map((v, p) => (v ? `${subject(view, p, seat)} +${v}${gainReasons(entry, p)}` : null)).filter(Boolean);
    if (g.length) parts.push(el("span", { class: "gain" }, ` (${g.join(", ")})`));
  }
  return parts;
}

/** The action log of the deal, a trick per group; `upto` limits it (replay). */
export function logPanel(view, log, seat, upto) {
  const list = el("ol", { class: "log-list" });
  let trick = null;
  let group = null;
  const n = upto === undefined ? log.length : upto;
  for (let i = 0; i < n; i += 1) {
    const entry = log[i];
    if (entry.trick !== trick) {
      trick = entry.trick;
      group = el("ul", {});
      list.append(el("li", { class: "trick-group" }, el("span", { class: "trick-no" }, t("log.trick", { n: trick })), group));
    }
    group.append(el("li", { class: i === n - 1 ? "latest" : null }, describeAction(entry, view, seat)));
  }
  if (view.seven_turned) {  // the dealer's 10 before any card (R18): said first
    const n = view.breakdown[view.dealer].dix;  // the engine's 10
    const scored = seat === view.dealer ? t("tui.you_seven_turned", { n }) : t("tui.seven_turned", { name: view.players[view.dealer], n });
    list.prepend(el("li", { class: "deal-start" }, scored));
  }
  if (!n) list.append(el("li", { class: "muted" }, t("log.none")));
  // scrolled by the keyboard too: a focusable region, named, read as a log
  const scroller = el("div", { class: "log-scroll", role: "log", tabindex: "0", "aria-label": t("log.title") }, list);
  return el("div", { class: "panel log-panel" }, el("h2", {}, t("log.title")), scroller);
}

/** The end-of-deal summary table: each source for both players, then the match. */
export function dealSummary(summary, view, seat) {
  const order = seat === null || seat === undefined ? [0, 1] : [seat, 1 - seat];
  // "atout\u00a0♥": the trump's sign never wraps alone onto a line of its own
  const head = el("tr", {}, el("th", {}, t("summary.head", { n: summary.index + 1 }), "\u00a0", suitSpan(summary.trump)),
    order.map((p) => nameHeading(view, p, seat)));
  const rows = SOURCES.map((key) =>
    el("tr", {}, el("td", {}, t(`source.${key}`)), order.map((p) => el("td", { class: "num" }, number(summary.breakdown[p][key])))));
  const score = el("tr", { class: "total" }, el("td", {}, t("summary.deal_score")),
    order.map((p) => el("td", { class: "num" }, number(summary.score[p]))));
  const totals = el("tr", { class: "grand" }, el("td", {}, t("summary.match", { n: number(view.target) })),
    order.map((p) => el("td", { class: "num" }, number(summary.totals[p]))));
  return el("table", { class: "summary" }, el("thead", {}, head), el("tbody", {}, rows, score, totals));
}

/** Every deal of the match: trumps, each player's deal score and the running totals. */
export function matchTable(view, seat) {
  const order = seat === null || seat === undefined ? [0, 1] : [seat, 1 - seat];
  const head = el("tr", {}, el("th", {}, t("summary.deal_col")), el("th", {}, t("trump.word")),
    order.map((p) => nameHeading(view, p, seat)));
  const rows = view.deals.map((d) => el("tr", {},
    el("td", { class: "num" }, String(d.index + 1)),
    el("td", {}, suitSpan(d.trump)),
    order.map((p) => el("td", { class: "num" }, number(d.score[p]), el("span", { class: "cumul" }, ` (${number(d.totals[p])})`)))));
  return el("div", {}, el("table", { class: "summary every-deal" }, el("thead", {}, head), el("tbody", {}, rows)),
    el("p", { class: "muted small" }, t("summary.cumul_note")));
}

/** A meld's name in words: "mariage d’atout", "four aces", "le marjolet et la dame de pique". */
export function meldName(id, view) {
  if (id.length === 2) return t(`meld.${id}`);
  const kind = id.slice(0, 2);
  const suit = id.slice(2);
  const sameSuit = view.rules && view.rules.jack_queen === "same-suit";
  const which = kind === "JQ" && sameSuit ? "JQ_same" : kind;
  if (suit === view.trump) return t(`meld.${which}_trump`);
  return t(`meld.${which}`, { suit: suitName(suit) });
}

// -- card movement --------------------------------------------------------------------------

/** Where every card is before a new position is drawn (for animateChanges). */
export function snapshotBoard(parts) {
  if (!parts.felt || !parts.top.firstChild) return null;
  const cards = new Map();
  for (const node of parts.felt.querySelectorAll(".card[data-card]")) {
    cards.set(node.dataset.card, node.getBoundingClientRect());
  }
  const trick = parts.center.querySelector(".trick");
  const done = [...parts.center.querySelectorAll(".trick-card.done .card")].map((node) => ({
    node: node.cloneNode(true), rect: node.getBoundingClientRect(),
  }));
  const stack = parts.center.querySelector(".stock .stack") || parts.center.querySelector(".stock");
  return {
    cards,
    done,
    winnerSide: trick ? trick.dataset.winnerSide : null,
    stock: stack ? stack.getBoundingClientRect() : null,
    near: parts.bottom.getBoundingClientRect(),
    far: parts.top.getBoundingClientRect(),
  };
}

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

/** The screen offset (dx, dy) in the frame of ``node``'s parent: a card in a rotated
 *  slot (the trick's tilted cards, the indicator turned a quarter) must be translated
 *  along its parent's axes, or it starts its flight beside where it was, even off the
 *  screen's edge on a phone. */
function inParentFrame(node, dx, dy) {
  let frame = new DOMMatrix();
  for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
    const t = getComputedStyle(up).transform;
    if (t && t !== "none") frame = new DOMMatrix(t).multiply(frame);
  }
  const linear = new DOMMatrix([frame.a, frame.b, frame.c, frame.d, 0, 0]).inverse();
  const p = linear.transformPoint(new DOMPoint(dx, dy));
  return { x: p.x, y: p.y };
}

/** Move each card from where it was to where it is now (MOVE_MS): a played card from
 *  the hand (or the opponent's side) to the trick, draws from the stock, the dix exchange
 *  between the hand and the indicator, and a taken trick to its winner. */
export function animateChanges(snap, parts, view, seat) {
  if (!snap || reducedMotion()) {
    parts.felt.dataset.moves = "0";
    return;
  }
  let moves = 0;
  let laid = false;
  const bottomPlayer = seat === null || seat === undefined ? 0 : seat;
  for (const node of parts.felt.querySelectorAll(".card[data-card]")) {
    const now = node.getBoundingClientRect();
    let from = snap.cards.get(node.dataset.card);
    const slot = node.closest(".trick-card");
    if (!from && slot && !slot.classList.contains("done")) {
      from = Number(slot.dataset.player) === bottomPlayer ? snap.near : snap.far;
      laid = true;
    } else if (!from && node.closest(".hand, .indicator") && snap.stock) {
      from = snap.stock;
    }
    if (!from) continue;
    const a = centre(from);
    const b = centre(now);
    const dx = a.x - b.x;
    const dy = a.y - b.y;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    if (slot && snap.cards.has(node.dataset.card)) laid = true;
    const local = inParentFrame(node, dx, dy);
    node.animate([{ translate: `${local.x}px ${local.y}px` }, { translate: "0 0" }], { duration: MOVE_MS, easing: "ease-out" });
    moves += 1;
  }
  const trickGone = snap.done.length && !parts.center.querySelector(".trick-card.done");
  if (trickGone) {
    const target = centre(snap.winnerSide === "near" ? snap.near : snap.far);
    for (const { node, rect } of snap.done) {
      const ghost = node;
      ghost.classList.add("ghost");
      Object.assign(ghost.style, {
        position: "fixed", left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px`,
        height: `${rect.height}px`, margin: "0", pointerEvents: "none", zIndex: "30",
      });
      document.body.append(ghost);
      const c = centre(rect);
      const run = ghost.animate(
        [{ translate: "0 0", opacity: 1 }, { translate: `${target.x - c.x}px ${target.y - c.y}px`, opacity: 0 }],
        { duration: MOVE_MS, easing: "ease-in" },
      );
      run.onfinish = () => ghost.remove();
      moves += 1;
    }
    playSound("trick");
  }
  if (laid) playSound("card");
  parts.felt.dataset.moves = String(moves);
}

export { suitOf };
