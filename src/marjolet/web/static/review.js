// Game review in the replay viewer: asks the server for the review of a
// finished game (computed once in its bot threads, then stored), marks the
// log, draws the evaluation graph and shows every legal action's value at
// the current position; near the end of a match, the chance of winning it
// each choice leaves. See docs/review.md.

import { api, cardLabel, clear, el, orList, speakCards, t } from "./common.js";
import { meldName } from "./board.js";

export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const JUDGEMENTS = { inaccuracy: "review.inaccuracy", mistake: "review.mistake", blunder: "review.blunder" };
const SVG = "http://www.w3.org/2000/svg";

/** A judgement ("mistake") in the reader's language. */
function judgementName(judgement) {
  return JUDGEMENTS[judgement] ? t(JUDGEMENTS[judgement]) : judgement;
}

/** The review of a finished game, started if needed; `onProgress(status)` while it runs.
 *  A review that failed (on any server process) is shown as failed; it is
 *  started again only when `retry` says the reader asked for it. */
export async function fetchReview(gameId, onProgress, retry = false) {
  const path = `/api/games/${encodeURIComponent(gameId)}/review`;
  let status = await api(path);
  if (status.status === "none" || (status.status === "failed" && retry)) {
    status = await api(path, { method: "POST", json: {} });
  }
  while (status.status === "running") {
    onProgress(status);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    status = await api(path);
  }
  if (status.status === "done") return status.review;
  throw new Error(t("review.failed"));  // the server's reason is for its log, not the page
}

/** Decisions by "deal:action". */
export function byPlace(review) {
  const out = new Map();
  for (const d of review.decisions) out.set(`${d.deal}:${d.action}`, d);
  return out;
}

/** What the reader calls an action of the record: a card as the table shows it
 *  (R♥, 10♣), a meld by its name, draw and the exchange of the seven in words. */
export function actionLabel(name, view) {
  if (/^[2-9TJQKA][CDHS]$/.test(name)) return cardLabel(name);
  if (name === "draw") return t("review.action_draw");
  if (name === "dix") return t("review.action_dix");
  if (name.startsWith("meld ")) return meldName(name.slice(5), view || {});
  return name;
}

/** A value in whole points; an estimate carries the light "≈" (the exact ones none). */
function figure(x, exact) {
  const n = Math.round(x);
  const v = n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
  return exact ? v : `\u2248${v}`;
}

/** The points lost, as far apart as the list of values shows them (whole points):
 *  never "lost 1" between two values both shown as −11. */
function lossPoints(d) {
  if (!d.values || !(d.played in d.values)) return Math.round(d.loss);
  const top = Math.max(...Object.values(d.values).map((v) => Math.round(v)));
  return top - Math.round(d.values[d.played]);
}

/** The points lost as a signed figure, the "≈" of an estimate before the sign: "−20", "≈−21"
 *  (never "−≈21", which reads as "minus about"). */
function lossText(d) {
  const n = `\u2212${lossPoints(d)}`;
  return d.exact ? n : `\u2248${n}`;
}

/** The same loss with its unit, where a sentence says it: "≈23 points". */
function lossWords(d) {
  return t("review.loss_points", { n: lossPoints(d), approx: d.exact ? "" : "\u2248" });
}

/** A chance of winning the match in whole percent: "62 %", "<1 %" or ">99 %" when not
 *  certain (an estimate, `exact` false, is never shown as 0 or 100). */
function chance(x, exact) {
  const n = Math.round(100 * x);
  const low = n <= 0 && (x > 0 || !exact), high = n >= 100 && (x < 1 || !exact);
  return t("tui.percent", { n: low ? "<1" : high ? ">99" : `${n}` });
}

/** Whether the mark of `d` comes from the chance of winning the match lost. */
function byChance(d) {
  return Boolean(d.match && d.match.decides_mark);
}

/** The best action(s) the mark of `d` speaks of: for the match when it decides the mark. */
function markBest(d, view) {
  const names = byChance(d) ? d.match.best : d.best;
  return orList(names.map((name) => actionLabel(name, view)));
}

