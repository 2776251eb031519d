// The live table: one WebSocket to the server, which sends this seat's view
// after every move; clicks send actions back. Reconnects by itself (the
// server may restart: every game resumes where it was).

import { api, applyPreferences, cardLabel, clear, el, rememberSeat, seatFor, topbar } from "./common.js";
import { buildBoard, dealSummary, logPanel, playerLabel, renderBoard, scorePanel } from "./board.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const FATAL = new Set(["bad_token", "not_found", "no_spectators", "corrupt", "hello_first", "bot_unavailable"]);

const state = {
  ws: null,
  view: null,
  welcome: null,
  seat: null,
  connected: null,
  pending: false,
  hint: null,
  retry: 0,
  stopped: false,
  hiddenSummary: -1,
  toastTimer: null,
};

let parts = null;

function $(id) {
  return document.getElementById(id);
}

function banner(text, kind = "warn") {
  const node = $("banner");
  if (!text) {
    node.hidden = true;
    return;
  }
  node.className = `banner ${kind}`;
  clear(node).append(text);
  node.hidden = false;
}

function toast(text) {
  const node = $("toast");
  clear(node).append(text);
  node.hidden = false;
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => { node.hidden = true; }, 4000);
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(JSON.stringify(message));
    return true;
  }
  toast("Not connected: wait for the connection to come back.");
  return false;
}

function act(action) {
  if (state.pending || !state.view) return;
  state.hint = null;
  if (send({ type: "act", action, version: state.view.version })) {
    state.pending = true;
    render();
  }
}

function askHint() {
  if (!state.view) return;
  send({ type: "hint" });
}

function nextDeal() {
  if (!state.view) return;
  send({ type: "next", version: state.view.version });
}

function hintText(msg) {
  const a = msg.action;
  let what;
  if (a === "draw") what = "draw";
  else if (a === "dix") what = "exchange the seven of trumps";
  else if (a.startsWith("meld ")) what = `declare ${a.slice(5)}`;
  else what = `play ${cardLabel(a)}`;
  const sign = msg.value > 0 ? "+" : "";
  const margin = msg.exact ? "exact deal margin" : "expected deal margin";
  return `Hint (${msg.by}): ${what} \u2014 ${margin} ${sign}${msg.value}`;
}

