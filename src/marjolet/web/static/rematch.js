// The rematch of a game found online (docs/web.md): one player offers it, the
// other takes it by offering in turn, or declines. The offer lives on the
// server; this page asks for its news every few seconds while the match's end
// is on screen, so the two players may sit at different server processes.

import { api, el, refreshOnline, rememberSeat, seatFor, t } from "./common.js";

/** How often the page asks for the offer's news (milliseconds). */
const POLL_MS = 3000;

export class Rematch {
  /**
   * @param {string} gameId the finished game
   * @param {() => string} opponent the other player's name as the page shows it
   * @param {() => void} changed called when there is news to show (the page re-renders)
   * @param {(text: string) => void} say shows a passing message
   * @param {() => boolean} gone whether the other player's account was deleted (no rematch then)
   * @param {() => boolean} shown whether the page shows `news()` now: then the
   *   offer and its end are said there alone (a live region), not by `say` too
   */
  constructor(gameId, opponent, changed, say, gone = () => false, shown = () => false) {
    this.gameId = gameId;
    this.opponent = opponent;
    this.gone = gone;
    this.shown = shown;
    this.changed = changed;
    this.say = say;
    this.offer = null;
    this.busy = false;
    this.timer = null;
    // the news heard while this page was open: only an offer taken since
    // then moves the page (opened later, the finished match stays on screen)
    this.heard = false;
    this.followed = null;  // the rematch, taken before this page was opened
    this.ownerKey = `marjolet.rematch.${gameId}`;
  }

  /** Ask for news now and every few seconds (once). */
  follow() {
    if (this.timer !== null) return;
    this.poll();
    this.timer = setInterval(() => this.poll(), POLL_MS);
    document.addEventListener("visibilitychange", () => this.poll());  // back in front: news now
  }

  get url() {
    return `/api/games/${encodeURIComponent(this.gameId)}/rematch`;
  }

  /** The seat's token (an account's seat needs none) and the offer's owner token. */
  credentials() {
    const body = {};
    const held = seatFor(this.gameId);
    if (held) body.token = held.token;
    const owner = localStorage.getItem(this.ownerKey);
    if (owner) body.owner = owner;
    return body;
  }

  async poll() {
    if (this.busy || document.hidden) return;  // a tab in the background asks nothing
    try {
      this.update(await api(`${this.url}/status`, { json: this.credentials() }));
    } catch (err) {
      // asked again in a moment; a refusal here is no news for the player
    }
  }

  update(news) {
    if (news.game && news.game.id) {
      if (this.heard) {
        this.go(news.game);
        return;
      }
      this.settled(news.game);
      return;
    }
    this.heard = true;
    const before = this.offer;
    const offer = news.offer;
    const wasOpen = Boolean(before && offer && before.id === offer.id && before.status === "open");
    if (offer && offer.status === "open" && !offer.mine && !wasOpen) this.tell(this.invitation(offer));
    if (wasOpen && offer.status !== "open") {
      const ending = this.ending(offer);
      if (ending) this.tell(ending);
    }
    if (JSON.stringify(before) !== JSON.stringify(offer)) {
      this.offer = offer;
      refreshOnline();  // an offer to answer counts among the games waiting for the player
      this.changed();
    }
  }

  /** News of the offer: said, unless the page shows it in `news()` already. */
  tell(text) {
    if (!this.shown()) this.say(text);
  }

  /** What became of an offer no longer open, for this player (null: taken). */
  ending(offer) {
    const name = this.opponent();
    if (offer.status === "expired") return t("rematch.expired");
    if (offer.status === "declined") return t(offer.mine ? "rematch.declined" : "rematch.you_declined", { name });
    if (offer.status === "cancelled") return t(offer.mine ? "rematch.you_withdrew" : "rematch.withdrawn", { name });
    return null;
  }

  invitation(offer) {
    return t(offer.rated ? "rematch.offered_you_rated" : "rematch.offered_you", { name: this.opponent() });
  }

  /** To the new table. */
  go(game) {
    clearInterval(this.timer);
    if (game.token) rememberSeat(game.id, game.seat, game.token);
    localStorage.removeItem(this.ownerKey);
    location.href = game.url;
  }

