// The online page: log in or create an account, the player's games (those
// waiting for them first), offers to play (post, accept, withdraw), and
// "Play now". The lobby socket refreshes the offers and tells the poster
// of an offer the moment it is taken.

import {
  PLAY_NOW_GAME, answerSubmit, api, applyPreferences, clear, el, forgetSeats, formatDate, loadLanguage, localName, number, playerName, refreshOnline, rememberSeat, ratingText,
  resultText, scoreText, sentence, setPlayerName, setTitle, showWaiting, t, topbar, translateDocument,
} from "./common.js";
import { Rematch } from "./rematch.js";

const OWN_SEEKS = "marjolet.own_seeks";
const GUEST_NUMBER = "marjolet.guest_number";
const BROWSER = "marjolet.browser";
const state = { me: null, socket: null, place: null, rejoining: false, loggingOut: false };
/** The close of a lobby socket whose session ended (the server's
 *  CLOSE_SESSION_ENDED and its reason; a flood's 1008 has another reason). */
const SESSION_ENDED = { code: 1008, reason: "logged out" };
// Milliseconds between two `wait` messages on the lobby socket: each is the
// place's sign of life (the server gives a place up after 10 s without one).
const WAIT_EVERY = 3000;
/** How often the page follows its own offers again: each follow is the
 *  offer's sign of life, without which a live offer leaves the lobby (90 s: a hidden
 *  page's timers may run once a minute). */
const FOLLOW_EVERY = 10000;
/** How long the server keeps a live offer with no sign of life in the lobby
 *  (its seek_timeout): a page opening later withdraws this browser's offers
 *  last followed before that, instead of bringing them back. */
const LAPSE_AFTER = 90000;

function $(id) {
  return document.getElementById(id);
}

function say(id, text) {
  clear($(id)).append(text || "");
}

function ownSeeks() {
  try {
    return JSON.parse(localStorage.getItem(OWN_SEEKS) || "{}");
  } catch (err) {
    return {};
  }
}

function keepOwnSeeks(mine) {
  try { localStorage.setItem(OWN_SEEKS, JSON.stringify(mine)); } catch (err) { /* storage blocked */ }
}

/** This browser's live offers whose page was closed long enough for them to
 *  leave the lobby: withdrawn, and said. Followed again, they would come back
 *  and seat the player, who came to do something else, in a live game. */
async function withdrawLapsed() {
  const mine = ownSeeks();
  const lapsed = Object.entries(mine).filter(([, s]) => s.live && Date.now() - s.seen > LAPSE_AFTER);
  const gone = await Promise.all(lapsed.map(([id, s]) => withdraw(id, s.token)));
  lapsed.forEach(([id], i) => { if (gone[i]) delete mine[id]; });  // a matched one: still followed
  if (!gone.some(Boolean)) return;
  keepOwnSeeks(mine);
  say("seek-status", t("online.lapsed_withdrawn"));
}

// This browser's id in "Play now": its places are never paired together.
function browserId() {
  try {
    let id = localStorage.getItem(BROWSER);
    if (!id) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      localStorage.setItem(BROWSER, id);
    }
    return id;
  } catch (err) {
    return null;
  }
}

function goTo(game) {
  if (game.token) rememberSeat(game.id, game.seat, game.token);
  location.href = game.url;
}

// -- the account ----------------------------------------------------------------------

