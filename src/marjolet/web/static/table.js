// The live table: one WebSocket to the server, which sends this seat's view
// after every move; clicks send actions back. Reconnects by itself (the
// server may restart: every game resumes where it was).

import {
  PLAY_NOW_GAME, announce, announcerNode, api, applyPreferences, cardLabel, clear, el, forfeitKind, loadLanguage, localName, number, onSeatRemembered, recordName, rememberSeat, seatFor,
  ratingText, sentence, serverSentence, refreshOnline, setTitle, sortHand, t, topbar,
} from "./common.js";
import {
  animateChanges, blockedReason, buildBoard, dealSummary, logPanel, matchTable, meldName, moveNews, playerLabel, renderBoard,
  scorePanel, snapshotBoard,
} from "./board.js";
import { Rematch } from "./rematch.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
// Why an account's seat was not this page's: no session cookie, or the cookie
// of a session that ended (this device was logged out, elsewhere or by a new password).
const LOGGED_OUT = new Set(["login_required", "session_ended"]);
const FATAL = new Set(["bad_token", "not_found", "no_spectators", "corrupt", "hello_first", "bot_unavailable"]);

const state = {
  ws: null,
  view: null,
  welcome: null,
  seat: null,
  seatless: false, // connected without a seat key of this browser (watching, or the account's seat)
  connected: null,
  pending: false,
  hint: null,
  hintPending: false,
  why: null,
  retry: 0,
  stopped: false,
  hiddenSummary: -1,
  // A finished deal whose summary this player saw and has not closed: the
  // other player's "next deal" does not take it away (shown until closed).
  owedSummary: null,
  toastTimer: null,
  // no seat token in this browser: try the logged-in account's seat first
  tryAccount: true,
  awayTimer: null,
  // the move clock ran out: "mine" (this seat is late), "theirs", else null (timeUpBox)
  timeUp: null,
  // a spectator's own pace: positions wait in a queue while paused or slowed down
  watch: { paused: false, speed: "normal", queue: [], last: 0, timer: null },
  // a game found online, once over: its rematch offer (rematch.js)
  rematch: null,
};

/** Least milliseconds between two positions shown to a spectator, by speed. */
const WATCH_GAPS = { slow: 2500, normal: 1000, fast: 300 };

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
  announce(text);  // said by the page's live region: the toast appears with its words in it
  clearTimeout(state.toastTimer);
  state.toastTimer = setTimeout(() => { node.hidden = true; }, 4000);
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) {
    state.ws.send(JSON.stringify(message));
    return true;
  }
  toast(t("table.not_connected"));
  return false;
}

function act(action) {
  if (state.pending || !state.view) return;
  state.hint = null;  // a hint or a reason shown before the move goes with it
  state.why = null;
  if (send({ type: "act", action, version: state.view.version })) {
    state.pending = true;
    render();
  }
}

function askHint() {
  if (!state.view || state.hintPending) return;
  if (send({ type: "hint" })) {
    state.hintPending = true;
    render();
  }
}

function nextDeal() {
  if (!state.view) return;
  state.owedSummary = null;
  send({ type: "next", version: state.view.version });
}

/** The hint in plain words: the move, and what it should bring by the end of the deal. */
function hintText(msg) {
  const a = msg.action;
  let what;
  if (a === "draw") what = t("hint.draw");
  else if (a === "dix") what = t("hint.dix");
  else if (a.startsWith("meld ")) what = t("hint.declare", { meld: meldName(a.slice(5), state.view) });
  else what = t("hint.play", { card: cardLabel(a) });
  if (msg.forced) return t("hint.plain_forced", { what });
  const n = Math.round(Math.abs(msg.value));
  const side = n === 0 ? "even" : msg.value > 0 ? "ahead" : "behind";
  const outcome = t(msg.exact ? `hint.exact_${side}` : `hint.${side}`, { n });
  return t("hint.plain", { what, outcome });
}

