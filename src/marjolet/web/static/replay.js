// The replay viewer: a stored game (?game=ID) or an uploaded record, checked
// by the server and shown position by position with both hands open.

import {
  answerSubmit, api, applyPreferences, cardLabel, clear, el, forfeitKind, hasText, lang, loadLanguage, number, orList, recordName, seatFor, t,
  topbar,
} from "./common.js";
import {
  animateChanges, buildBoard, dealSummary, logPanel, meldName, renderBoard, scorePanel, snapshotBoard,
} from "./board.js";
import { byPlace, evaluationGraph, markLog, reviewButton, reviewPanel } from "./review.js";

// you: the seat this browser played in a stored game, when its player gave no name (the
// table called them "You"): the replay and its review speak to them so, not of "Player"
const state = { data: null, deal: 0, step: 0, timer: null, review: null, places: null, partial: false, you: null };
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
  const view = { ...frame, players: players(), rules: state.data.record.rules };
  const snap = snapshotBoard(parts);
  renderBoard(parts, view, { seat: null, interactive: false, message: stepText(deal, state.step, view) });
  animateChanges(snap, parts, view, null);
  clear($("score")).append(scorePanel(view, null));
  const log = clear($("log"));
  log.append(logPanel(view, deal.log, state.you, state.step));
  const list = log.querySelector(".log-scroll");
  if (list) list.scrollTop = list.scrollHeight;
  showReview(view);
  $("slider").max = String(deal.frames.length - 1);
  $("slider").value = String(state.step);
  clear($("position")).append(t("replay.position", { n: state.step, total: deal.frames.length - 1 }));
}

function showReview(view) {
  const players = view.players;
  const box = $("review");
  if (!box) return;
  // the graph stepped by the keyboard is drawn anew: the keys go on working on the new one
  const graphFocused = Boolean(document.activeElement && document.activeElement.closest
    && document.activeElement.closest("#review .review-graph"));
  clear(box);
  if (!state.review) return;
  markLog($("log"), state.places, state.deal, view);
  box.append(reviewPanel(state.review, state.places, state.deal, state.step, players, goAndShow, view, state.partial, state.you),
    evaluationGraph(state.review, { deal: state.deal, step: state.step }, players, goTo, state.you, dealView));
  if (graphFocused) box.querySelector(".review-graph").focus();
}

/** What names a meld of deal `i` (its trump, the rules), for a decision of any deal. */
function dealView(i) {
  return { trump: state.data.deals[i].frames[0].trump, rules: state.data.record.rules };
}

function reviewReady(review) {
  state.review = review;
  state.places = byPlace(review);
  show();
}

/** What the step before position `step` did, in words: a meld named as the table names it
 *  (meldName: "the marjolet and the queen of spades", never its record id "JQS"). */
function stepText(deal, step, view) {
  if (step === 0) return t("replay.start");
  const entry = deal.log[step - 1];
  const frame = deal.frames[step];
  if (frame.deal_over) return t("replay.end");
  const name = players()[entry.player];
  const yours = entry.player === state.you ? "_you" : "";  // "Vous jouez", not "Vous joue"
  const a = entry.action;
  let what;
  if (a === "draw") what = t("replay.draw", { name });
  else if (a === "dix") what = t(`replay.dix${yours}`, { name });
  else if (a.startsWith("meld ")) what = t(`replay.meld${yours}`, { name, meld: meldName(a.slice(5), view) });
  else what = t(`replay.card${yours}`, { name, card: cardLabel(a) });
  return t("replay.step", { n: entry.trick, what });
}

function go(step) {
  const n = frames().length;
  state.step = Math.max(0, Math.min(n - 1, step));
  show();
}

/** Step to action `action` of this deal and bring the board into view (a marked move of
 *  the analysis, tapped below the board on a phone: the cards it names are above). */
