// Game review in the replay viewer: asks the server for the review of a
// finished game (computed once in its bot threads, then stored), marks the
// log, draws the evaluation graph and shows every legal action's value at
// the current position. See docs/review.md.

import { api, clear, el, t } from "./common.js";

export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const JUDGEMENTS = { inaccuracy: "review.inaccuracy", mistake: "review.mistake", blunder: "review.blunder" };
const SVG = "http://www.w3.org/2000/svg";

/** A judgement ("mistake") in the reader's language. */
function judgementName(judgement) {
  return JUDGEMENTS[judgement] ? t(JUDGEMENTS[judgement]) : judgement;
}

/** The review of a finished game, started if needed; `onProgress(status)` while it runs. */
export async function fetchReview(gameId, onProgress) {
  const path = `/api/games/${encodeURIComponent(gameId)}/review`;
  let status = await api(path);
  if (status.status === "none" || status.status === "failed") {
    status = await api(path, { method: "POST", json: {} });
  }
  while (status.status === "running") {
    onProgress(status);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    status = await api(path);
  }
  if (status.status === "done") return status.review;
  throw new Error(status.message || t("review.failed"));
}

/** Decisions by "deal:action". */
export function byPlace(review) {
  const out = new Map();
  for (const d of review.decisions) out.set(`${d.deal}:${d.action}`, d);
  return out;
}

function figure(x, exact) {
  const v = exact ? String(Math.round(x)) : x.toFixed(1);
  return x > 0 ? `+${v}` : v;
}

function lossText(d) {
  if (d.exact) return `${d.loss}`;
  return d.stderr ? `${d.loss.toFixed(1)}\u00b1${d.stderr.loss.toFixed(1)}` : d.loss.toFixed(1);
}

function source(d) {
  if (d.view === "ending") return t("review.source_exact");
  return t(d.exact ? "review.source_open" : "review.source_estimate");
}

/** Add the marks to a rendered log panel: entry i of the deal is action i. */
export function markLog(logNode, places, deal) {
  const items = logNode.querySelectorAll(".log-list ul > li");
  items.forEach((item, i) => {
    const d = places.get(`${deal}:${i}`);
    if (!d || !d.judgement) return;
    item.classList.add(`review-${d.judgement}`);
    const best = d.best.join(" ");
    const title = t("review.mark_title", { judgement: judgementName(d.judgement), best, loss: lossText(d) });
    item.append(el("span", { class: "review-mark", title },
      t("review.mark", { mark: MARKS[d.judgement], best, loss: lossText(d) })));
  });
}

/** The values of every legal action at `step` of `deal`, and the deal's marked decisions. */
export function reviewPanel(review, places, deal, step, players, go) {
  const box = el("div", { class: "panel review-panel" }, el("h2", {}, t("end.review")));
  const d = places.get(`${deal}:${step}`);
  if (d) {
    const order = Object.entries(d.values).sort((a, b) => b[1] - a[1]);
    box.append(el("p", {}, t("review.to_choose", { name: players[d.seat], source: source(d) })),
      el("ul", { class: "review-values" }, order.map(([name, v]) =>
        el("li", { class: d.best.includes(name) ? "best" : null },
          `${name} ${figure(v, d.exact)}${name === d.played ? t("review.played_mark") : ""}`))));
    if (d.loss > 0) {
      const judgement = d.judgement ? ` (${judgementName(d.judgement)})` : "";
      box.append(el("p", {}, t("review.lost", { card: d.played, loss: lossText(d), judgement })));
    }
  } else {
    box.append(el("p", { class: "muted" }, t("review.no_choice")));
  }
  const marked = review.decisions.filter((x) => x.deal === deal && x.judgement);
  if (marked.length) {
    box.append(el("h3", {}, t("review.marked")), el("ul", { class: "review-marked" }, marked.map((x) =>
      el("li", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); go(x.action); } },
        t("review.marked_item", { trick: x.trick, name: players[x.seat], played: x.played,
          mark: MARKS[x.judgement], best: x.best.join(" "), loss: lossText(x) }))))));
  }
  const summary = review.players.map((p) =>
    el("li", {}, t("review.summary", { name: players[p.seat],
      accuracy: p.accuracy === null ? "-" : Math.round(p.accuracy) + "%",
      inaccuracies: p.inaccuracies, mistakes: p.mistakes, blunders: p.blunders })));
  box.append(el("ul", { class: "review-summary" }, summary));
  return box;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** The evaluation across the match: the best value at each decision, player 0's side up. */
export function evaluationGraph(review, current, players) {
  const width = 600;
  const height = 120;
  const limit = 150;
  const ds = review.decisions;
  const graph = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "review-graph", role: "img",
    "aria-label": t("review.graph_label", { a: players[0], b: players[1] }) });
  graph.append(svg("line", { x1: 0, y1: height / 2, x2: width, y2: height / 2, stroke: "currentColor", "stroke-opacity": 0.3 }));
  if (!ds.length) return graph;
  const x = (i) => (ds.length === 1 ? width / 2 : (i * width) / (ds.length - 1));
  const y = (d) => {
    const v = Math.max(-limit, Math.min(limit, d.seat === 0 ? d.value_best : -d.value_best));
    return height / 2 - (v / limit) * (height / 2 - 4);
  };
  let previous = -1;
  ds.forEach((d, i) => {
    if (d.deal !== previous && i > 0) {
      graph.append(svg("line", { x1: x(i), y1: 0, x2: x(i), y2: height, stroke: "currentColor", "stroke-opacity": 0.2 }));
    }
    previous = d.deal;
  });
  graph.append(svg("polyline", { points: ds.map((d, i) => `${x(i)},${y(d)}`).join(" "), fill: "none",
    stroke: "currentColor", "stroke-width": 1.5 }));
  ds.forEach((d, i) => {
    if (d.judgement) graph.append(svg("circle", { cx: x(i), cy: y(d), r: 3, class: `review-dot review-${d.judgement}` }));
  });
  const here = ds.findIndex((d) => d.deal > current.deal || (d.deal === current.deal && d.action >= current.step));
  if (here >= 0) graph.append(svg("line", { x1: x(here), y1: 0, x2: x(here), y2: height, stroke: "currentColor", "stroke-dasharray": "3 3" }));
  return el("div", { class: "panel review-graph-panel" },
    el("h2", {}, t("review.graph_title", { a: players[0], b: players[1] })), graph);
}

/** The button that starts (or shows) the review of a finished game. */
export function reviewButton(gameId, onReady) {
  const button = el("button", { type: "button", class: "action", id: "review-button" }, t("end.review"));
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const review = await fetchReview(gameId, (s) => { button.textContent = t("review.running", { done: s.done, total: s.total }); });
      button.textContent = t("review.done");
      onReady(review);
    } catch (err) {
      button.disabled = false;
      button.textContent = t("review.retry", { error: err.message });
    }
  });
  return button;
}

export { clear };