function accountPanel() {
  const box = clear($("account"));
  const me = state.me;
  if (me) {
    const out = el("button", { type: "button", id: "logout", class: "action" }, t("online.logout"));
    out.addEventListener("click", async () => {
      state.loggingOut = true;  // its lobby socket's close is no news to say
      try {
        await stopLooking();  // the place and the offers are this person's, not the next one's
        await Promise.all(Object.entries(ownSeeks()).map(([id, seek]) => withdraw(id, seek.token)));
        localStorage.removeItem(OWN_SEEKS);
        const done = await api("/api/session", { method: "DELETE", json: {} });
        forgetSeats(done.forget || []);
        await refresh();
      } finally {
        state.loggingOut = false;
      }
    });
    const profile = el("a", { class: "action", id: "my-profile", href: `/players/${encodeURIComponent(me.name)}` },
      t("online.profile"));
    const rating = ratingText(Math.round(me.rating.value), me.rating.provisional);  // as the lobby shows it
    box.append(el("p", {}, t("online.logged_in", { name: me.name, rating })),
      el("div", { class: "action-row start" }, profile, out));
    return;
  }
  const described = { required: "", "aria-describedby": "login-error" };
  const name = el("input", { id: "login-name", autocomplete: "username", maxlength: "20", ...described });
  const password = el("input", { id: "login-password", type: "password", autocomplete: "current-password", ...described });
  const status = el("p", { id: "login-error", class: "form-error", role: "alert" });
  const send = (path) => async (event) => {
    event.preventDefault();
    for (const input of [name, password]) input.removeAttribute("aria-invalid");
    try {
      await api(path, { json: { name: name.value, password: password.value } });
      if (goBack()) return;
      await refresh();
    } catch (err) {
      clear(status).append(sentence(err.message));
      const fields = loginFieldsAt(err, name, password);
      for (const field of fields) field.setAttribute("aria-invalid", "true");
      if (fields.length) fields[fields.length - 1].focus();
    }
  };
  const login = el("button", { type: "submit", id: "login", class: "action primary" }, t("online.login"));
  const signup = el("button", { type: "button", id: "signup", class: "action" }, t("online.signup"));
  signup.addEventListener("click", send("/api/accounts"));
  const form = el("form", { class: "row-form" },
    el("label", { for: "login-name" }, t("online.name")), name,
    el("label", { for: "login-password" }, t("online.password")), password, login, signup);
  form.addEventListener("submit", send("/api/session"));
  box.append(el("p", {}, t("online.why_account")), form, status, guestNameField());
}

/** The fields a refusal of the log-in form is about, marked (the last one focused,
 *  as on the profile page): the name, the password, or both for "wrong name or
 *  password" (either may be wrong; the password is the one to type again). */
function loginFieldsAt(err, name, password) {
  const code = err.details && err.details.code;
  if (code === "bad_name" || code === "name_taken") return [name];
  if (code === "weak_password") return [password];
  return code === "bad_credentials" ? [name, password] : [];
}

/** A guest's name for the others, in the reader's words: the name the player
 *  gave (here or on the home page), else "Invité 371", the number kept by this
 *  browser so that two guests at one table are almost always told apart. */
function guestName() {
  const given = playerName().trim();
  if (given) return given;
  let n = NaN;
  try { n = Number(localStorage.getItem(GUEST_NUMBER)); } catch (err) { /* storage blocked */ }
  if (!Number.isInteger(n) || n < 100 || n > 999) {
    n = 100 + Math.floor(Math.random() * 900);
    try { localStorage.setItem(GUEST_NUMBER, String(n)); } catch (err) { /* this page only */ }
  }
  return t("online.guest", { n });
}

function guestNameField() {
  const input = el("input", { id: "guest-name", maxlength: "24", autocomplete: "nickname", value: playerName() });
  input.placeholder = guestName();
  input.addEventListener("change", () => setPlayerName(input.value.trim()));
  return el("p", { class: "row-form" }, el("label", { for: "guest-name" }, t("online.guest_name")), input);
}

// -- my games ---------------------------------------------------------------------------

// How often the page asks whether a rematch offer of the player's games was
// made, withdrawn or answered (a light question: the database alone), so that
// it shows without a reload; the list is fetched and drawn again only then (a
// button under the finger stays put), never while one of its answers is sent.
const OFFERS_EVERY = 10000;
const list = { drawnOffers: null, opponents: {}, asked: 0, answers: [] };

