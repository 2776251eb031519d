// Draws one position (a "view" sent by the server) on the felt: both seats,
// the stock and the indicator, the trick, the meld window, the scores, the log.
// Used by the live table (one seat's view) and the replay viewer (open hands).

import {
  cardElement, cardLabel, cardText, clear, el, sortHand, suitOf, SUIT_NAMES, SUIT_SYMBOLS,
} from "./common.js";

const SOURCES = [
  ["cards", "Aces and tens"],
  ["melds", "Melds"],
  ["dix", "Seven of trumps"],
  ["last_card", "Last card"],
  ["last_trick", "Last trick"],
  ["all_tricks", "All six last tricks"],
];

export function playerLabel(view, player, viewer) {
  const name = view.players[player];
  if (viewer === player) return "You";
  return name;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function suitSpan(suit) {
  return el("span", { class: `card-text suit-${suit}` }, SUIT_SYMBOLS[suit]);
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
  };
  root.append(
    el("div", { class: "felt" }, parts.top, parts.center, parts.prompt, parts.actions, parts.bottom),
  );
  return parts;
}

function nameplate(view, player, ctx) {
  const label = playerLabel(view, player, ctx.seat);
  const melds = view.melds[player];
  const connected = ctx.connected ? ctx.connected[player] : true;
  const turn = view.to_move === player;
  return el(
    "div",
    { class: "nameplate" + (turn ? " to-move" : "") },
    el("span", { class: "dot " + (connected ? "on" : "off"), title: connected ? "connected" : "not connected" }),
    el("span", { class: "player-name" }, label),
    view.dealer === player ? el("span", { class: "chip dealer", title: "dealer this deal" }, "dealer") : null,
    el("span", { class: "chip points", title: "points this deal" }, `${view.points[player]} pts`),
    el("span", { class: "chip", title: "tricks won this deal" }, plural(view.won[player] / 2, "trick")),
    melds.length
      ? el(
        "span",
        { class: "meld-list" },
        melds.map((m) => el("span", { class: "chip meld", title: `meld ${m.id}` },
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
    for (const card of sortHand(hand.cards, view.trump)) {
      const classes = [];
      let onclick = null;
      let title = view.blocked && view.blocked[card];
      if (clickable && legalCards.has(card)) {
        classes.push("playable");
        onclick = () => ctx.onAction(card);
      } else if (ctx.seat === player && legalCards.size > 0) {
        classes.push("unplayable");
      }
      if (ctx.hint === card) classes.push("hinted");
      if (exposed.has(card)) classes.push("exposed");
      row.append(cardElement(card, { classes, onclick, title, badge: exposed.has(card) ? "shown" : null }));
    }
  } else {
    const known = sortHand(hand.known || [], view.trump);
    for (const card of known) {
      const badge = exposed.has(card) ? "shown" : "known";
      row.append(cardElement(card, { classes: ["known"], badge, title: exposed.has(card)
        ? "declared in a meld" : "known to you" }));
    }
    for (let i = known.length; i < hand.size; i += 1) row.append(cardElement(null, { classes: ["small"] }));
  }
  if (hand.size === 0) row.append(el("div", { class: "empty-hand" }, "no cards"));
  return row;
}

function stockPile(view) {
  const pile = el("div", { class: "stock", title: `${view.stock} cards left to draw` });
  if (view.indicator) {
    pile.append(el("div", { class: "indicator", title: "indicator (trumps)" }, cardElement(view.indicator)));
  }
  const hidden = Math.max(0, view.stock - (view.indicator ? 1 : 0));
  const layers = Math.min(hidden, 5);
  const stack = el("div", { class: "stack" });
  for (let i = 0; i < layers; i += 1) {
    const c = cardElement(null);
    c.style.setProperty("--layer", String(i));
    stack.append(c);
  }
  pile.append(stack);
  pile.append(
    el("div", { class: "stock-count" }, view.stock > 0 ? `${view.stock} in stock` : "stock empty"),
  );
  return pile;
}

function trickArea(view, ctx, bottomPlayer) {
  const area = el("div", { class: "trick" });
  const place = (card, player, extra) => {
    const slot = player === bottomPlayer ? "near" : "far";
    area.append(el("div", { class: `trick-card ${slot} ${extra || ""}` }, cardElement(card)));
  };
  let caption = null;
  if (view.lead) {
    place(view.lead, view.leader, "");
    caption = `${playerLabel(view, view.leader, ctx.seat)} led ${cardLabel(view.lead)}`;
  } else if (view.last_trick) {
    const t = view.last_trick;
    place(t.cards[0], t.players[0], "done");
    place(t.cards[1], t.players[1], "done second");
    const who = playerLabel(view, t.winner, ctx.seat);
    caption = `${who} ${who === "You" ? "win" : "wins"} trick ${t.number}`;
  } else {
    area.append(el("div", { class: "trick-empty" }, "the first lead goes here"));
  }
  if (caption) area.append(el("div", { class: "trick-caption" }, caption));
  return area;
}

function trumpBadge(view) {
  return el(
    "div",
    { class: "trump-badge", title: `trumps: ${SUIT_NAMES[view.trump]}` },
    el("span", {}, "Trumps"),
    el("span", { class: `big-suit suit-${view.trump}` }, SUIT_SYMBOLS[view.trump]),
    el("span", { class: "small" }, view.phase === 2 ? `trick ${view.trick_number} of 16 · follow suit`
      : `trick ${Math.min(view.trick_number, 16)} of 16`),
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
          title: a.label,
          disabled: ctx.pending,
          dataset: { action: a.action },
          onclick: () => ctx.onAction(a.action),
        }, "Declare ", a.cards.map(cardText), el("span", { class: "value" }, `+${a.value}`)));
      } else if (a.kind === "dix") {
        box.append(el("button", {
          type: "button",
          class: "action dix" + (ctx.hint === a.action ? " hinted" : ""),
          title: "exchange the seven of trumps for the indicator (R18)",
          disabled: ctx.pending,
          dataset: { action: "dix" },
          onclick: () => ctx.onAction("dix"),
        }, "Exchange ", cardText(a.cards[0]), " for ", cardText(a.cards[1]),
        el("span", { class: "value" }, "+10")));
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
      }, view.tricks_played === 10 ? "Draw the last cards" : "Draw"));
    }
  }
  if (ctx.onHint) {
    box.append(el("button", {
      type: "button",
      class: "action hint",
      disabled: !mine || ctx.pending || view.deal_over,
      title: "what the strongest bot would play for you",
      onclick: ctx.onHint,
    }, "Hint"));
  }
  return box;
}

