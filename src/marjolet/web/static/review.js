// Game review in the replay viewer: asks the server for the review of a
// finished game (computed once in its bot threads, then stored), marks the
// log, draws the evaluation graph and shows every legal action's value at
// the current position. See docs/review.md.

import { api, clear, el } from "./common.js";

export const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const SVG = "http://www.w3.org/2000/svg";

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
  throw new Error(status.message || "the review failed");
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
  if (d.view === "ending") return "exact";
  return d.exact ? "exact, open cards" : "estimate from the player's view";
}

/** Add the marks to a rendered log panel: entry i of the deal is action i. */
export function markLog(logNode, places, deal) {
  const items = logNode.querySelectorAll(".log-list ul > li");
  items.forEach((item, i) => {
    const d = places.get(`${deal}:${i}`);
    if (!d || !d.judgement) return;
    item.classList.add(`review-${d.judgement}`);
    item.append(el("span", { class: "review-mark", title: `${d.judgement}: best was ${d.best.join(" ")}, lost ${lossText(d)}` },
      ` ${MARKS[d.judgement]} best was ${d.best.join(" ")} (\u2212${lossText(d)})`));
  });
}

/** The values of every legal action at `step` of `deal`, and the deal's marked decisions. */
export function reviewPanel(review, places, deal, step, players, go) {
  const box = el("div", { class: "panel review-panel" }, el("h2", {}, "Review"));
  const d = places.get(`${deal}:${step}`);
  if (d) {
    const order = Object.entries(d.values).sort((a, b) => b[1] - a[1]);
    box.append(el("p", {}, `${players[d.seat]} to choose (${source(d)}): `),
      el("ul", { class: "review-values" }, order.map(([name, v]) =>
        el("li", { class: d.best.includes(name) ? "best" : null },
          `${name} ${figure(v, d.exact)}${name === d.played ? " \u2190 played" : ""}`))));
    if (d.loss > 0) box.append(el("p", {}, `Played ${d.played}: lost ${lossText(d)}${d.judgement ? ` (${d.judgement})` : ""}.`));
  } else {
    box.append(el("p", { class: "muted" }, "No choice at this point."));
  }
  const marked = review.decisions.filter((x) => x.deal === deal && x.judgement);
  if (marked.length) {
    box.append(el("h3", {}, "Marked decisions"), el("ul", { class: "review-marked" }, marked.map((x) =>
      el("li", {}, el("a", { href: "#", onclick: (e) => { e.preventDefault(); go(x.action); } },
        `Trick ${x.trick}, ${players[x.seat]}: ${x.played}${MARKS[x.judgement]} best was ${x.best.join(" ")}, lost ${lossText(x)}`)))));
  }
  const summary = review.players.map((p) =>
    el("li", {}, `${players[p.seat]}: accuracy ${p.accuracy === null ? "-" : Math.round(p.accuracy) + "%"}, ` +
      `${p.inaccuracies} inaccuracies, ${p.mistakes} mistakes, ${p.blunders} blunders`));
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
    "aria-label": `evaluation across the match: ${players[0]} up, ${players[1]} down` });
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
    el("h2", {}, `Evaluation (${players[0]} up, ${players[1]} down)`), graph);
}

/** The button that starts (or shows) the review of a finished game. */
export function reviewButton(gameId, onReady) {
  const button = el("button", { type: "button", class: "action", id: "review-button" }, "Review");
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const review = await fetchReview(gameId, (s) => { button.textContent = `Reviewing\u2026 ${s.done}/${s.total}`; });
      button.textContent = "Reviewed";
      onReady(review);
    } catch (err) {
      button.disabled = false;
      button.textContent = `Review (${err.message})`;
    }
  });
  return button;
}

export { clear };