function goAndShow(action) {
  go(action);
  const board = $("board");
  const box = board.getBoundingClientRect();
  if (box.top < 0 || box.top > window.innerHeight / 2) {
    board.scrollIntoView({ block: "start", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  }
}

/** Step to action `action` of deal `deal` (a tap on the evaluation graph). */
function goTo(deal, action) {
  if (deal !== state.deal) {
    state.deal = deal;
    $("deal-select").value = String(deal);
  }
  go(action);
}

function togglePlay() {
  if (state.timer) {
    clearInterval(state.timer);
    state.timer = null;
    $("play").textContent = t("replay.play");
    return;
  }
  $("play").textContent = t("replay.pause");
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
  const names = players();
  const result = state.data.result;
  const forfeit = state.data.game && state.data.game.forfeit;  // the match ended there
  box.append(el("h2", {}, t("replay.scores")));
  result.deals.forEach((d, i) => {
    const view = { players: names, target: state.data.target };
    const totals = [0, 0];
    for (let k = 0; k <= i; k += 1) {
      totals[0] += result.deals[k].score[0];
      totals[1] += result.deals[k].score[1];
    }
    const summary = { index: i, trump: d.trump, breakdown: d.breakdown, score: d.score, totals };
    box.append(dealSummary(summary, view, null));
    if (!d.complete) box.append(el("p", { class: "muted" }, t(forfeit ? "replay.stopped" : "replay.in_progress")));
  });
  // R22: equal totals at or past the target after a finished deal play on
  const [a, b] = result.totals;
  const tied = a === b && a >= state.data.target && result.deals.every((d) => d.complete);
  const undecided = t(tied ? "replay.tie_plays_on" : "replay.undecided");
  const yours = (seat) => (seat === state.you ? "_you" : "");
  let winner = result.winner === null ? undecided : t(`replay.wins${yours(result.winner)}`, { name: names[result.winner] });
  if (forfeit) {
    winner = forfeit.winner === null ? t("replay.no_result")
      : t(`replay.wins_${forfeitKind(forfeit) === "resigned" ? "resigned" : "forfeit"}${yours(forfeit.winner)}`,
        { name: names[forfeit.winner] });
  }
  box.append(el("p", { class: "final" }, t("replay.totals", { a: number(result.totals[0]), b: number(result.totals[1]), winner })));
}

// The server sends each deal's positions as diffs: the first one whole,
// then the keys each action changed ("-": keys it removed).
function expandFrames(deal) {
  if (deal.frames) return deal.frames;
  const frames = [deal.first];
  for (const change of deal.changes) {
    const frame = Object.assign({}, frames[frames.length - 1], change);
    for (const key of change["-"] || []) delete frame[key];
    delete frame["-"];
    frames.push(frame);
  }
  return frames;
}

function load(data, title, downloads) {
  data.deals.forEach((d) => { d.frames = expandFrames(d); });
  state.data = data;
  state.data.target = data.deals.length ? data.deals[0].frames[0].target : 500;
  $("viewer").hidden = false;
  clear($("replay-title")).append(title);
  const select = clear($("deal-select"));
  data.deals.forEach((d, i) => select.append(el("option", { value: String(i) }, `${i + 1}`)));
  clear($("downloads")).append(...(downloads || []));
  const partial = $("partial");
  partial.hidden = data.complete !== false;
  clear(partial).append(t("replay.partial"));
  const f = data.game && data.game.forfeit;
  if (f) {
    partial.hidden = false;
    const key = {
      bot: "replay.forfeit", left: "replay.forfeit_left", resigned: "replay.forfeit_resigned",
      timeout: "replay.forfeit_timeout", aborted: "replay.forfeit_aborted",
    };
    // to the browser that played a seat, in the second person as the rest of the page
    // (« Vous avez quitté la partie », « vous avez gagné »), else of both in the third
    const yours = f.seat === state.you ? "_you" : f.winner !== null && f.winner === state.you ? "_you_won" : "";
    clear(partial).append(t(`${key[forfeitKind(f)]}${yours}`, {
      name: recordName(data.game.players[f.seat]), winner: recordName(data.game.players[f.winner]) }));
  }
  if (!data.deals.length) {
    clear($("board")).append(el("p", { class: "muted" }, t("replay.no_deal")));
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
    const held = seatFor(g.id);
    state.you = held && String(g.players[held.seat]) === "you" ? held.seat : null;
    const links = [
      el("a", { class: "action", href: `/api/games/${g.id}/record?form=json`, download: "" }, t("replay.download_json")),
      el("a", { class: "action", href: `/api/games/${g.id}/record?form=text`, download: "" }, t("replay.download_text")),
    ];
    // a finished game is reviewed whole; one still played, its finished deals (all their cards were shown)
    const over = g.status === "finished";
    state.partial = !over;  // its review is of the finished deals only
    const someDealOver = data.result.deals.some((d) => d.complete);
    const button = (over ? data.complete : someDealOver)
      ? reviewButton(g.id, reviewReady, over ? t("end.review") : t("replay.review_deals")) : null;
    if (button) links.push(button);
    const names = g.players.map((name, seat) => (seat === state.you ? t("player.you") : recordName(name)));
    load(data, t("game.versus", { a: names[0], b: names[1] }), links);
    const wanted = new URLSearchParams(location.search).get("review");
    if (button && wanted) button.click();
    else if (wanted && !over) $("partial").append(" ", t("replay.review_at_end"));
  } catch (err) {
    $("upload").hidden = false;
    showError(t("replay.cannot", { reason: err.message }));
  }
}

async function upload(event) {
  event.preventDefault();
  showError("");
  const file = $("record-file").files[0];
  if (!file) {
    showError(t("replay.choose_file"));
    return;
  }
  if (file.size > 1000000) {
    showError(t("replay.too_large"));
    return;
  }
  const bytes = await file.arrayBuffer();
  state.you = null;  // a file's players are nobody's seat in this browser
  try {
    // the page's language: the server words a refused record's fault in it
    const data = await api(`/api/replay?lang=${encodeURIComponent(lang())}`, { body: bytes });
    const blob = new Blob([data.text], { type: "text/plain" });
    load(data, file.name, [
      el("a", { class: "action", href: URL.createObjectURL(blob), download: file.name.replace(/\.[^.]*$/, "") + ".txt" },
        t("replay.download_text")),
    ]);
  } catch (err) {
    showError(t("replay.file_error", { file: file.name, error: uploadError(err) }));
    $("viewer").hidden = true;
  }
}

/** The server's refusal of an upload; its places are counted from 1, as the viewer shows them
 *  and `marjolet replay` says them. */
function uploadError(err) {
  const d = err.details || {};
  if (d.code === "not_utf8") return t("replay.not_utf8");
  if (d.code === "bom") return t("replay.bom");
  if (d.code !== "bad_record") return err.message;
  // the place as `marjolet replay` says it (marjolet.record.error_place): the line, the deal,
  // then the trick of a move the rules refuse, else the action
  const where = (d.place || []).map(([what, n]) => t(`replay.at_${what}`, { n }));
  // a mistyped line, a fault of the deals or of the header: the server's words for it in the
  // page's language (marjolet.i18n.record_faults, as `marjolet replay` says it)
  const worded = d.lang === lang() && typeof d.worded === "string" ? d.worded : null;
  const reason = (d.why && refusalText(d.why, refusalNames(d.players))) || worded
    || recordReason(d.reason || "", where.length > 0, d.readable !== false, d.kind);
  return where.length ? t("replay.bad_record", { where: where.join(", "), reason }) : t("replay.bad_record_nowhere", { reason });
}

/** A move the rules refuse, in the reader's words, from the engine's refusal code and
 *  its particulars (`why`: docs/engine.md, "Refusals"): the player by the record's name
 *  (`names`), cards and melds as the table shows them, no rule id; the words of `marjolet
 *  replay` (marjolet.tui.record_errors.refusal_reason). Null for a code without a text. */
function refusalText(why, names) {
  // an exchange of the seven rather than a meld, a draw from the empty stock, a meld the
  // other player holds (written after a trick they lost): their own words
  const variant = why.what === "dix" ? "_dix" : why.stock_empty === true ? "_stock_empty"
    : why.other_holds === true ? "_other_holds" : "";
  const special = `replay.why_${why.code}${variant}`;
  const key = hasText(special) ? special : `replay.why_${why.code}`;
  if (!hasText(key)) return null;
  const args = {};
  if (Number.isInteger(why.player)) {
    args.name = names[why.player];
    args.other = names[1 - why.player];  // who holds a meld the winner was refused
  }
  for (const field of ["card", "lead"]) if (why[field]) args[field] = cardLabel(why[field]);
  for (const field of ["legal", "missing"]) if (why[field]) args[field] = orList(why[field].map(cardLabel));
  if (why.meld) args.meld = meldName(why.meld, { trump: why.trump, rules: { jack_queen: why.jack_queen } });
  return t(key, args);
}

/** The terminal's default names ("You", "Vous"): a record of `marjolet play` whose player
 *  gave none (marjolet.tui.session.DEFAULT_NAMES). */
const TERMINAL_DEFAULT_NAMES = new Set(["You", "Vous"]);

/** A refused record's players as its refusal names them, as `marjolet replay` does
 *  (marjolet.tui.record_errors.refusal_names): a name the program wrote in the reader's
 *  words (recordName), a seat without a name, or the terminal's "You", by its number
 *  ("Player 2": a sentence in the third person), two of one name told apart. */
function refusalNames(players) {
  const numbered = (seat) => `${t("player.default_name")} ${seat + 1}`;
  if (!Array.isArray(players) || players.length !== 2) return [numbered(0), numbered(1)];
  const names = players.map((name, seat) => {
    const text = String(name).trim();
    return !text || TERMINAL_DEFAULT_NAMES.has(text) ? numbered(seat) : recordName(text);
  });
  if (names[0] !== names[1]) return names;
  return names.map((name, seat) => `${name} (${t("player.n", { n: seat + 1 })})`);
}

/** What else is wrong in a refused record, without the server's words: no game in the
 *  file, or a fault no sentence names (the server's reason is English, for programs). */
function recordReason(reason, placed, readable, kind) {
  if (kind === "json_not_record") return t("replay.reason_json_not_record");  // JSON, no game
  if (!readable) return t("replay.reason_not_record");  // no game at all in the file
  if (lang() === "en" && reason) return reason.replace(/^R\d+(?:\/R\d+)*:\s*/, "");
  return t(placed ? "replay.reason_other" : "replay.reason_header");
}

function players() {
  const names = state.data && state.data.record.players;
  // a record without names: its seats counted from 1, as `marjolet replay` counts them
  if (!names) return [1, 2].map((n) => `${t("player.default_name")} ${n}`);
  return names.map((name, seat) => (seat === state.you ? t("player.you") : recordName(name)));
}

async function main() {
  await loadLanguage();
  applyPreferences();
  $("topbar").replaceWith(topbar("/replay"));
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

// The upload answers from the first moment (a file sent while the page is
// still loading its texts waits for them instead of reloading the page).
answerSubmit($("upload-form"), () => ready, upload);
const ready = main();