  /** The rematch was taken before this page was opened: the page stays on
   *  the finished match and links to the rematch (a player who came back to
   *  look at this match, say from the list of their games, is not carried off). */
  settled(game) {
    clearInterval(this.timer);
    if (game.token) rememberSeat(game.id, game.seat, game.token);
    localStorage.removeItem(this.ownerKey);
    if (this.followed && this.followed.id === game.id) return;
    this.followed = game;
    this.changed();
  }

  /** Offer a rematch, or take the other player's offer. */
  async ask() {
    await this.send({ json: this.credentials() }, (answer) => {
      if (answer.status === "matched") {
        this.go(answer.game);
        return;
      }
      if (answer.token) localStorage.setItem(this.ownerKey, answer.token);
      this.offer = answer.offer;
    });
  }

  /** Take the other player's offer, and only that: withdrawn or expired
   *  since this page showed it, it is not turned into an offer the other way;
   *  the player is told what became of it instead. */
  async take() {
    this.busy = true;
    try {
      const answer = await api(this.url, { json: { ...this.credentials(), take: true } });
      this.go(answer.game);
      return;
    } catch (err) {
      if (err.details && err.details.code === "seek_gone") {
        await this.settle(t("rematch.gone", { name: this.opponent() }));
        refreshOnline();
      } else {
        this.say(t("end.rematch_failed", { reason: err.message }));
      }
    } finally {
      this.busy = false;
    }
    this.changed();
  }

  /** Learn what became of an offer this page no longer sees open: to the new
   *  table if it was taken (true: the page is leaving); else its ending is said
   *  (`otherwise` when there is none to tell, or no answer). */
  async settle(otherwise = null) {
    try {
      const news = await api(`${this.url}/status`, { json: this.credentials() });
      if (news.game && news.game.id) {
        this.go(news.game);
        return true;
      }
      this.offer = news.offer;
    } catch (err) {
      this.offer = null;
    }
    const ending = this.offer && this.offer.status !== "open" ? this.ending(this.offer) : null;
    if (ending) this.tell(ending);
    else if (otherwise) this.say(otherwise);
    return false;
  }

  /** Withdraw this player's offer, or decline the other's. */
  async cancel() {
    await this.send({ method: "DELETE", json: this.credentials() }, (answer) => {
      this.offer = answer.offer;
    });
  }

  /** One request about the offer (no news asked meanwhile), its answer read
   *  by `read`; a refusal is told to the player. */
  async send(request, read) {
    this.busy = true;
    try {
      read(await api(this.url, request));
    } catch (err) {
      this.say(t("end.rematch_failed", { reason: err.message }));
    } finally {
      this.busy = false;
    }
    refreshOnline();  // one answer fewer waiting for the player
    this.changed();
  }

  /** The sentence that says where the rematch stands (or nothing). */
  news() {
    if (this.followed) return el("p", { class: "rematch-news", id: "rematch-news", role: "status" }, t("rematch.followed"));
    const offer = this.offer;
    if (!offer) return null;
    let text = this.ending(offer);
    if (offer.status === "open") {
      text = offer.mine ? t("rematch.waiting", { name: this.opponent() }) : this.invitation(offer);
    }
    return text ? el("p", { class: "rematch-news", id: "rematch-news", role: "status" }, text) : null;
  }

  /** The buttons: offer; withdraw an offer made; accept or decline one received. */
  buttons() {
    const offer = this.offer;
    const button = (id, key, primary, onClick) => {
      const node = el("button", { type: "button", class: primary ? "action primary" : "action", id }, t(key));
      node.addEventListener("click", () => {
        node.disabled = true;
        onClick();
      });
      return node;
    };
    if (this.followed) {
      return [el("a", { class: "action primary", id: "rematch-open", href: this.followed.url }, t("rematch.open"))];
    }
    if (offer && offer.status === "open" && offer.mine) {
      return [button("rematch-withdraw", "rematch.withdraw", false, () => this.cancel())];
    }
    if (this.gone()) return [];  // nobody to answer an offer: the server refuses it too
    if (offer && offer.status === "open") {
      return [
        button("rematch-accept", "rematch.accept", true, () => this.take()),
        button("rematch-decline", "rematch.decline", false, () => this.cancel()),
      ];
    }
    const again = button("rematch", "end.rematch", true, () => this.ask());
    again.title = t("rematch.ask_title", { name: this.opponent() });
    return [again];
  }
}