function connect() {
  const held = seatFor(gameId);
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(gameId)}`);
  state.ws = ws;
  ws.addEventListener("open", () => {
    ws.send(JSON.stringify(held ? { type: "hello", token: held.token } : { type: "hello", watch: true }));
  });
  ws.addEventListener("message", (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return;
    }
    handle(msg);
  });
  ws.addEventListener("close", () => {
    if (state.ws !== ws) return;
    state.pending = false;
    if (state.stopped) return;
    const delay = Math.min(5000, 300 * 2 ** state.retry);
    state.retry += 1;
    banner("Connection lost: reconnecting...");
    setTimeout(connect, delay);
  });
}

function handle(msg) {
  switch (msg.type) {
    case "welcome":
      state.welcome = msg;
      state.seat = msg.seat;
      state.retry = 0;
      banner(null);
      document.body.classList.toggle("spectator", msg.seat === null);
      break;
    case "state":
      if (state.view && msg.deal !== state.view.deal) state.hiddenSummary = -1;
      state.view = msg;
      state.connected = msg.connected;
      state.pending = false;
      if (state.hint && state.hint.version !== msg.version) state.hint = null;
      render();
      break;
    case "presence":
      state.connected = msg.connected;
      render();
      break;
    case "hint":
      if (state.view && msg.version === state.view.version) {
        state.hint = msg;
        toast(hintText(msg));
        render();
      }
      break;
    case "notice":
      toast(msg.message);
      break;
    case "error":
      state.pending = false;
      if (FATAL.has(msg.code)) {
        state.stopped = true;
        banner(`${msg.message}.`, "error");
        if (state.ws) state.ws.close();
      } else {
        toast(msg.message);
        render();
      }
      break;
    default:
      break;
  }
}

function invitePanel(view) {
  const node = $("invite");
  const invite = localStorage.getItem(`marjolet.invite.${gameId}`);
  if (view.status !== "waiting" || state.seat !== 0 || !invite) {
    node.hidden = true;
    return;
  }
  const url = new URL(invite, location.href).href;
  const input = el("input", { type: "text", readonly: true, value: url, class: "invite-url", "aria-label": "invite link" });
  const copy = el("button", { type: "button", class: "action" }, "Copy");
  copy.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(url);
      toast("Invite link copied.");
    } catch (err) {
      document.execCommand("copy");
    }
  });
  clear(node).append(
    el("h2", {}, "Invite a friend"),
    el("p", {}, "Send this link to your opponent. The game starts when they open it."),
    el("div", { class: "invite-row" }, input, copy),
  );
  node.hidden = false;
}

// A bot broke down and lost the match: who, why, and the end of its
// program's standard error (all inserted as text).
function forfeitOverlay(view) {
  const node = $("overlay");
  if (state.hiddenSummary === "forfeit") {
    node.hidden = true;
    return;
  }
  const f = view.forfeit;
  const seat = state.seat;
  const loser = playerLabel(view, f.seat, seat);
  let title;
  if (seat === null) title = `${view.players[f.winner]} wins the match by forfeit`;
  else title = f.winner === seat ? "You win the match by forfeit!" : `${playerLabel(view, f.winner, seat)} wins the match by forfeit`;
  clear($("overlay-title")).append(title);
  const body = [
    el("p", {}, `${loser} broke down and forfeits the match: ${f.reason}.`),
    el("p", { class: "muted" }, `Score when it stopped: ${view.running[0]} \u2013 ${view.running[1]}.`),
  ];
  if (f.stderr.length) {
    body.push(el("p", {}, "The end of its error output:"), el("pre", { class: "stderr" }, f.stderr.join("\n")));
  }
  clear($("overlay-body")).append(...body);
  const look = el("button", { type: "button", class: "action" }, "Look at the table");
  look.addEventListener("click", () => {
    state.hiddenSummary = "forfeit";
    render();
  });
  clear($("overlay-buttons")).append(
    look,
    el("a", { class: "action", href: `/api/games/${gameId}/record?form=json` }, "Download record"),
    el("a", { class: "action", href: `/replay?game=${encodeURIComponent(gameId)}` }, "Replay"),
    el("a", { class: "action primary", href: "/" }, "New game"),
  );
  node.hidden = false;
}

function overlay(view) {
  const node = $("overlay");
  if (view.forfeit) {
    forfeitOverlay(view);
    return;
  }
  const summaries = view.deals;
  if (!view.deal_over || !summaries.length || state.hiddenSummary === view.deal) {
    node.hidden = true;
    return;
  }
  const last = summaries[summaries.length - 1];
  const seat = state.seat;
  let title;
  if (view.match_over) {
    const winner = view.winner;
    if (seat === null) title = `${view.players[winner]} wins the match`;
    else title = winner === seat ? "You win the match!" : `${playerLabel(view, winner, seat)} wins the match`;
  } else {
    title = `End of deal ${last.index + 1}`;
  }
  clear($("overlay-title")).append(title);
  clear($("overlay-body")).append(dealSummary(last, view, seat));
  const buttons = clear($("overlay-buttons"));
  const look = el("button", { type: "button", class: "action" }, "Look at the table");
  look.addEventListener("click", () => {
    state.hiddenSummary = view.deal;
    render();
  });
  buttons.append(look);
  if (view.match_over) {
    buttons.append(
      el("a", { class: "action", href: `/api/games/${gameId}/record?form=json` }, "Download record"),
      el("a", { class: "action", href: `/replay?game=${encodeURIComponent(gameId)}` }, "Replay"),
      el("a", { class: "action", href: `/replay?game=${encodeURIComponent(gameId)}&review=1` }, "Review"),
      el("a", { class: "action primary", href: "/" }, "New game"),
    );
  } else if (seat !== null) {
    const next = el("button", { type: "button", class: "action primary", id: "next-deal" }, "Next deal");
    next.addEventListener("click", nextDeal);
    buttons.append(next);
  } else {
    buttons.append(el("span", { class: "muted" }, "The next deal starts in a moment."));
  }
  node.hidden = false;
}

function render() {
  const view = state.view;
  if (!view) return;
  const seat = state.seat;
  const ctx = {
    seat,
    interactive: seat !== null,
    pending: state.pending,
    hint: state.hint ? state.hint.action : null,
    onAction: act,
    onHint: seat !== null ? askHint : null,
    connected: state.connected,
  };
  if (view.status === "waiting") ctx.message = "Waiting for your friend to open the invite link...";
  if (view.deal_over && state.hiddenSummary === view.deal) {
    const show = el("button", { type: "button", class: "link" }, "show the summary");
    show.addEventListener("click", () => {
      state.hiddenSummary = -1;
      render();
    });
    ctx.message = el("span", {}, view.match_over ? "The match is over: " : "The deal is over: ", show);
  }
  if (view.forfeit) {
    const show = el("button", { type: "button", class: "link" }, "show why");
    show.addEventListener("click", () => {
      state.hiddenSummary = -1;
      render();
    });
    const who = playerLabel(view, view.forfeit.seat, seat);
    ctx.message = el("span", {}, `The match is over: ${who} broke down and forfeits. `, show);
  }
  renderBoard(parts, view, ctx);
  const board = $("board");
  board.dataset.version = String(view.version);
  board.dataset.pending = state.pending ? "1" : "0";
  clear($("score")).append(scorePanel(view, seat));
  const log = clear($("log"));
  log.append(logPanel(view, view.log, seat));
  const list = log.querySelector(".log-list");
  if (list) list.scrollTop = list.scrollHeight;
  invitePanel(view);
  overlay(view);
  const mine = seat !== null && view.to_move === seat;
  document.title = mine ? "Your turn · Marjolet" : "Marjolet";
}

async function claimFromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  const invite = params.get("invite");
  const token = params.get("token");
  if (!invite && !token) return;
  history.replaceState(null, "", location.pathname + location.search);
  if (token) {
    rememberSeat(gameId, Number(params.get("seat") || 0), token);
    return;
  }
  if (seatFor(gameId)) return;
  try {
    const name = localStorage.getItem("marjolet.name") || "friend";
    const joined = await api(`/api/games/${encodeURIComponent(gameId)}/join`, { json: { invite, name } });
    rememberSeat(gameId, joined.seat, joined.token);
  } catch (err) {
    banner(`Cannot join: ${err.message}.`, "error");
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || !state.view) return;
  if (event.key === "h") askHint();
  if (event.key === "d" && (state.view.legal || []).some((a) => a.kind === "draw")) act("draw");
});

async function main() {
  applyPreferences();
  $("topbar").replaceWith(topbar(""));
  parts = buildBoard($("board"));
  await claimFromFragment();
  connect();
}

main();