/** The match line of a decision near the end of a match ("" elsewhere). */
function matchText(d, view) {
  const m = d.match;
  if (!m) return "";
  if (m.best.includes(d.played)) return t("review.match_kept", { played: chance(m.chance_played, d.exact) });
  const judgement = byChance(d) && d.judgement ? ` (${judgementName(d.judgement)})` : "";
  return t("review.match_line", { best: chance(m.chance_best, d.exact), played: chance(m.chance_played, d.exact),
    better: orList(m.best.map((name) => actionLabel(name, view))),
    card: actionLabel(d.played, view), judgement });
}

function source(d) {
  if (d.view === "ending") return t("review.source_exact");
  return t(d.exact ? "review.source_open" : "review.source_estimate");
}

/** Add the marks to a rendered log panel: entry i of the deal is action i. */
export function markLog(logNode, places, deal, view) {
  const items = logNode.querySelectorAll(".log-list ul > li");
  items.forEach((item, i) => {
    const d = places.get(`${deal}:${i}`);
    if (!d || !d.judgement) return;
    item.classList.add(`review-${d.judgement}`);
    const best = markBest(d, view);
    const judgement = judgementName(d.judgement);
    const mark = MARKS[d.judgement];
    let title;
    let text;
    if (byChance(d)) {
      const chances = { best_chance: chance(d.match.chance_best, d.exact),
        played_chance: chance(d.match.chance_played, d.exact) };
      title = t("review.mark_title_match", { judgement, best, ...chances });
      text = t("review.mark_match", { mark, best, ...chances });
    } else {
      title = t("review.mark_title", { judgement, best, loss: lossWords(d) });
      text = t("review.mark", { mark, best, loss: lossText(d) });
    }
    item.append(el("span", { class: "review-mark", title }, speakCards(text)));
  });
}

/** The players' names inside a sentence: the seat `you` (this browser's, a player who gave
 *  no name: "You" at the table) as "you"/"vous", the others as given. */
function namesIn(players, you) {
  return players.map((name, seat) => (seat === you ? t("player.you_in") : name));
}

/** The values of every legal action at `step` of `deal`, and the deal's marked decisions;
 *  `partial`: the review is of the finished deals of a game still being played, and its
 *  summary says over how many deals, not "over the whole match"; `you`: the seat the
 *  table called "You" (a player who gave no name, in this browser), spoken to so here too. */
export function reviewPanel(review, places, deal, step, players, go, view, partial = false, you = null) {
  const box = el("div", { class: "panel review-panel" }, el("h2", {}, t("review.heading")));
  const d = places.get(`${deal}:${step}`);
  if (d) {
    const chances = d.match ? d.match.chances : null;
    const bests = byChance(d) ? d.match.best : d.best;
    const order = Object.entries(d.values).sort((a, b) =>
      chances ? chances[b[0]] - chances[a[0]] || b[1] - a[1] : b[1] - a[1]);
    const yours = d.seat === you ? "_you" : "";  // "À vous de choisir", not "À Vous"
    box.append(el("p", {}, t(`review.to_choose${yours}`, { name: players[d.seat], source: source(d) })),
      el("ul", { class: "review-values" }, order.map(([name, v]) =>
        el("li", { class: bests.includes(name) ? "best" : null }, speakCards(
          `${actionLabel(name, view)} ${figure(v, d.exact)}${chances ? ` (${chance(chances[name], d.exact)})` : ""}` +
          `${name === d.played ? t("review.played_mark") : ""}`)))));
    // what "≈−6" beside a card means: a deal-score difference, from the chooser's side
    box.append(el("p", { class: "small muted review-values-note" }, t(`review.values_note${yours}`, { name: players[d.seat] })));
    if (chances) box.append(el("p", { class: "small muted review-chances-note" }, t("review.chances_note")));
    // the best move in bold is the one that wins the match most often, not the one that scores most
    if (byChance(d)) box.append(el("p", { class: "small review-by-chance" }, t("review.best_by_chance")));
    if (d.loss > 0 && lossPoints(d) > 0) {
      const judgement = d.judgement && !byChance(d) ? ` (${judgementName(d.judgement)})` : "";
      box.append(el("p", {}, speakCards(t("review.lost", { card: actionLabel(d.played, view), loss: lossWords(d), judgement }))));
    }
    if (d.match) box.append(el("p", { class: "review-match" }, speakCards(matchText(d, view))));
  } else {
    box.append(el("p", { class: "muted" }, t("review.no_choice")));
  }
  const marked = review.decisions.filter((x) => x.deal === deal && x.judgement);
  if (marked.length) {
    box.append(el("h3", {}, t("review.marked", { n: deal + 1 })), el("ul", { class: "review-marked" }, marked.map((x) =>
      el("li", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); go(x.action); } },
        speakCards(markedItem(x, namesIn(players, you), view)))))));
  }
  const summary = review.players.map((p) =>
    el("li", {}, t("review.summary", { name: players[p.seat],
      accuracy: p.accuracy === null ? "-" : t("tui.percent", { n: Math.round(p.accuracy) }),
      // the points lost, as the terminal's summary says them (exact ones, and the estimates in whole points)
      lost: t("tui.review_points_lost", { n: (p.exact_loss || 0) + Math.round(p.estimated_loss || 0) }),
      inaccuracies: t("review.inaccuracies", { n: p.inaccuracies }),
      mistakes: t("review.mistakes", { n: p.mistakes }), blunders: t("review.blunders", { n: p.blunders }) })));
  const title = partial
    ? t("review.summary_title_deals", { n: new Set(review.decisions.map((x) => x.deal)).size })
    : t("review.summary_title");
  box.append(el("p", { class: "review-summary-title" }, title),
    el("ul", { class: "review-summary" }, summary));
  return box;
}