function connect() {
  const held = seatFor(gameId);
  state.seatless = !held;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(gameId)}`);
  state.ws = ws;
  ws.addEventListener("open", () => {
    // no token in this browser: the logged-in account's seat, else watch
    let hello = { type: "hello", watch: true };
    if (held) hello = { type: "hello", token: held.token };
    else if (state.tryAccount) hello = { type: "hello", account: true };
    ws.send(JSON.stringify(hello));
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
    banner(t("table.reconnecting"));
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
      playNowComputer(msg);
      document.body.classList.toggle("spectator", msg.seat === null);
      spectatorPanel();
      break;
    case "accounts":  // a rated match is over: the players' new ratings
      if (state.welcome) state.welcome.accounts = msg.accounts;
      if (state.view) state.view.ratings = [0, 1].map(ratingOf);
      render();
      break;
    case "state":
      if (state.seat === null && state.welcome) {
        state.watch.queue.push(msg);
        pumpWatch();
        break;
      }
      showState(msg);
      break;
    case "presence":
      state.connected = msg.connected;
      awayClock(msg.away || [null, null]);
      render();
      break;
    default:
      handleOther(msg);
      break;
  }
}

/** A table "Play now" led to where nobody else was free in time: the computer took the seat,
 *  which its level's name alone does not say (nor that such a game is never rated). Said
 *  once, on the first welcome. */
function playNowComputer(msg) {
  if (sessionStorage.getItem(PLAY_NOW_GAME) !== gameId) return;
  sessionStorage.removeItem(PLAY_NOW_GAME);
  const other = msg.seats && msg.seat !== null ? msg.seats[1 - msg.seat] : null;
  if (other && other.kind === "bot") {
    // a level ("level:expert"), or the operator's own bot (--only-allowed-bots), no level
    const key = String(other.bot || "").startsWith("level:") ? "table.play_now_computer" : "table.play_now_program";
    banner(t(key, { name: localName(msg.players[1 - msg.seat]) }), "warn");
  }
}

/** A new position on the board. */
function showState(msg) {
  if (state.view && msg.deal !== state.view.deal) state.hiddenSummary = -1;
  // the other seat's account was deleted since (its stored name, not a player's choice)
  state.opponentDeleted = state.seat !== null && msg.players[1 - state.seat] === "deleted player";
  // a player who gave no name ("you") reads "Vous" to themselves and "Joueur" to the others
  msg.players = msg.players.map((name, seat) => (seat === state.seat ? localName : recordName)(name));
  msg.ratings = [0, 1].map(ratingOf);  // on the nameplates only, not in every sentence
  state.view = msg;
  state.connected = msg.connected;
  state.pending = false;
  if (state.hint && state.hint.version !== msg.version) state.hint = null;
  if (state.view.version !== state.whyVersion) state.why = null;
  deadlineLine(msg);
  render();
}

/** Show the spectator's next waiting position when the pace allows it. */
function pumpWatch() {
  const w = state.watch;
  clearTimeout(w.timer);
  if (w.paused || !w.queue.length) {
    spectatorPanel();
    return;
  }
  const wait = w.last + WATCH_GAPS[w.speed] - Date.now();
  if (wait > 0) {
    w.timer = setTimeout(pumpWatch, wait);
    spectatorPanel();
    return;
  }
  w.last = Date.now();
  showState(w.queue.shift());
  spectatorPanel();
  if (w.queue.length) w.timer = setTimeout(pumpWatch, WATCH_GAPS[w.speed]);
}

/** "You are watching", with pause and speed (the spectator's own pace): built once,
 *  then only its pause label and the count of waiting moves change. */
function spectatorPanel() {
  const node = $("spectator");
  if (state.seat !== null || !state.welcome) {
    node.hidden = true;
    return;
  }
  const w = state.watch;
  if (!node.firstChild) {
    const pause = el("button", { type: "button", class: "action", id: "watch-pause" });
    pause.addEventListener("click", () => {
      w.paused = !w.paused;
      pumpWatch();
    });
    const speed = el("select", { id: "watch-speed" }, ["slow", "normal", "fast"].map((s) =>
      el("option", { value: s, selected: s === w.speed }, t(`spectator.${s}`))));
    speed.addEventListener("change", () => {
      w.speed = speed.value;
      pumpWatch();
    });
    // a device logged out meanwhile may be looking at its own game: how to play it again
    const loggedOut = state.sessionEnded ? el("p", { class: "small", id: "watch-logged-out" },
      t("spectator.logged_out"), " ", el("a", { href: logInAgain() }, t("table.log_in_again"))) : "";
    node.append(el("h2", {}, t("spectator.title")), loggedOut, el("p", { class: "small" }, t("spectator.text")),
      el("div", { class: "spectator-row" }, pause, el("label", {}, t("spectator.speed"), " ", speed),
        el("span", { class: "muted small", id: "watch-waiting" })));
  }
  const pause = $("watch-pause");
  pause.textContent = w.paused ? t("spectator.resume") : t("spectator.pause");
  pause.setAttribute("aria-pressed", w.paused ? "true" : "false");
  $("watch-waiting").textContent = w.queue.length ? t("spectator.behind", { n: w.queue.length }) : "";
  node.hidden = false;
}

function handleOther(msg) {
  switch (msg.type) {
    case "hint":
      state.hintPending = false;
      if (state.view && msg.version === state.view.version) state.hint = msg;
      render();
      break;
    case "notice":
      toast(serverSentence(localNames(toPlayer(msg))));
      break;
    case "error":
      state.pending = false;
      state.hintPending = false;
      if (state.tryAccount && !seatFor(gameId) && LOGGED_OUT.has(msg.code) && state.welcome
          && state.seat !== null) {
        loggedOutHere();  // this device's session ended while it held the account's seat
        break;
      }
      if (state.tryAccount && !seatFor(gameId) && [...LOGGED_OUT, "bad_token"].includes(msg.code)) {
        state.tryAccount = false; // not this account's game: watch it instead
        state.sessionEnded = msg.code === "session_ended";  // ... said, it may be this device's
        if (state.ws) state.ws.close();
        break;
      }
      if (FATAL.has(msg.code)) {
        stopFollowing(fatalText(msg));
      } else {
        toast(serverSentence(msg));
        render();
      }
      break;
    default:
      break;
  }
}

// The end of a rated match: each player's new rating and what the match
// changed ("alice: rating 1662, provisional (+162)"); until the server has rated it, a
// word that it is coming.
function ratingsLine(view) {
  const accounts = (state.welcome && state.welcome.accounts) || [];
  if (!state.welcome || !state.welcome.rated) return "";
  if (view.forfeit && view.forfeit.winner === null) return "";  // cancelled: never rated
  if (!accounts.some((a) => a && a.change !== undefined)) {
    return el("p", { class: "muted ratings" }, t("end.ratings_soon"));
  }
  const parts = seatsMineFirst().filter((s) => accounts[s]).map((s) => t("end.rating_change", {
    // the rating this match left, beside its change (the rating now may have moved on since)
    name: view.players[s],
    rating: accounts[s].after === undefined ? ratingOf(s) : ratingText(accounts[s].after, accounts[s].provisional_after),
    change: accounts[s].change < 0 ? `\u2212${number(-accounts[s].change)}` : `+${number(accounts[s].change)}`,
  }));
  return el("p", { class: "ratings" }, parts.join(" · "));
}

// The two seats, this player's first (as the score tables show them).
function seatsMineFirst() {
  return state.seat === 1 ? [1, 0] : [0, 1];
}

// A player with an account is shown with their rating (spectators too):
// "1500, provisional" while it is still uncertain; null for a guest or a bot.
function ratingOf(seat) {
  const accounts = (state.welcome && state.welcome.accounts) || [];
  const account = accounts[seat];
  return account ? ratingText(account.rating, account.provisional) : null;
}

// The opponent left: a countdown, then "claim the win" or "keep waiting".
function awayClock(away) {
  clearInterval(state.awayTimer);
  const seat = state.seat;
  const node = awayNode();
  if (seat === null || away[1 - seat] === null) {
    // the box was up and the opponent is at the table now: said, as the box was
    const came = !node.hidden && seat !== null && state.connected && state.connected[1 - seat];
    if (came) announce(t("away.here"));
    node.hidden = true;
    return;
  }
  const until = Date.now() + away[1 - seat] * 1000;
  const draw = () => {
    if (state.timeUp) {  // out of time too: the time-up box offers the claim already
      node.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    if (left > 0) {
      // one who never moved may never have sat down: not "left the table"
      const words = neverMoved(1 - seat) ? "away.countdown_first" : "away.countdown";
      clear(node).append(t(words, { time: duration(left) }));
      if (node.hidden) announce(node.textContent);  // once, as the box appears (not each second)
    } else {
      clearInterval(state.awayTimer);
      const first = neverMoved(1 - seat);  // then the claim cancels the game instead
      const claim = el("button", { type: "button", id: "claim", class: "action primary" },
        t(first ? "away.abort" : "away.claim"));
      claim.addEventListener("click", () => send({ type: "claim" }));
      const wait = el("button", { type: "button", class: "action" }, t("away.wait"));
      wait.addEventListener("click", () => {  // keep waiting, with the claim still at hand
        claim.classList.remove("primary");
        clear(node).append(el("p", { tabindex: "-1" }, t("away.still_gone")), claim);
        keepFocusIn(node);
      });
      const gone = t(first ? "away.gone_abort" : "away.gone");
      clear(node).append(el("p", {}, gone), claim, " ", wait);
      announce(gone);
    }
    node.hidden = false;
  };
  draw();
  state.awayTimer = setInterval(draw, 1000);
}

// A seated player may give the match up: two presses, the first asks to
// confirm (for five seconds); the other seat wins it, rated if the game is.
function resignRow(view) {
  let node = $("resign-row");
  if (!node) {
    node = el("p", { id: "resign-row", class: "resign-row" });
    $("rules-link").parentElement.after(node);
  }
  const open = state.seat !== null && !view.match_over && !view.forfeit && !state.stopped;
  node.hidden = !open;
  if (!open || node.firstChild) return;
  const button = el("button", { type: "button", class: "action", id: "resign", title: t("table.resign_title") },
    t("table.resign"));
  let armed = null;
  button.addEventListener("click", () => {
    if (armed === null) {
      button.textContent = t("table.resign_confirm");
      armed = setTimeout(() => { armed = null; button.textContent = t("table.resign"); }, 5000);
      return;
    }
    clearTimeout(armed);
    armed = null;
    button.textContent = t("table.resign");
    send({ type: "resign" });  // a lost connection is said, not a press that does nothing
  });
  node.append(button);
}

// A game between two people: the time left to the player to move (days in a
// correspondence game, minutes in a live one), counted down each second; once
// it is over, a box at the top says so to both players (timeUpBox).
function deadlineLine(view) {
  let node = $("deadline");
  if (!node) {
    node = el("p", { id: "deadline", class: "muted" });
    $("score").before(node);
  }
  const seated = state.seat !== null && state.seat !== undefined;  // spectators have no opponent
  const open = !view.match_over && !view.forfeit && !state.stopped;
  // whole seconds rounded up: 0 only once the time is over (the server's claim agrees)
  const left = view.deadline && seated && open ? Math.max(0, Math.ceil(view.deadline - Date.now() / 1000)) : null;
  if (!state.deadlineTimer && left !== null) {
    state.deadlineTimer = setInterval(() => state.view && deadlineLine(state.view), 1000);
  }
  const mine = Boolean(view.legal && view.legal.length > 0);
  timeUpBox(left === 0 ? (mine ? "mine" : "theirs") : null, view);
  node.hidden = left === null || left === 0;
  if (node.hidden) return;
  const text = t(mine ? "table.time_left_you" : "table.time_left_them", { time: duration(left) });
  sayTimeLeft(view, left, mine, text);
  if (node.dataset.shown === text) return;
  node.dataset.shown = text;
  clear(node).append(text);
}

// The player's own clock is said aloud twice, with 30 and with 10 seconds left (the
// countdown itself is not a live region: a screen reader would read it every second).
function sayTimeLeft(view, left, mine, text) {
  const turn = `${view.version}:${view.deadline}`;
  if (!state.clockSaid || state.clockSaid.turn !== turn) state.clockSaid = { turn, said: new Set() };
  if (!mine) return;
  for (const mark of [30, 10]) {
    if (left <= mark && left > mark - 5 && !state.clockSaid.said.has(mark)) {
      state.clockSaid.said.add(mark);
      announce(text);
    }
  }
}

// The move clock ran out: the late player reads that the other may now claim
// the match (a move still goes on with it); the other reads it with the claim
// as the main button and "keep waiting" beside it, as when a player leaves.
// `kind`: "mine" (this seat is late), "theirs", or null (nobody is late).
function timeUpBox(kind, view) {
  let node = $("time-up");
  if (!node) {
    node = el("div", { id: "time-up", class: "panel away time-up" });  // said through announce()
    node.hidden = true;
    $("board").before(node);  // where: see awayNode()
  }
  const shown = kind ? `${kind}:${view.deadline}` : "";
  if (node.dataset.shown === shown) return;  // unchanged: the buttons stay put under a finger
  node.dataset.shown = shown;
  state.timeUp = kind;
  if (!kind) {
    node.hidden = true;
    clear(node);
  } else if (kind === "mine") {
    clear(node).append(el("p", {}, t(neverMoved(state.seat) ? "away.time_up_you_abort" : "away.time_up_you")));
  } else {
    const name = view.players[1 - state.seat];
    const end = neverMoved(1 - state.seat) ? "_abort" : "";  // before their first move: no result
    const claim = el("button", { type: "button", id: "claim-late", class: "action primary" },
      t(end ? "away.abort" : "away.claim"));
    claim.addEventListener("click", () => send({ type: "claim" }));
    const wait = el("button", { type: "button", id: "wait-late", class: "action" }, t("away.wait"));
    wait.addEventListener("click", () => {  // keep waiting, with the claim still at hand
      claim.classList.remove("primary");
      clear(node).append(el("p", { tabindex: "-1" }, t(`away.time_up_waiting${end}`, { name })), claim);
      keepFocusIn(node);
    });
    clear(node).append(el("p", {}, t(`away.time_up_them${end}`, { name })), claim, " ", wait);
  }
  if (kind) {
    node.hidden = false;
    announce(node.querySelector("p").textContent);
    awayNode().hidden = true;  // one box at a time: this claim stands whether or not they left
  }
  if (state.view) render();  // the prompt: "thinking" no more
}

/** The pressed "Keep waiting" is gone from its box: the focus goes to the box's
 *  new sentence (read out; the claim next), not lost to the top of the page. */
function keepFocusIn(node) {
  node.querySelector("p").focus();
}

/** Whether `seat` has yet to make a move of its own in this match: a claim
 *  against it then cancels the game (no result) instead of winning it. */
function neverMoved(seat) {
  const moved = state.view && state.view.moved;
  return Boolean(moved) && !moved[seat];
}

function duration(seconds) {
  if (seconds >= 86400) return t("away.days", { n: Math.floor(seconds / 86400), h: Math.floor((seconds % 86400) / 3600) });
  if (seconds >= 3600) return t("away.hours", { n: Math.floor(seconds / 3600), m: Math.floor((seconds % 3600) / 60) });
  if (seconds >= 60) return t("away.minutes", { n: Math.floor(seconds / 60), s: seconds % 60 });
  return t("away.seconds", { n: seconds });
}

// Above the board on a phone, kept in sight while the page scrolls (the side
// panels come after the board there); on a wide screen laid over the opponent's
// side of the board (style.css): a side panel is easily missed, and a box above
// the board pushed the player's own hand below the fold. Said through announce().
function awayNode() {
  let node = $("away");
  if (!node) {
    node = el("div", { id: "away", class: "panel away" });
    node.hidden = true;
    $("board").before(node);
  }
  return node;
}

function invitePanel(view) {
  const node = $("invite");
  const invite = localStorage.getItem(`marjolet.invite.${gameId}`);
  if (view.status !== "waiting" || state.seat !== 0 || !invite) {
    node.hidden = true;
    return;
  }
  const url = new URL(invite, location.href).href;
  const input = el("input", { type: "text", readonly: true, value: url, class: "invite-url", "aria-label": t("invite.link") });
  const copy = el("button", { type: "button", class: "action" }, t("invite.copy"));
  copy.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(url);
      toast(t("invite.copied"));
    } catch (err) {
      document.execCommand("copy");
    }
  });
  const row = el("div", { class: "invite-row" }, input, copy);
  if (navigator.share) {  // the phone's own share sheet (Web Share API) where the browser has it
    const share = el("button", { type: "button", class: "action primary", id: "share-invite" }, t("invite.share"));
    share.addEventListener("click", () => {
      navigator.share({ title: "Marjolet", text: t("invite.share_text"), url }).catch(() => {});
    });
    row.append(share);
  }
  clear(node).append(el("h2", {}, t("invite.title")), el("p", {}, t("invite.text")), row);
  node.hidden = false;
}

// A person's forfeit in words: `${prefix}left${suffix}`, `${prefix}you_resigned${suffix}`, ...;
// a program's: "forfeit.text" (its technical reason is in the game's JSON, not here).
function forfeitText(f, prefix, suffix, name, view) {
  const kind = forfeitKind(f);
  if (kind === "bot") return t("forfeit.text", { name });
  const you = f.seat === state.seat ? "you_" : "";
  return t(`${prefix}${you}${kind}${suffix}`, { name: view.players[f.seat] });
}

// The match ended by a forfeit: who lost it and how, in words (a bot that broke
// down: its technical reason and the end of its standard error are in the game's
// JSON and the server's log, for whoever studies the bot, not on a player's screen).
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
  const how = forfeitKind(f) === "resigned" ? "_resigned" : "";  // "by resignation"
  if (f.winner === null) title = t("forfeit.aborted_title");  // a player never moved: no result
  else if (f.winner === seat) title = t(`forfeit.you_win${how}`);
  else title = t(`forfeit.wins${how}`, { name: view.players[f.winner] });
  clear($("overlay-title")).append(title);
  const [mine, theirs] = seatsMineFirst();
  const body = [
    el("p", {}, forfeitText(f, "forfeit.", "_text", loser, view)),
    el("p", { class: "muted" }, t("forfeit.score", {
      a: number(view.running[mine]), b: number(view.running[theirs]),
      first: playerLabel(view, mine, seat), second: playerLabel(view, theirs, seat),
    })),
  ];
  body.push(ratingsLine(view));  // a claimed win is rated like any other end
  const news = rematchNews();
  if (news) body.push(news);
  clear($("overlay-body")).append(...body);
  const look = el("button", { type: "button", class: "action look" }, t("end.look"));
  look.addEventListener("click", () => {
    state.hiddenSummary = "forfeit";
    render();
  });
  // a match ended by a forfeit is rematched as one played out (a game found
  // online: an offer the other takes; against a bot or a friend: a new table)
  clear($("overlay-buttons")).append(look, ...endLinks(state.seat !== null));
  node.hidden = false;
}

function foundOnline() {
  return Boolean(state.welcome && state.welcome.paired);
}

/** The rematch of this finished game found online, followed from now on. */
function onlineRematch() {
  if (!state.rematch) {
    const opponent = () => (state.view ? state.view.players[1 - state.seat] : "");
    // the end-of-match box, when open, says the offer's news (role="status"): no toast under it too
    state.rematch = new Rematch(gameId, opponent, render, toast, () => state.opponentDeleted,
      () => !$("overlay").hidden);
  }
  state.rematch.follow();
  return state.rematch;
}

/** Where the rematch of a game found online stands (a seat's page), or null. */
function rematchNews() {
  return state.seat !== null && foundOnline() ? onlineRematch().news() : null;
}

/** Download, replay, rematch (a seat at a finished match; a game found online:
 *  an offer to the same opponent, and the way back online) and new game. */
function endLinks(rematch) {
  const links = [
    el("a", { class: "action", href: `/api/games/${gameId}/record?form=json` }, t("end.download")),
    el("a", { class: "action", href: `/replay?game=${encodeURIComponent(gameId)}` }, t("end.replay")),
    el("a", { class: "action", href: `/replay?game=${encodeURIComponent(gameId)}&review=1` }, t("end.review")),
  ];
  if (rematch && foundOnline()) {  // no invite link to pass on: an offer the other takes
    // (Accept and Decline side by side, on one row of their own on a phone)
    links.push(el("span", { class: "button-pair" }, ...onlineRematch().buttons()));
    links.push(el("a", { class: "action", id: "new-online", href: "/online", title: t("end.online_title") },
      t("end.online")));
  } else if (rematch) {
    const again = el("button", { type: "button", class: "action primary", id: "rematch" }, t("end.rematch"));
    again.title = t("end.rematch_title");
    again.addEventListener("click", startRematch);
    links.push(again);
  }
  links.push(el("a", { class: rematch ? "action" : "action primary", href: "/" }, t("end.new_game")));
  return links;
}

async function startRematch(event) {
  const button = event.currentTarget;
  const held = seatFor(gameId);
  if (!held) return;
  button.disabled = true;
  try {
    const game = await api(`/api/games/${encodeURIComponent(gameId)}/rematch`, { json: { token: held.token } });
    if (game.token) rememberSeat(game.id, game.seat, game.token);
    if (game.invite_url) localStorage.setItem(`marjolet.invite.${game.id}`, game.invite_url);
    location.href = game.url;
  } catch (err) {
    toast(t("end.rematch_failed", { reason: err.message }));
    button.disabled = false;
  }
}

/** The log-in page, which comes back to this game once logged in. */
function logInAgain() {
  return `/online?back=${encodeURIComponent(`/game/${gameId}`)}`;
}

/** A refusal that ends this page's connection, in words a player understands. */
/** The account's seat was this device's, and its session ended (the password
 *  changed, or "log out on my other devices" elsewhere): said, with the way
 *  back, instead of quietly turning the player into a spectator of their game. */
function loggedOutHere() {
  const again = el("a", { href: logInAgain() }, t("table.log_in_again"));
  stopFollowing(el("span", {}, t("table.logged_out"), " ", again));
}

/** This page no longer follows the game (its session ended, or a refusal
 *  that ends its connection): said in the banner, and the table left as a
 *  still picture, without a control that would do nothing there (a card,
 *  resigning, a claim), a clock that would go on counting, or "X is
 *  thinking" about a position that has moved on. */
function stopFollowing(text) {
  state.stopped = true;
  banner(text, "error");
  if (state.ws) state.ws.close();
  clearInterval(state.awayTimer);
  clearInterval(state.deadlineTimer);
  state.deadlineTimer = null;
  awayNode().hidden = true;
  if (state.view) deadlineLine(state.view);  // hidden now, and the time-up box with it
  render();
}

function fatalText(msg) {
  if (msg.code === "no_spectators") return t("table.private");
  if (msg.code === "not_found") return t("table.not_found");
  if (msg.code === "bad_token") return t("table.bad_token");
  return serverSentence(msg);
}

/** A resignation or a claimed win told to one of the two players speaks to
 *  them ("You resigned; bobby wins"); spectators read it in the third person. */
function toPlayer(msg) {
  const seat = msg.params && msg.params.seat;
  const personal = ["notice.resigned", "notice.claimed", "notice.timed_out", "notice.aborted"].includes(msg.key);
  if (!personal || state.seat === null || typeof seat !== "number") return msg;
  return { ...msg, key: `${msg.key}_you_${seat === state.seat ? "lost" : "won"}` };
}

/** A server message whose player names read as the page shows them ("pimc (le plus fort)"). */
function localNames(msg) {
  const params = { ...(msg.params || {}) };
  for (const key of ["name", "winner"]) {
    if (typeof params[key] === "string") params[key] = recordName(params[key]);
  }
  return { ...msg, params };
}

/** The summary of a deal the other player moved on from (their "next deal"):
 *  this player reads it until they close it; the new deal waits behind it. */
function owedOverlay(summary, view) {
  clear($("overlay-title")).append(t("end.deal", { n: summary.index + 1 }));
  clear($("overlay-body")).append(dealSummary(summary, view, state.seat), el("p", { class: "muted" }, t("end.next_started")));
  const go = el("button", { type: "button", class: "action primary", id: "continue" }, t("end.continue"));
  go.addEventListener("click", () => {
    state.owedSummary = null;
    render();
  });
  clear($("overlay-buttons")).append(go);
  $("overlay").hidden = false;
}

function overlay(view) {
  const node = $("overlay");
  if (view.forfeit) {
    forfeitOverlay(view);
    return;
  }
  const summaries = view.deals;
  const owed = summaries.find((d) => d.index === state.owedSummary);
  if (!view.deal_over && owed && owed.index < view.deal) {
    owedOverlay(owed, view);
    return;
  }
  if (!view.deal_over || !summaries.length || state.hiddenSummary === view.deal) {
    node.hidden = true;
    return;
  }
  if (!view.match_over && state.seat !== null) state.owedSummary = view.deal;
  const last = summaries[summaries.length - 1];
  const seat = state.seat;
  let title;
  if (view.match_over) {
    const winner = view.winner;
    title = winner === seat ? t("end.you_win") : t("end.wins", { name: view.players[winner] });
  } else {
    title = t("end.deal", { n: last.index + 1 });
  }
  clear($("overlay-title")).append(title);
  const body = clear($("overlay-body"));
  body.append(dealSummary(last, view, seat));
  const [a, b] = last.totals;
  if (!view.match_over && a === b && a >= view.target) {  // R22: a tie at the target plays on
    body.append(el("p", { class: "tie" }, sentence(t("tui.level_at_target", { n: number(view.target) }))));
  }
  if (view.match_over) body.append(el("h3", {}, t("end.every_deal")), matchTable(view, seat), ratingsLine(view));
  const news = view.match_over ? rematchNews() : null;
  if (news) body.append(news);
  const buttons = clear($("overlay-buttons"));
  const look = el("button", { type: "button", class: "action look" }, t("end.look"));
  look.addEventListener("click", () => {
    state.hiddenSummary = view.deal;
    state.owedSummary = null;
    render();
  });
  buttons.append(look);
  if (view.match_over) {
    buttons.append(...endLinks(seat !== null));
  } else if (seat !== null) {
    const next = el("button", { type: "button", class: "action primary", id: "next-deal" }, t("end.next_deal"));
    next.addEventListener("click", nextDeal);
    buttons.append(next);
  } else {
    buttons.append(el("span", { class: "muted" }, t("end.next_soon")));
  }
  node.hidden = false;
  const primary = node.querySelector(".buttons .primary");
  if (primary && !node.contains(document.activeElement)) primary.focus({ preventScroll: true });
}

function render() {
  const view = state.view;
  if (!view) return;
  const seat = state.seat;
  const ctx = {
    seat,
    interactive: seat !== null && !state.stopped,  // a page that stopped following: a still picture
    pending: state.pending,
    hint: state.hint ? state.hint.action : null,
    note: state.hint ? hintText(state.hint) : state.why,
    noteKind: state.hint ? "hint" : "why",
    hintPending: state.hintPending,
    onAction: act,
    // a rated game, or one against a stranger found online, is played by the
    // players alone: no advice (the server refuses it too)
    onHint: seat !== null && state.welcome && state.welcome.hints ? askHint : null,
    onBlocked: (why) => {
      state.why = why;
      state.whyVersion = view.version;
      state.hint = null;
      render();
    },
    onNote: (text) => {
      state.why = text;
      state.whyVersion = view.version;
      render();
    },
    connected: state.connected,
    // what the other player did since this seat moved (cards, tricks taken, melds) and
    // the card this seat drew, said in the live prompt until this seat moves
    news: moveNews(view, seat),
  };
  if (view.status === "waiting") ctx.message = t("table.waiting_friend");
  if (view.deal_over && state.hiddenSummary === view.deal) {
    const show = el("button", { type: "button", class: "link" }, t("table.show_summary"));
    show.addEventListener("click", () => {
      state.hiddenSummary = -1;
      render();
    });
    ctx.message = el("span", {}, view.match_over ? t("table.match_over") : t("table.deal_over"), " ", show);
  }
  if (view.forfeit) {
    const who = view.players[view.forfeit.seat];
    const bot = forfeitKind(view.forfeit) === "bot";  // not a person who left or resigned
    const show = el("button", { type: "button", class: "link" }, t(bot ? "table.show_why" : "table.show_result"));
    show.addEventListener("click", () => {
      state.hiddenSummary = -1;
      render();
    });
    const text = bot ? t("table.forfeit", { name: who }) : forfeitText(view.forfeit, "table.forfeit_", "", who, view);
    ctx.message = el("span", {}, text, " ", show);
  }
  if (state.stopped && !ctx.message) ctx.message = t("table.stopped");
  if (state.timeUp === "theirs" && !ctx.message) {  // out of time: no longer "thinking"
    // shown, not said: the time-up box's fuller sentence (with the claim) is said instead
    ctx.message = el("span", { "aria-hidden": "true" }, t("prompt.time_up", { name: view.players[view.to_move] }));
  }
  if (view.match_over || view.forfeit) {  // nobody is waited for any more
    clearInterval(state.awayTimer);
    awayNode().hidden = true;
  }
  const snap = snapshotBoard(parts);
  renderBoard(parts, view, ctx);
  animateChanges(snap, parts, view, seat);
  const board = $("board");
  board.dataset.version = String(view.version);
  board.dataset.pending = state.pending ? "1" : "0";
  clear($("score")).append(scorePanel(view, seat));
  const log = clear($("log"));
  log.append(logPanel(view, view.log, seat));
  const list = log.querySelector(".log-scroll");
  if (list) list.scrollTop = list.scrollHeight;
  if (view.rules) $("rules-link").href = `/rules?rules=${encodeURIComponent(JSON.stringify(view.rules))}`;
  invitePanel(view);
  resignRow(view);
  overlay(view);
  // a resigned or claimed match keeps its last player to move: nobody's turn now
  const mine = seat !== null && view.to_move === seat && !view.match_over;
  // the count of waiting games may change when the turn changes hands, and
  // when a deal ends or the next begins (between deals the game waits for
  // either player: the other starting the next deal takes it off this one)
  const turn = `${mine} ${Boolean(view.deal_over)}`;
  if (turn !== state.turn) {
    state.turn = turn;
    refreshOnline();
  }
  setTitle(mine ? t("table.title_turn") : t("table.title"));
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
    // a link already used, or not this game's, is said before any name is asked
    const check = await api(`/api/games/${encodeURIComponent(gameId)}/invite`, { json: { invite } });
    if (check.status !== "open") {
      deadEnd(t(check.status === "used" ? "table.invite_used" : "table.invite_bad"));
      return;
    }
    const joined = await joinUnderAName(invite, check.host);
    rememberSeat(gameId, joined.seat, joined.token);
  } catch (err) {
    const code = err.details && err.details.code;
    if (code === "invite_used") deadEnd(t("table.invite_used"));
    else if (code === "bad_invite") deadEnd(t("table.invite_bad"));  // a mistyped link
    else banner(t("table.cannot_join", { reason: err.message }), "error");
  }
}

/** Ask the friend's name and take the seat; a name the server refuses (one that would
 *  pass for the computer or another player) is said in the dialog, which asks again. */
async function joinUnderAName(invite, host) {
  let refused = null;
  for (;;) {
    const name = await askName(host, refused);
    try {
      const joined = await api(`/api/games/${encodeURIComponent(gameId)}/join`, { json: { invite, name } });
      // kept for the next table and the online page only once the server took it
      if (name !== t("lobby.friend_default")) localStorage.setItem("marjolet.name", name);
      return joined;
    } catch (err) {
      const code = err.details && err.details.code;
      if (code !== "name_read_as_other" && code !== "mixed_scripts") throw err;
      refused = err.message;
    }
  }
}

/** A page with no table to show (an invite link someone else already used,
 *  or one that is not valid): the sentence that says why and a way home,
 *  where an empty table would be. */
function deadEnd(text) {
  state.deadEnd = true;
  banner(null);
  const skip = document.querySelector(".skip-link");
  if (skip) skip.remove();
  const heading = document.querySelector("main h1");
  document.querySelector("main").replaceWith(el("main", { class: "page", id: "dead-end" },
    heading || "",
    el("section", { class: "panel" },
      el("p", { role: "alert" }, text),
      el("p", {}, el("a", { class: "action primary", href: "/" }, t("notfound.home"))))));
}

/** The guest's name, asked once in a small dialog (the last name used is offered);
 *  `host` is the name of the player who sent the link. */
function askName(host, refused = null) {
  const node = $("overlay");
  const input = el("input", { type: "text", name: "name", maxlength: "24", autocomplete: "nickname", id: "join-name",
    value: localStorage.getItem("marjolet.name") || "", placeholder: t("lobby.name_placeholder") });
  const button = el("button", { type: "submit", class: "action primary", id: "join-button" }, t("join.button"));
  const form = el("form", { class: "join-form" }, el("p", {}, host && host !== "you" ? t("join.text_from", { name: localName(host) }) : t("join.text")),
    el("label", {}, el("span", {}, t("join.name")), " ", input));
  if (refused) {  // the name given before, refused: why, tied to the field
    form.append(el("p", { class: "form-error", id: "join-name-error", role: "alert" }, sentence(refused)));
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", "join-name-error");
  }
  clear($("overlay-title")).append(t("join.title"));
  clear($("overlay-body")).append(form);
  clear($("overlay-buttons")).append(button);
  node.hidden = false;
  input.focus();
  return new Promise((resolve) => {
    const done = (event) => {
      event.preventDefault();
      const name = input.value.trim();
      node.hidden = true;
      resolve(name || t("lobby.friend_default"));
    };
    form.addEventListener("submit", done);
    button.addEventListener("click", done);
  });
}

/** Digit keys 1-6 play the card with that number (as in the terminal); h asks a hint; d draws. */
function onKey(event) {
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || !state.view) return;
  if (event.ctrlKey || event.altKey || event.metaKey) return;
  if (!$("overlay").hidden) return;  // the dialog is modal: no card is played behind it
  const view = state.view;
  if (event.key === "h" && state.welcome && state.welcome.hints) askHint();  // (none at this table)
  if (event.key === "d" && (view.legal || []).some((a) => a.kind === "draw")) act("draw");
  if (/^[1-9]$/.test(event.key) && state.seat !== null && view.hands[state.seat].cards) {
    const cards = sortHand(view.hands[state.seat].cards, view.trump);
    const card = cards[Number(event.key) - 1];
    if (card && (view.legal || []).some((a) => a.kind === "card" && a.action === card)) act(card);
    else if (card && view.blocked && view.blocked[card]) {
      state.why = blockedReason(view, card);
      state.whyVersion = view.version;
      render();
    }
  }
}

document.addEventListener("keydown", onKey);

// -- the dialog (end of a deal, of the match, a guest's name) is modal for the keyboard:
// the page behind it is inert, Tab goes round its controls, Escape is "See the table"
// (or "Continue"), and once it closes the keyboard is back on the board.

function dialogControls() {
  return [...document.querySelectorAll("#overlay .dialog :is(button, a[href], input, select, textarea)")]
    .filter((n) => !n.disabled && n.offsetParent !== null);
}

function onDialogKey(event) {
  const node = $("overlay");
  if (node.hidden) return;
  if (event.key === "Escape") {
    const away = node.querySelector("#overlay-buttons .look, #continue");
    if (away) {
      event.preventDefault();
      away.click();
    }
    return;
  }
  if (event.key !== "Tab") return;
  const controls = dialogControls();
  if (!controls.length) return;
  const first = controls[0];
  const last = controls[controls.length - 1];
  const inside = node.contains(document.activeElement);
  if (!inside || (event.shiftKey && document.activeElement === first) || (!event.shiftKey && document.activeElement === last)) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
}

/** The page behind the dialog: inert while it is open (readers and Tab stay in it). */
function behindDialog() {
  // the banner stays live: a lost connection is said even over a summary
  const kept = new Set(["overlay", "announcer", "toast", "banner"]);
  return [...document.body.children].filter((n) => !kept.has(n.id) && n.tagName !== "SCRIPT");
}

function watchDialog() {
  const node = $("overlay");
  let open = !node.hidden;
  new MutationObserver(() => {
    if (node.hidden === !open) return;
    open = !node.hidden;
    for (const part of behindDialog()) part.inert = open;
    if (open) {
      if (!node.contains(document.activeElement)) {
        const primary = node.querySelector(".buttons .primary") || dialogControls()[0];
        if (primary) primary.focus({ preventScroll: true });
      }
      return;
    }
    const active = document.activeElement;
    if (active && active !== document.body && !node.contains(active)) return;
    // closed: the summary's button on the felt ("show the summary"), a card, the draw, or the board
    const back = document.querySelector("#board .prompt button")
      || document.querySelector("#board .hand.mine .card.playable, #board .action.draw")
      || $("board");
    back.focus({ preventScroll: true });
  }).observe(node, { attributes: true, attributeFilter: ["hidden"] });
}

document.addEventListener("keydown", onDialogKey);

async function main() {
  await loadLanguage();
  applyPreferences();
  $("topbar").replaceWith(topbar(""));
  announcerNode();  // the live region exists, empty, before anything is said in it
  const skip = document.querySelector(".skip-link");
  if (skip) {
    skip.addEventListener("click", (event) => {  // straight to the hand (or the draw)
      event.preventDefault();
      const to = document.querySelector("#board .hand.mine .card.playable, #board .action.draw, #board .hand.mine button.card")
        || $("board");
      to.focus();
    });
  }
  watchDialog();
  parts = buildBoard($("board"));
  await claimFromFragment();
  if (state.deadEnd) return;  // an invite link that leads nowhere: no table to follow
  // Two tabs of one guest follow a rematch to its new table: the one that
  // took it stores the seat's key, maybe after the other began watching.
  onSeatRemembered(gameId, () => {
    if (state.seatless && state.seat === null) location.reload();
  });
  connect();
}

main();
