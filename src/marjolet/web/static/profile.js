// A player's profile: rating, results, the rating after each rated game
// (an SVG line drawn here) and recent games with replay and review links;
// on the player's own profile, their account: change the password, log out
// on the other devices, delete the account.

import {
  api, applyPreferences, clear, el, forgetSeats, formatDate, loadLanguage, localName, number, refreshOnline, resultText,
  sentence, svg, t, topbar, translateDocument,
} from "./common.js";

function $(id) {
  return document.getElementById(id);
}

// The chart's size: as wide as its panel allows (at most 1200), so that on a phone
// the SVG is not scaled down and its labels keep their size.
function plotWidth() {
  const room = $("plot").clientWidth || document.documentElement.clientWidth - 32;
  return Math.round(Math.min(1200, Math.max(280, room)));
}

// The y labels of the chart: the start (1500), the rating now, the lowest and
// the highest, each once and never drawn over another (12 px apart at least).
function yLabels(points, y) {
  const last = points[points.length - 1];
  const wanted = [last, points[0], Math.min(...points), Math.max(...points)];
  const shown = [];
  for (const value of wanted) {
    if (shown.every((v) => Math.abs(y(v) - y(value)) >= 12)) shown.push(value);
  }
  return shown;
}

function plot(history) {
  if (history.length < 1) return el("p", { class: "muted" }, t("profile.no_rated"));
  const points = [1500, ...history.map((h) => h.rating)];
  const w = plotWidth();
  const h = 200;
  const pad = 40;
  const lo = Math.min(...points) - 20;
  const hi = Math.max(...points) + 20;
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, points.length - 1);
  const y = (v) => h - pad - ((v - lo) * (h - 2 * pad)) / (hi - lo);
  const path = points.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const last = points.length - 1;
  const point = (v, i) => (i === 0 ? t("profile.plot_start_point", { rating: number(1500) }) : t("profile.plot_point", {
    n: i, date: formatDate(history[i - 1].at), result: resultText(history[i - 1].score > 0.5, false), rating: number(Math.round(v)),
  }));
  return svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "rating-plot", role: "img", "aria-label": t("profile.plot_label", { n: history.length }) },
    svg("line", { x1: pad, y1: h - pad, x2: w - pad, y2: h - pad, class: "axis" }),
    svg("line", { x1: pad, y1: y(1500), x2: w - pad, y2: y(1500), class: "start" }),
    ...yLabels(points, y).map((v) => svg("text", {
      x: 2, y: y(v) + 4, class: v === points[last] ? "tick now" : "tick",
    }, number(Math.round(v)))),
    svg("text", { x: pad, y: h - pad + 16, class: "tick" }, t("profile.plot_start")),
    svg("text", { x: w - pad, y: h - pad + 16, class: "tick", "text-anchor": "end" }, t("profile.plot_after", { n: history.length })),
    svg("path", { d: path, class: "line", fill: "none" }),
    ...points.map((v, i) => svg("circle", { cx: x(i), cy: y(v), r: i === last ? 5 : 3, class: "dot" }, svg("title", {}, point(v, i)))));
}

function recent(games) {
  if (!games.length) return el("p", { class: "muted" }, t("profile.no_games"));
  return el("ul", { class: "recent" }, games.map((g) => {
    const bits = [formatDate(g.updated), t("online.against", { name: localName(g.opponent) })];
    if (g.rated) bits.push(t("online.rated"));
    if (g.aborted) bits.push(t("online.aborted"));  // a player never moved: no result
    else bits.push(g.result ? resultText(g.result === "win", g.forfeit, g.resigned) : t("profile.in_progress"));
    const links = [el("a", { href: g.replay, class: "action" }, t("history.replay"))];
    if (g.finished) links.push(el("a", { href: g.review, class: "action" }, t("profile.review")));
    return el("li", {}, el("span", {}, bits.join(" · ")), ...links);
  }));
}

// -- the player's own account ------------------------------------------------------------

/** Say `text` under a form: an error (role=alert, the field at fault marked and
 *  focused) or a success (role=status); the other message is cleared. */