export function promptText(view, ctx) {
  if (view.deal_over) return view.match_over ? "The match is over." : "The deal is over.";
  const who = view.to_move;
  const name = playerLabel(view, who, ctx.seat);
  if (ctx.seat !== null && who === ctx.seat) {
    if (view.in_window) {
      return view.tricks_played === 10
        ? "You won trick 10: declare or exchange, then draw the last cards."
        : "You won the trick: declare melds or exchange the seven, then draw.";
    }
    if (view.lead) {
      return view.phase === 2
        ? `Your turn: answer ${cardLabel(view.lead)} (follow suit and beat it if you can).`
        : `Your turn: answer ${cardLabel(view.lead)} with any card.`;
    }
    return "Your lead: play any card.";
  }
  if (view.in_window) return `${name} won the trick and may declare before drawing...`;
  return ctx.seat === null ? `${name} to play.` : `${name} is thinking...`;
}

/** Draw `view` into the parts of buildBoard. ctx: {seat, interactive, legal,
 *  pending, hint, onAction, onHint, connected}. */
export function renderBoard(parts, view, ctx) {
  const bottomPlayer = ctx.seat === null || ctx.seat === undefined ? 0 : ctx.seat;
  const topPlayer = 1 - bottomPlayer;
  ctx.legal = view.legal || [];
  clear(parts.top).append(nameplate(view, topPlayer, ctx), handRow(view, topPlayer, ctx, false));
  clear(parts.center).append(stockPile(view), trickArea(view, ctx, bottomPlayer), trumpBadge(view));
  clear(parts.prompt).append(ctx.message || promptText(view, ctx));
  clear(parts.actions).append(windowActions(view, ctx));
  clear(parts.bottom).append(handRow(view, bottomPlayer, ctx, true), nameplate(view, bottomPlayer, ctx));
}

