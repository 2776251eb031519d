// The replay viewer: a stored game (?game=ID) or an uploaded record, checked
// by the server and shown position by position with both hands open.

import { api, applyPreferences, clear, el, topbar } from "./common.js";
import { buildBoard, dealSummary, logPanel, renderBoard, scorePanel } from "./board.js";
import { byPlace, evaluationGraph, markLog, reviewButton, reviewPanel } from "./review.js";

const state = { data: null, deal: 0, step: 0, timer: null, review: null, places: null };
let parts = null;

function $(id) {
  return document.getElementById(id);
}

function showError(message) {
  const node = $("upload-error");
  clear(node).append(message);
  node.hidden = !message;
}

function frames() {
  return state.data.deals[state.deal].frames;
}

function show() {
  const deal = state.data.deals[state.deal];
  const frame = deal.frames[state.step];
  const view = { ...frame, players: state.data.record.players || ["player 0", "player 1"] };
  renderBoard(parts, view, { seat: null, interactive: false, message: stepText(deal, state.step) });
  clear($("score")).append(scorePanel(view, null));
  const log = clear($("log"));
  log.append(logPanel(view, deal.log, null, state.step));
  const list = log.querySelector(".log-list");
  if (list) list.scrollTop = list.scrollHeight;
  showReview(view.players);
  $("slider").max = String(deal.frames.length - 1);
  $("slider").value = String(state.step);
  clear($("position")).append(`action ${state.step} of ${deal.frames.length - 1}`);
}

function showReview(players) {
  const box = $("review");
  if (!box) return;
  clear(box);
  if (!state.review) return;
  markLog($("log"), state.places, state.deal);
  box.append(reviewPanel(state.review, state.places, state.deal, state.step, players, go),
    evaluationGraph(state.review, { deal: state.deal, step: state.step }, players));
}

function reviewReady(review) {
  state.review = review;
  state.places = byPlace(review);
  show();
}

function stepText(deal, step) {
  if (step === 0) return "Start of the deal.";
  const entry = deal.log[step - 1];
  const frame = deal.frames[step];
  if (frame.deal_over) return "End of the deal.";
  return `Trick ${entry.trick}: ${entry.action}`;
}

function go(step) {
  const n = frames().length;
  state.step = Math.max(0, Math.min(n - 1, step));
  show();
}

function togglePlay() {
  if (state.timer) {
    clearInterval(state.timer);
    state.timer = null;
    $("play").textContent = "Play";
    return;
  }
  $("play").textContent = "Pause";
  state.timer = setInterval(() => {
    if (state.step >= frames().length - 1) {
      togglePlay();
      return;
    }
    go(state.step + 1);
  }, 700);
}

function resultTable() {
  const box = clear($("result"));
  const players = state.data.record.players || ["player 0", "player 1"];
  const result = state.data.result;
  box.append(el("h2", {}, "Scores"));
  result.deals.forEach((d, i) => {
    const view = { players, target: state.data.target };
    const totals = [0, 0];
    for (let k = 0; k <= i; k += 1) {
      totals[0] += result.deals[k].score[0];
      totals[1] += result.deals[k].score[1];
    }
    const summary = { index: i, trump: d.trump, breakdown: d.breakdown, score: d.score, totals };
    box.append(dealSummary(summary, view, null));
    if (!d.complete) box.append(el("p", { class: "muted" }, "(deal in progress)"));
  });
  const winner = result.winner === null ? "match not decided" : `${players[result.winner]} wins`;
  box.append(el("p", { class: "final" }, `Totals ${result.totals[0]} \u2013 ${result.totals[1]}: ${winner}.`));
}

function load(data, title, downloads) {
  state.data = data;
  state.data.target = data.deals.length ? data.deals[0].frames[0].target : 500;
  $("viewer").hidden = false;
  clear($("replay-title")).append(title);
  const select = clear($("deal-select"));
  data.deals.forEach((d, i) => select.append(el("option", { value: String(i) }, `${i + 1}`)));
  clear($("downloads")).append(...(downloads || []));
  const partial = $("partial");
  partial.hidden = data.complete !== false;
  clear(partial).append("This game is still being played: only its finished deals are shown.");
  const f = data.game && data.game.forfeit;
  if (f) {
    partial.hidden = false;
    clear(partial).append(
      `${data.game.players[f.seat]} broke down and forfeited the match (${f.reason}): ` +
      `${data.game.players[f.winner]} won. The record ends where it stopped.`);
  }
  if (!data.deals.length) {
    clear($("board")).append(el("p", { class: "muted" }, "This record has no deal yet."));
    resultTable();
    return;
  }
  parts = buildBoard($("board"));
  state.deal = 0;
  go(0);
  resultTable();
}

async function loadGame(id) {
  $("upload").hidden = true;
  try {
    const data = await api(`/api/games/${encodeURIComponent(id)}/replay`);
    const g = data.game;
    const links = [
      el("a", { class: "action", href: `/api/games/${g.id}/record?form=json`, download: "" }, "Download JSON"),
      el("a", { class: "action", href: `/api/games/${g.id}/record?form=text`, download: "" }, "Download text"),
    ];
    const button = g.status === "finished" && data.complete ? reviewButton(g.id, reviewReady) : null;
    if (button) links.push(button);
    load(data, `${g.players[0]} vs ${g.players[1]}`, links);
    if (button && new URLSearchParams(location.search).get("review")) button.click();
  } catch (err) {
    $("upload").hidden = false;
    showError(`Cannot replay this game: ${err.message}.`);
  }
}

async function upload(event) {
  event.preventDefault();
  showError("");
  const file = $("record-file").files[0];
  if (!file) {
    showError("Choose a record file first.");
    return;
  }
  if (file.size > 1000000) {
    showError("This file is too large for a record (over 1 MB).");
    return;
  }
  const text = await file.text();
  try {
    const data = await api("/api/replay", { body: text });
    const blob = new Blob([data.text], { type: "text/plain" });
    load(data, file.name, [
      el("a", { class: "action", href: URL.createObjectURL(blob), download: file.name.replace(/\.[^.]*$/, "") + ".txt" },
        "Download text"),
    ]);
  } catch (err) {
    showError(`${file.name}: ${err.message}`);
    $("viewer").hidden = true;
  }
}

function main() {
  applyPreferences();
  $("topbar").replaceWith(topbar("/replay"));
  $("upload-form").addEventListener("submit", upload);
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(state.step - 1));
  $("next").addEventListener("click", () => go(state.step + 1));
  $("last").addEventListener("click", () => go(frames().length - 1));
  $("play").addEventListener("click", togglePlay);
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("deal-select").addEventListener("change", () => {
    state.deal = Number($("deal-select").value);
    go(0);
  });
  document.addEventListener("keydown", (event) => {
    if (!state.data || !state.data.deals.length || event.target instanceof HTMLInputElement) return;
    if (event.key === "ArrowRight") go(state.step + 1);
    if (event.key === "ArrowLeft") go(state.step - 1);
    if (event.key === "Home") go(0);
    if (event.key === "End") go(frames().length - 1);
    if (event.key === " ") {
      event.preventDefault();
      togglePlay();
    }
  });
  const id = new URLSearchParams(location.search).get("game");
  if (id) loadGame(id);
}

main();