function tell(form, { error = "", done = "", field = null } = {}) {
  clear($(`${form}-error`)).append(error ? sentence(error) : "");
  if ($(`${form}-done`)) clear($(`${form}-done`)).append(done);
  for (const input of document.querySelectorAll(`#${form}-form input`)) input.removeAttribute("aria-invalid");
  if (field) {
    field.setAttribute("aria-invalid", "true");
    field.focus();
  }
}

/** The field a refusal is about: the password asked again, or the new one. */
function fieldAt(err, asked, fresh) {
  const code = err.details && err.details.code;
  if (code === "weak_password") return fresh;
  return code === "bad_password" ? asked : null;
}

async function changePassword(event) {
  event.preventDefault();
  const current = $("current-password");
  const fresh = $("new-password");
  tell("password");
  try {
    await api("/api/me/password", { json: { current: current.value, new: fresh.value } });
  } catch (err) {
    tell("password", { error: err.message, field: fieldAt(err, current, fresh) });
    return;
  }
  current.value = "";
  fresh.value = "";
  tell("password", { done: t("profile.password_changed") });
}

async function logOutOthers() {
  tell("others");
  try {
    const { ended } = await api("/api/me/sessions", { method: "DELETE", json: {} });
    tell("others", { done: ended ? t("profile.logged_out_others", { n: ended }) : t("profile.no_other_devices") });
  } catch (err) {
    tell("others", { error: err.message });
  }
}

async function deleteAccount(event) {
  event.preventDefault();
  const password = $("delete-password");
  tell("delete");
  let done;
  try {
    done = await api("/api/me", { method: "DELETE", json: { password: password.value } });
  } catch (err) {
    tell("delete", { error: err.message, field: fieldAt(err, password, null) });
    return;
  }
  forgetSeats(done.forget || []);
  const main = clear(document.querySelector("main"));
  const said = el("h1", { tabindex: "-1" }, t("profile.deleted"));
  main.append(said);
  said.focus();
  document.title = "Marjolet";  // no longer the erased name, in the tab and the history
  refreshOnline();  // nor its count of waiting games
}

/** Show the account section when the page is the logged-in player's own. */
async function ownAccount(name) {
  let me = null;
  try {
    me = (await api("/api/me")).account;
  } catch (err) {
    return;  // nobody logged in can be told apart from a failure: no section
  }
  if (!me || me.name.toLowerCase() !== name.toLowerCase()) return;
  $("account").hidden = false;
  $("password-form").addEventListener("submit", changePassword);
  $("log-out-others").addEventListener("click", logOutOthers);
  $("delete-form").addEventListener("submit", deleteAccount);
}

async function main() {
  await loadLanguage();
  applyPreferences();
  translateDocument(document);
  document.getElementById("topbar").replaceWith(topbar(""));
  const name = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  let data;
  try {
    data = await api(`/api/players/${encodeURIComponent(name)}`);
  } catch (err) {
    clear($("summary")).append(sentence(err.message));
    if (err.details && err.details.code === "no_player") {  // say so, without empty sections
      clear($("name")).append(t("profile.unknown_title"));
      for (const section of document.querySelectorAll("main section")) section.hidden = true;
      // a way on, as the page not found has
      $("summary").after(el("p", {}, el("a", { class: "action primary", href: "/" }, t("notfound.home"))));
    }
    return;
  }
  clear($("name")).append(data.name);
  document.title = `${data.name} · Marjolet`;
  const r = data.rating;
  const record = t("profile.record", {
    games: t("profile.rated_games", { n: data.games }),
    wins: t("profile.games_won", { n: data.wins }),
    losses: t("profile.games_lost", { n: data.losses }),
  });
  clear($("summary")).append(t(r.provisional ? "profile.summary_provisional" : "profile.summary", {
    // two rating deviations either side: where the rating most likely lies (about 95%)
    rating: number(Math.round(r.value)), low: number(Math.round(r.value - 2 * r.rd)),
    high: number(Math.round(r.value + 2 * r.rd)), record,
  }));
  clear($("plot")).append(plot(data.history));
  clear($("recent")).append(recent(data.recent_games));
  await ownAccount(data.name);
}

main();