/** The open rematch offers a list of games shows: game id -> theirs | mine. */
function offersOf(games) {
  const offers = {};
  for (const g of games) {
    if (g.rematch_offered || g.rematch_mine) offers[g.id] = g.rematch_offered ? "theirs" : "mine";
  }
  return offers;
}

function sameOffers(a, b) {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

/** Ask whether the offers changed; fetch and draw the list if they did, after
 *  telling what became of each offer that left it. */
async function followOffers() {
  if (document.hidden || !state.me || list.answers.some((r) => r.busy)) return;
  const data = await api("/api/me/offers");
  const before = list.drawnOffers;
  if (before !== null && sameOffers(data.offers, before)) return;
  for (const id of Object.keys(before || {})) {
    if (!(id in data.offers) && await offerSettled(id)) return;  // gone to the new table
  }
  await myGames();
}

/** An offer the list showed was answered or withdrawn elsewhere: to the new
 *  table if it was taken (the opponent waits there), else say why it ended.
 *  Whether the page is leaving. */
function offerSettled(gameId) {
  const opponent = list.opponents[gameId] || "";
  return new Rematch(gameId, () => opponent, () => {}, (text) => say("my-games-status", text)).settle();
}

async function myGames() {
  const asked = ++list.asked;
  if (!state.me) {
    list.drawnOffers = null;
    clear($("my-games")).append(el("p", { class: "muted" }, t("online.games_need_login")));
    return;
  }
  const data = await api("/api/me/games");
  if (asked !== list.asked) return;  // a later asking draws the list
  list.drawnOffers = offersOf(data.games);
  list.opponents = Object.fromEntries(data.games.map((g) => [g.id, g.opponent]));
  list.answers = [];
  const box = clear($("my-games"));
  if (!data.games.length) {
    box.append(el("p", { class: "muted" }, t("online.no_games")));
    return;
  }
  box.append(el("ul", { class: "my-games" }, data.games.map(gameLine)));
}

/** One game of the list: its link, and the answer to a rematch it waits for. */
function gameLine(g) {
  const bits = [t("online.against", { name: localName(g.opponent) })];
  if (g.rated) bits.push(t("online.rated"));
  bits.push(scoreText(g.totals[g.seat], g.totals[1 - g.seat]));
  if (g.finished) bits.push(g.aborted ? t("online.aborted") : resultText(g.winner === g.seat, g.forfeit, g.resigned), formatDate(g.updated));
  else if (g.my_turn) bits.push(t("online.your_turn"));
  if (g.rematch_offered) bits.push(t("online.rematch_offered", { name: g.opponent }));
  if (g.rematch_mine) bits.push(t("online.rematch_waiting", { name: g.opponent }));
  if (g.deadline && !g.finished) {  // whose move the deadline is for
    const when = formatDate(g.deadline);
    bits.push(g.my_turn ? t("online.deadline", { when }) : t("online.deadline_them", { name: g.opponent, when }));
  }
  const answer = g.rematch_offered || g.rematch_mine;
  const primary = g.my_turn && !answer;  // gold is for the one thing to press
  return el("li", { class: g.my_turn ? "my-turn" : null },
    el("a", { href: g.url, class: primary ? "action primary" : "action" }, bits.join(" · ")),
    ...(answer ? rematchAnswer(g) : []));
}

/** Accept or Decline the opponent's rematch offer, or withdraw one's own, from
 *  the list itself, without opening the finished game (Accept goes to the new
 *  table); what became of it is said under the list. */
function rematchAnswer(g) {
  const rematch = new Rematch(g.id, () => g.opponent, () => {
    const offer = rematch.offer;
    if (offer && offer.status !== "open") say("my-games-status", rematch.ending(offer));
    list.drawnOffers = null;  // drawn again, now or at the next asking (its buttons were used)
    myGames().catch(() => {});
  }, (text) => say("my-games-status", text));
  rematch.offer = { status: "open", mine: Boolean(g.rematch_mine), rated: g.rated };  // what the list was told
  list.answers.push(rematch);
  const buttons = rematch.buttons();
  for (const button of buttons) {
    button.id = `${button.id}-${g.id}`;
    button.setAttribute("aria-label", `${button.textContent} (${t("online.against", { name: g.opponent })})`);
  }
  return [el("span", { class: "button-pair" }, ...buttons)];
}

// -- offers ------------------------------------------------------------------------------

// the latest fetch of the offers: an earlier one answered later never lists over it
let seeksAsked = 0;

async function seeks() {
  const asked = ++seeksAsked;
  const data = await api("/api/lobby");
  if (asked !== seeksAsked) return;  // a newer list is on its way (or shown)
  const box = clear($("seeks"));
  if (!data.seeks.length) {
    box.append(el("p", { class: "muted" }, t("online.no_offers")));
    return;
  }
  const mine = ownSeeks();
  box.append(el("ul", { class: "seeks" }, data.seeks.map((s) => {
    const bits = [s.player];
    if (s.rating !== null) bits.push(ratingText(s.rating, s.provisional));  // as the tables show it
    else bits.push(t("online.guest_mark"));  // no account: no rating, and no one's name
    bits.push(t(s.rated ? "online.rated" : "online.casual"));
    bits.push(s.days_per_move ? t("online.days", { n: s.days_per_move }) : t("online.live"));
    bits.push(t("online.to_points", { n: number(s.rules.target) }));
    let button;
    if (mine[s.id]) {
      button = el("button", { type: "button", class: "action" }, t("online.withdraw"));
      button.addEventListener("click", async () => {
        await withdraw(s.id, mine[s.id].token);
        const left = ownSeeks();
        delete left[s.id];
        localStorage.setItem(OWN_SEEKS, JSON.stringify(left));
        say("seek-status", t("online.withdrawn"));  // no longer "your offer is listed"
        await seeks();
      });
    } else {
      button = el("button", { type: "button", class: "action primary accept" }, t("online.accept"));
      button.addEventListener("click", async () => {
        try {
          goTo(await api(`/api/seeks/${s.id}/accept`, { json: { name: guestName() } }));
        } catch (err) {
          say("seek-status", sentence(err.message));
          await seeks();
        }
      });
    }
    return el("li", {}, bits.join(" · "), " ", button);
  })));
}

/** Take an offer of this browser's off the lobby (gone already: nothing to do). */
function withdraw(id, token) {
  return api(`/api/seeks/${id}`, { method: "DELETE", json: { token } }).catch(() => null);
}

async function postSeek(event) {
  event.preventDefault();
  const days = $("seek-days").value;
  const body = {
    rules: { profile: "classic", target: Number($("seek-target").value) || 500 },
    rated: Boolean(state.me) && $("seek-rated").checked,
    days_per_move: days ? Number(days) : null,
    name: guestName(),
  };
  try {
    const seek = await api("/api/seeks", { json: body });
    const mine = ownSeeks();
    mine[seek.id] = { token: seek.token, live: !body.days_per_move, seen: Date.now() };
    keepOwnSeeks(mine);
    follow(seek.id, seek.token);
    say("seek-status", t("online.posted"));
    await seeks();
  } catch (err) {
    say("seek-status", sentence(err.message));
  }
}

/** Back to the game whose page sent the player here to log in again
 *  (`/online?back=/game/ID`); only a game of this site. */
function goBack() {
  const back = new URLSearchParams(location.search).get("back") || "";
  if (!/^\/game\/[A-Za-z0-9_-]+$/.test(back)) return false;
  location.href = back;
  return true;
}

function follow(id, token) {
  const ws = state.socket;
  if (!ws || ws.readyState !== WebSocket.OPEN) return false;
  ws.send(JSON.stringify({ type: "follow", seek: id, token }));
  return true;
}

/** Follow each offer this browser posted (again): it is still here. */
function followMine() {
  const mine = ownSeeks();
  for (const [id, seek] of Object.entries(mine)) {
    if (follow(id, seek.token)) seek.seen = Date.now();
  }
  keepOwnSeeks(mine);
}

/** Open the lobby socket as whoever is logged in now. The server knows a
 *  socket's account by the session it was opened with, so a socket opened
 *  before this page logged in would stay a visitor's, told of none of the
 *  account's games: a socket open (or opening) for someone else is closed
 *  and replaced, and not reconnected. */
function lobbySocket() {
  const owner = state.me ? state.me.name : null;
  const old = state.socket;
  if (old && old.readyState <= WebSocket.OPEN) {  // CONNECTING or OPEN
    if (old.owner === owner) return;
    old.replaced = true;
    old.close();
  }
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws/lobby`);
  ws.owner = owner;
  state.socket = ws;
  ws.addEventListener("open", () => {
    // the offers as they are now: the server tells this socket every change from its
    // opening on, and one made before (while it (re)opened, a phone's network
    // back after a drop) would be shown only at the next change
    seeks().catch(() => {});
    followMine();
    if (state.place) waitOn(state.place.key);
    // a game that changed before this socket (re)opened was told to no socket here
    if (state.me) {
      refreshOnline();
      myGames().catch(() => {});
    }
  });
  ws.addEventListener("message", (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "lobby") seeks().catch(() => {});
    if (msg.type === "turn") {  // one of the player's games changed
      refreshOnline();
      myGames().catch(() => {});
    }
    if (msg.type === "play_now" && state.place && msg.key === state.place.key) {
      if (msg.status === "matched") matchedNow(msg.game);
      else rejoin(msg.key);
    }
    if (msg.type === "matched" || msg.type === "cancelled") {
      const mine = ownSeeks();
      delete mine[msg.seek];
      localStorage.setItem(OWN_SEEKS, JSON.stringify(mine));
      if (msg.type === "matched" && msg.game) goTo(msg.game);
    }
  });
  ws.addEventListener("close", (event) => {
    if (ws.replaced) return;
    if (event.code === SESSION_ENDED.code && event.reason === SESSION_ENDED.reason) {
      sessionEnded();
      return;
    }
    setTimeout(lobbySocket, 3000);
  });
}

/** The server closed the lobby socket: the session that proved its account
 *  ended. Logged out from another device (or by a password changed there),
 *  the page says so, shows the login form and no longer waits in "Play
 *  now" for the account; logged out here, it says nothing more. Either way
 *  the socket opens again, a visitor's now, which no session's end closes
 *  (no reconnecting loop); a device whose session was renewed (its own
 *  password change) is still logged in, and its new socket is the
 *  account's again. */
async function sessionEnded() {
  // logged out here: the close comes while the page is logging out, or once it has
  const elsewhere = Boolean(state.me) && !state.loggingOut;
  try {
    await refresh();
  } catch (err) { /* asked again within a minute */ }
  if (elsewhere && !state.me) {
    say("login-error", t("online.logged_out_here"));
    // its "Play now" place was the account's: no longer waited on from here
    // (without its sign of life the server gives it up within seconds)
    if (state.place) {
      state.place = null;
      nowButton(false);
      say("now-status", "");
    }
  }
  lobbySocket();
}

// -- Play now ------------------------------------------------------------------------------

async function playNow(event) {
  event.preventDefault();
  if (state.place || state.rejoining) return; // one place per page
  const wait = $("now-wait").value;
  await joinQueue({
    bot_after: wait === "" ? null : Number(wait), rated: Boolean(state.me) && $("now-rated").checked, name: guestName(),
    browser: browserId(),
  });
}

function nowButton(waiting) {
  $("now-form").querySelector("button[type=submit]").disabled = waiting;
  $("now-cancel").hidden = !waiting || !state.place;  // a stop needs the place's key
}

/** Leave "Play now": the place is given up at once (its timers stop with it).
 *  A place matched meanwhile is a game already made: the page goes to it. */
async function stopLooking() {
  const place = state.place;
  if (!place) return;
  state.place = null;
  nowButton(false);
  try {
    await api(`/api/play-now/${place.key}`, { method: "DELETE", json: {} });
  } catch (err) {
    const status = await api(`/api/play-now/${place.key}`).catch(() => null);
    if (status && status.status === "matched") return matchedNow(status.game);
  }
  say("now-status", t("online.stopped_looking"));
}

/** Wait in "Play now": the lobby socket says when the place is matched, and
 * its `wait` message, sent again every few seconds, keeps the place alive;
 * the poll is the fallback (a hidden tab's timers are slowed). */
async function joinQueue(body) {
  nowButton(true);
  let place;
  try {
    place = await api("/api/play-now", { json: body });
  } catch (err) {
    say("now-status", sentence(err.message));
    nowButton(false);
    return;
  }
  const key = place.key;
  const mine = () => state.place !== null && state.place.key === key;
  state.place = { key, body };
  nowButton(true);  // now with its key: "Stop looking" may be shown
  // rated: the rating gap accepted widens as the wait goes on, which is why it may last
  say("now-status", body.rated ? `${t("online.searching")} ${t("online.searching_rated")}` : t("online.searching_any"));
  waitOn(key);
  const beat = () => {
    if (!mine()) return;
    waitOn(key);
    setTimeout(beat, WAIT_EVERY);
  };
  const poll = async () => {
    if (!mine()) return;
    try {
      const status = await api(`/api/play-now/${key}`);
      if (mine() && status.status === "matched") return matchedNow(status.game);
    } catch (err) {
      if (err.details && err.details.code === "not_in_queue") return rejoin(key);
    }
    setTimeout(poll, 1000);
  };
  setTimeout(beat, WAIT_EVERY);
  setTimeout(poll, 1000);
}

/** The place ``key`` was given up (the page was away too long): queue again,
 * once, though the socket and the poll may both say so; the old place is
 * forgotten first, so the page never holds two. */
async function rejoin(key) {
  if (state.rejoining || !state.place || state.place.key !== key) return;
  state.rejoining = true;
  const body = state.place.body;
  state.place = null; // the old place's timers stop here
  try {
    await api(`/api/play-now/${key}`, { method: "DELETE", json: {} }).catch(() => null);
    await joinQueue(body);
  } finally {
    state.rejoining = false;
  }
}

function waitOn(key) {
  const ws = state.socket;
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "wait", key }));
}

function matchedNow(game) {
  state.place = null;
  // the table says so if nobody was free and the computer took the seat (its level's name
  // alone would pass for a person)
  sessionStorage.setItem(PLAY_NOW_GAME, game.id);
  goTo(game);
}

async function refresh() {
  const me = await api("/api/me");
  state.me = me.account;
  // rated games are between accounts: a guest is not offered the box at all
  for (const id of ["now-rated", "seek-rated"]) {
    $(id).closest("label").hidden = !state.me;
    if (!state.me) $(id).checked = false;
  }
  showWaiting(me);
  setTitle(t("online.page_title"));
  accountPanel();
  if (state.socket) lobbySocket();  // logged in or out since it opened: the new account's
  await myGames();
  await seeks();
}

/** What the forms need before they answer: the texts and the page's frame. */
async function setUp() {
  await loadLanguage();
  applyPreferences();
  translateDocument(document);
  document.getElementById("topbar").replaceWith(topbar("/online"));
}

async function main() {
  await ready;
  await withdrawLapsed();
  await refresh();
  lobbySocket();
  window.addEventListener("marjolet:signed-out", () => refresh().catch(() => {}));  // no longer "logged in as"
  setInterval(() => followOffers().catch(() => {}), OFFERS_EVERY);  // (asked again soon)
  setInterval(followMine, FOLLOW_EVERY);
}

// The forms answer from the first moment (a click while the page is still
// loading its texts waits for them instead of submitting the page natively).
answerSubmit($("seek-form"), () => ready, postSeek);
answerSubmit($("now-form"), () => ready, playNow);
$("now-cancel").addEventListener("click", stopLooking);
const ready = setUp();
main();