/** The score panel: this deal by source, and the match. */
export function scorePanel(view, seat) {
  const order = seat === null || seat === undefined ? [0, 1] : [seat, 1 - seat];
  const head = el("tr", {}, el("th", {}, ""), order.map((p) => el("th", {}, playerLabel(view, p, seat))));
  const rows = SOURCES.map(([key, label]) =>
    el("tr", {}, el("td", {}, label), order.map((p) => el("td", { class: "num" }, view.breakdown[p][key]))));
  const total = el("tr", { class: "total" }, el("td", {}, `Deal ${view.deal + 1}`),
    order.map((p) => el("td", { class: "num" }, view.points[p])));
  const bars = order.map((p) => {
    const value = view.running[p];
    const pct = Math.min(100, (100 * value) / view.target);
    const bar = el("div", { class: "bar" }, el("div", { class: "fill" + (p === order[0] ? " mine" : "") }));
    bar.firstChild.style.width = `${pct}%`;
    return el("div", { class: "match-line" },
      el("span", { class: "who" }, playerLabel(view, p, seat)),
      bar,
      el("span", { class: "num" }, `${value}`));
  });
  return el("div", { class: "panel score-panel" },
    el("h2", {}, "Score"),
    el("table", { class: "breakdown" }, el("thead", {}, head), el("tbody", {}, rows, total)),
    el("h3", {}, `Match to ${view.target}`),
    bars,
    el("p", { class: "muted small" }, `Completed deals: ${view.totals[order[0]]} \u2013 ${view.totals[order[1]]}`));
}

function describeAction(entry, view, seat) {
  const who = playerLabel(view, entry.player, seat);
  const a = entry.action;
  const parts = [el("span", { class: "who" }, who), " "];
  if (a === "draw") {
    parts.length = 0;
    parts.push(entry.you_drew ? ["Both drew: you got ", cardText(entry.you_drew)] : "Both drew");
  } else if (a === "dix") {
    parts.push("exchanged the seven of trumps");
  } else if (a.startsWith("meld ")) {
    const id = a.slice(5);
    const meld = (view.melds[entry.player] || []).find((m) => m.id === id);
    parts.push("declared ", meld ? meld.cards.map(cardText) : id);
  } else {
    parts.push(entry.won_by === undefined ? "led " : "played ", cardText(a));
    if (entry.won_by !== undefined) {
      const winner = playerLabel(view, entry.won_by, seat);
      parts.push(el("span", { class: "muted" }, ` \u2192 ${winner} ${winner === "You" ? "take" : "takes"} it`));
    }
  }
  if (entry.gain) {
    const g = entry.gain.map((v, p) => (v ? `${playerLabel(view, p, seat)} +${v}` : null)).filter(Boolean);
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
      list.append(el("li", { class: "trick-group" }, el("span", { class: "trick-no" }, `Trick ${trick}`), group));
    }
    group.append(el("li", { class: i === n - 1 ? "latest" : null }, describeAction(entry, view, seat)));
  }
  if (!n) list.append(el("li", { class: "muted" }, "No card played yet."));
  return el("div", { class: "panel log-panel" }, el("h2", {}, "Log"), list);
}

/** The end-of-deal summary table: each source for both players, then the match. */
export function dealSummary(summary, view, seat) {
  const order = seat === null || seat === undefined ? [0, 1] : [seat, 1 - seat];
  const head = el("tr", {}, el("th", {}, `Deal ${summary.index + 1} · trumps `, suitSpan(summary.trump)),
    order.map((p) => el("th", {}, playerLabel(view, p, seat))));
  const rows = SOURCES.map(([key, label]) =>
    el("tr", {}, el("td", {}, label), order.map((p) => el("td", { class: "num" }, summary.breakdown[p][key]))));
  const score = el("tr", { class: "total" }, el("td", {}, "Deal score"),
    order.map((p) => el("td", { class: "num" }, summary.score[p])));
  const totals = el("tr", { class: "grand" }, el("td", {}, `Match (to ${view.target})`),
    order.map((p) => el("td", { class: "num" }, summary.totals[p])));
  return el("table", { class: "summary" }, el("thead", {}, head), el("tbody", {}, rows, score, totals));
}

export { suitOf };
