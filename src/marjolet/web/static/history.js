// The history page: every stored game with links to resume, watch, replay
// and download.

import { api, applyPreferences, clear, el, formatDate, seatsHeld, topbar } from "./common.js";

const STATUS = { waiting: "waiting for a player", playing: "in progress", finished: "finished" };
const MODE = { bot: "vs computer", friend: "two players", watch: "bots" };

function row(game, held) {
  const links = [];
  const live = game.status !== "finished";
  if (live && held[game.id]) links.push(el("a", { href: `/game/${game.id}`, class: "action primary" }, "Resume"));
  if (live && game.mode === "watch") links.push(el("a", { href: `/game/${game.id}`, class: "action" }, "Watch"));
  if (game.replay === "full" || game.deals > 1) {
    links.push(
      el("a", { href: `/replay?game=${encodeURIComponent(game.id)}`, class: "action" }, "Replay"),
      el("a", { href: `/api/games/${game.id}/record?form=json`, class: "action", download: "" }, "JSON"),
      el("a", { href: `/api/games/${game.id}/record?form=text`, class: "action", download: "" }, "Text"),
    );
  }
  if (game.status === "finished" && game.replay === "full") {
    links.push(el("a", { href: `/replay?game=${encodeURIComponent(game.id)}&review=1`, class: "action" }, "Review"));
  }
  let score = `${game.totals[0]} \u2013 ${game.totals[1]}`;
  if (game.winner !== null) score += ` · ${game.players[game.winner]} won`;
  if (game.forfeit) score += " by forfeit";
  const status = game.forfeit
    ? el("span", { class: "forfeit", title: game.forfeit.reason }, `forfeited by ${game.players[game.forfeit.seat]}`)
    : STATUS[game.status] || game.status;
  return el("tr", { dataset: { game: game.id } },
    el("td", {}, formatDate(game.updated)),
    el("td", {}, `${game.players[0]} vs ${game.players[1]}`),
    el("td", {}, MODE[game.mode] || game.mode),
    el("td", {}, status),
    el("td", { class: "num" }, score),
    el("td", { class: "num" }, String(game.deals)),
    el("td", { class: "links" }, links));
}

async function main() {
  applyPreferences();
  document.getElementById("topbar").replaceWith(topbar("/history"));
  const box = document.getElementById("games");
  let data;
  try {
    data = await api("/api/games");
  } catch (err) {
    clear(box).append(`Cannot load the games: ${err.message}.`);
    return;
  }
  clear(box);
  if (!data.games.length) {
    box.append(el("p", {}, "No game yet. ", el("a", { href: "/" }, "Start one in the lobby.")));
    return;
  }
  const held = seatsHeld();
  box.append(el("table", { class: "games" },
    el("thead", {}, el("tr", {}, ["Last move", "Players", "Kind", "Status", "Score", "Deals", ""].map(
      (h) => el("th", {}, h)))),
    el("tbody", {}, data.games.map((g) => row(g, held)))));
}

main();
