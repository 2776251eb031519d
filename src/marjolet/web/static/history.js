// The history page: every stored game with links to resume, watch, replay
// and download.

import {
  api, applyPreferences, clear, el, forfeitKind, formatDate, loadLanguage, recordName, scoreText, seatsHeld, t, topbar,
} from "./common.js";

/** Who forfeited, and how, in words a phone shows (a program's technical
 *  reason stays in the game's JSON, for whoever studies the bot). */
function forfeitStatus(game) {
  const kind = forfeitKind(game.forfeit);
  const name = game.players[game.forfeit.seat];
  if (kind === "aborted") return el("span", { class: "forfeit" }, t("history.aborted", { name }));
  const said = t("history.forfeited", { name });
  return el("span", { class: "forfeit" }, `${said} (${t(`history.${kind}_title`)})`);
}

/** The kind of game in words; a game between two players says whether it was rated
 *  (when the server could tell). */
function modeKey(game) {
  if (game.mode !== "friend" || typeof game.rated !== "boolean") return `history.mode_${game.mode}`;
  return game.rated ? "history.mode_friend_rated" : "history.mode_friend_casual";
}

function row(raw, held) {
  const game = { ...raw, players: raw.players.map(recordName) };
  const links = [];
  const live = game.status !== "finished";
  if (live && held[game.id]) links.push(el("a", { href: `/game/${game.id}`, class: "action primary" }, t("history.resume")));
  if (live && game.mode === "watch") links.push(el("a", { href: `/game/${game.id}`, class: "action" }, t("history.watch")));
  if (game.replay === "full" || game.deals > 1) {
    links.push(
      el("a", { href: `/replay?game=${encodeURIComponent(game.id)}`, class: "action" }, t("history.replay")),
      el("a", { href: `/api/games/${game.id}/record?form=json`, class: "action", download: "", "aria-label": t("history.download_json") }, t("history.download")),
      el("a", { href: `/api/games/${game.id}/record?form=text`, class: "action", download: "", "aria-label": t("history.download_text") }, t("history.text")),
    );
  }
  const review = `/replay?game=${encodeURIComponent(game.id)}&review=1`;
  if (game.status === "finished" && game.replay === "full") {
    links.push(el("a", { href: review, class: "action" }, t("history.review")));
  } else if (game.status !== "finished" && game.deals > 1) {  // its finished deals
    links.push(el("a", { href: review, class: "action" }, t("replay.review_deals")));
  }
  let score = scoreText(game.totals[0], game.totals[1]);
  if (game.winner !== null) {
    const how = !game.forfeit ? "" : forfeitKind(game.forfeit) === "resigned" ? "_resigned" : "_forfeit";
    score += ` · ${t(`history.won${how}`, { name: game.players[game.winner] })}`;
  }
  const status = game.forfeit ? forfeitStatus(game) : t(`history.status_${game.status}`);
  return el("tr", { dataset: { game: game.id } },
    el("td", {}, formatDate(game.updated)),
    el("td", {}, t("game.versus", { a: game.players[0], b: game.players[1] })),
    el("td", {}, t(modeKey(game))),
    el("td", {}, status),
    el("td", { class: "num" }, score),
    el("td", { class: "num" }, t(game.deals === 1 ? "history.deals_one" : "history.deals_many", { n: game.deals })),
    el("td", { class: "links" }, links));
}

async function main() {
  await loadLanguage();
  applyPreferences();
  document.getElementById("topbar").replaceWith(topbar("/history"));
  const box = document.getElementById("games");
  let data;
  try {
    data = await api("/api/games");
  } catch (err) {
    clear(box).append(t("history.unavailable", { reason: err.message }));
    return;
  }
  clear(box);
  if (!data.games.length) {
    box.append(el("p", {}, t("history.none"), " ", el("a", { href: "/" }, t("history.start_one"))));
    return;
  }
  const held = seatsHeld();
  box.append(el("table", { class: "games" },
    el("thead", {}, el("tr", {}, ["last_move", "players", "kind", "status", "score", "deals", "links"].map(
      (h) => el("th", { scope: "col" }, t(`history.col_${h}`))))),
    el("tbody", {}, data.games.map((g) => row(g, held)))));
}

main();