/** One line of the deal's marked decisions. */
function markedItem(x, players, view) {
  const words = { trick: x.trick, name: players[x.seat], played: actionLabel(x.played, view),
    mark: MARKS[x.judgement], best: markBest(x, view) };
  if (byChance(x)) {
    return t("review.marked_item_match", { ...words, best_chance: chance(x.match.chance_best, x.exact),
      played_chance: chance(x.match.chance_played, x.exact) });
  }
  return t("review.marked_item", { ...words, loss: lossWords(x) });
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function svgText(x, y, text, anchor) {
  const node = svg("text", { x, y, "text-anchor": anchor, "font-size": 12, fill: "currentColor", "fill-opacity": 0.75 });
  node.textContent = text;
  return node;
}

/** Each mark's shape on the graph, and in its legend: never told by colour alone. */
const SHAPES = { inaccuracy: "\u25CF", mistake: "\u25A0", blunder: "\u25B2" };

/** A marked decision on the graph: a circle (?!), a square (?) or a triangle (??). */
function dot(judgement, cx, cy) {
  const attrs = { class: `review-dot review-${judgement}`, "data-mark": judgement };
  if (judgement === "mistake") return svg("rect", { ...attrs, x: cx - 3.5, y: cy - 3.5, width: 7, height: 7 });
  if (judgement === "blunder") {
    return svg("polygon", { ...attrs, points: `${cx},${cy - 5} ${cx - 4.5},${cy + 3.5} ${cx + 4.5},${cy + 3.5}` });
  }
  return svg("circle", { ...attrs, cx, cy, r: 3.5 });
}

/** The least side of a mark's target on the screen, in CSS pixels (WCAG 2.5.8): a mark is
 *  drawn about 7 pixels wide, too small for a finger on a phone; 2 more for rounding. */
const TARGET_PX = 26;

/** The transparent square a tap on the mark of decision `i` finds, centred on the mark;
 *  its side is set in screen pixels once the graph is laid out (sizeTargets). */
function markTarget(i, cx, cy) {
  const side = TARGET_PX + 4;  // about right on a phone before the first layout
  return svg("rect", { class: "review-target", "data-index": i, "data-cx": cx, "data-cy": cy,
    x: cx - side / 2, y: cy - side / 2, width: side, height: side, fill: "transparent" });
}

/** Give each mark's target TARGET_PX screen pixels a side, whatever the graph's drawn
 *  width (`width`: its width in its own units); again each time the graph is resized. */
function sizeTargets(graph, width) {
  const shown = graph.getBoundingClientRect().width;
  if (!shown) return;  // not on the page (yet)
  const side = (TARGET_PX * width) / shown;
  for (const node of graph.querySelectorAll(".review-target")) {
    node.setAttribute("x", Number(node.dataset.cx) - side / 2);
    node.setAttribute("y", Number(node.dataset.cy) - side / 2);
    node.setAttribute("width", side);
    node.setAttribute("height", side);
  }
}

/** The decision whose mark's target holds the tap at (`x`, `y`) on the screen, or -1;
 *  where the targets of close marks overlap, the mark nearest the tap. */
function tappedMark(graph, x, y) {
  let found = -1;
  let nearest = Infinity;
  for (const node of graph.querySelectorAll(".review-target")) {
    const box = node.getBoundingClientRect();
    if (x < box.left || x > box.right || y < box.top || y > box.bottom) continue;
    const distance = Math.hypot(x - (box.left + box.right) / 2, y - (box.top + box.bottom) / 2);
    if (distance < nearest) [found, nearest] = [Number(node.dataset.index), distance];
  }
  return found;
}

/** What the marks mean, their thresholds as the review JSON gives them (its thresholds,
 *  from marjolet.analysis.marks: the one place they are set), as the terminal says it. */
export function marksNoteText(review, byMatch) {
  const points = review.thresholds;
  // an estimated loss past a mistake's threshold that may still be only an inaccuracy
  const parts = [t("review.marks_note", points),
    t("review.marks_note_estimate", { about: `\u2248${points.mistake + 1}` })];
  const chance = review.match_thresholds;
  if (byMatch && chance) {
    parts.push(t("review.marks_note_match",
      Object.fromEntries(Object.entries(chance).map(([k, v]) => [k, Math.round(100 * v)]))));
  }
  return parts.join(" ");
}

/** The graph as a slider for the keyboard: Tab reaches it, the arrows step to the
 *  previous or next decision (as a tap there does), Home and End to the first and last;
 *  it says which decision it stands on. `here`: the first decision at or after the
 *  position shown (-1: after them all). */
function keyboardGraph(graph, ds, here, current, players, goTo, viewOf) {
  if (!ds.length) return;
  const on = here >= 0 && ds[here].deal === current.deal && ds[here].action === current.step;
  const at = here < 0 ? ds.length - 1 : here;  // the decision the graph speaks of
  const d = ds[at];
  const words = { deal: d.deal + 1, trick: d.trick, name: players[d.seat], played: actionLabel(d.played, viewOf(d.deal)),
    mark: d.judgement ? ` ${MARKS[d.judgement]} (${judgementName(d.judgement)})` : "" };
  graph.setAttribute("role", "slider");
  graph.setAttribute("tabindex", "0");
  graph.setAttribute("aria-valuemin", "1");
  graph.setAttribute("aria-valuemax", String(ds.length));
  graph.setAttribute("aria-valuenow", String(at + 1));
  graph.setAttribute("aria-valuetext", t("review.graph_point", words));
  graph.addEventListener("keydown", (event) => {
    let to = null;
    if (event.key === "ArrowRight" || event.key === "ArrowUp") to = here < 0 ? null : on ? here + 1 : here;
    else if (event.key === "ArrowLeft" || event.key === "ArrowDown") to = here < 0 ? ds.length - 1 : here - 1;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = ds.length - 1;
    else return;
    // the page's own arrows step through the deal's actions: not these
    event.preventDefault();
    event.stopPropagation();
    if (to === null || to < 0 || to >= ds.length) return;
    goTo(ds[to].deal, ds[to].action);
  });
}

/** The evaluation across the match: the best value at each decision, player 0's side up,
 *  with its axes (points up and down, the deals along) and a legend; a tap on the graph
 *  steps to the decision under it (`goTo(deal, action)`). */
export function evaluationGraph(review, current, shown, goTo, you = null, viewOf = () => ({})) {
  const players = namesIn(shown, you);  // inside sentences: "vous en haut"
  // drawn in about the screen's own units up to 600, so that on a phone its labels are not
  // shrunk to a 6-pixel print (a 600-wide drawing on a 330-pixel panel)
  const width = Math.round(Math.max(320, Math.min(600, window.innerWidth || 600)));
  const height = 150;
  const left = 34;
  const top = 6;
  const plot = 120;
  const limit = 150;
  const ds = review.decisions;
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "review-graph", role: "img",
    "aria-label": t("review.graph_label", { a: players[0], b: players[1] }) });
  const mid = top + plot / 2;
  graph.append(svg("line", { x1: left, y1: top, x2: left, y2: top + plot, stroke: "currentColor", "stroke-opacity": 0.5 }),
    svg("line", { x1: left, y1: mid, x2: width, y2: mid, stroke: "currentColor", "stroke-opacity": 0.3 }),
    svgText(left - 4, top + 9, `+${limit}`, "end"), svgText(left - 4, mid + 4, "0", "end"),
    svgText(left - 4, top + plot, `\u2212${limit}`, "end"));
  if (!ds.length) return graph;
  const span = width - left - 6;
  const x = (i) => left + 3 + (ds.length === 1 ? span / 2 : (i * span) / (ds.length - 1));
  const y = (d) => {
    const v = Math.max(-limit, Math.min(limit, d.seat === 0 ? d.value_best : -d.value_best));
    return mid - (v / limit) * (plot / 2 - 4);
  };
  let previous = -1;
  ds.forEach((d, i) => {
    if (d.deal !== previous) {
      if (i > 0) graph.append(svg("line", { x1: x(i), y1: top, x2: x(i), y2: top + plot, stroke: "currentColor", "stroke-opacity": 0.2 }));
      graph.append(svgText(x(i) + 2, height - 4, t("review.graph_deal", { n: d.deal + 1 }), "start"));
    }
    previous = d.deal;
  });
  graph.append(svg("polyline", { points: ds.map((d, i) => `${x(i)},${y(d)}`).join(" "), fill: "none",
    stroke: "currentColor", "stroke-width": 1.5 }));
  ds.forEach((d, i) => {
    if (d.judgement) graph.append(dot(d.judgement, x(i), y(d)));
  });
  // over the marks, so that a finger finds each (a transparent square of TARGET_PX screen pixels)
  if (goTo) ds.forEach((d, i) => { if (d.judgement) graph.append(markTarget(i, x(i), y(d))); });
  const here = ds.findIndex((d) => d.deal > current.deal || (d.deal === current.deal && d.action >= current.step));
  if (here >= 0) graph.append(svg("line", { x1: x(here), y1: top, x2: x(here), y2: top + plot, stroke: "currentColor", "stroke-dasharray": "3 3" }));
  if (goTo) {
    graph.classList.add("clickable");
    graph.addEventListener("click", (event) => {
      // a tap on a mark's target is for that mark, even where an unmarked decision is nearer
      let nearest = tappedMark(graph, event.clientX, event.clientY);
      if (nearest < 0) {
        const box = graph.getBoundingClientRect();
        const at = ((event.clientX - box.left) / box.width) * width;
        nearest = 0;
        ds.forEach((d, i) => { if (Math.abs(x(i) - at) < Math.abs(x(nearest) - at)) nearest = i; });
      }
      goTo(ds[nearest].deal, ds[nearest].action);
    });
    if (window.ResizeObserver) {
      // the graph is drawn anew at each step: the observer of one taken off the page ends
      const resized = new ResizeObserver(() => (graph.isConnected ? sizeTargets(graph, width) : resized.disconnect()));
      resized.observe(graph);
    }
    keyboardGraph(graph, ds, here, current, players, goTo, viewOf);
  }
  const legend = el("p", { class: "review-legend small" },
    t("review.graph_legend", { a: players[0], b: players[1] }), " ",
    // the keyboard's way to the graph: not on a touch screen, which has no Tab or arrows
    el("span", { class: "keys-only" }, t("review.graph_keys"), " "),
    ...Object.keys(MARKS).map((j) => el("span", { class: `review-key review-${j}` }, `${SHAPES[j]} `, `${MARKS[j]} `, judgementName(j))));
  // what the marks mean, and why an estimated loss of 21 points can be only a "?!"
  const byMatch = ds.some((d) => byChance(d));
  const marksNote = el("p", { class: "review-marks-note small muted" }, marksNoteText(review, byMatch));
  return el("div", { class: "panel review-graph-panel" },
    el("h2", {}, t("review.graph_title_plain")), graph, legend, marksNote);
}

/** The button that starts (or shows) the review of a game (its finished deals if it goes on). */
export function reviewButton(gameId, onReady, label = t("end.review")) {
  const button = el("button", { type: "button", class: "action", id: "review-button" }, label);
  let failed = false; // the failure was shown: the next click tries again
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const review = await fetchReview(gameId, (s) => { button.textContent = t("review.running", { done: s.done, total: s.total }); }, failed);
      button.textContent = t("review.done");
      onReady(review);
    } catch (err) {
      failed = true;
      button.disabled = false;
      button.textContent = t("review.retry", { error: err.message });
    }
  });
  return button;
}

export { clear };
