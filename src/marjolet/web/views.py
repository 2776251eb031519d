"""What the browser is told: the JSON pictures of a table, built per viewer.

This module is the only place that turns the server's game state into
messages, so it is where R23 is kept. A seat's picture is built from
:meth:`marjolet.match.Match.observation` (its own hand, the opponent's known
cards, the public state) plus facts that are public by R23: who played
each action, the cards of finished tricks, every score. The one private part
of the action log, the card a draw brought, is shown only to the seat that
drew it, and taken from that seat's observation. The stock order and the
deck are never sent.

Two open pictures show both hands: the *spectator* picture of a bot-vs-bot
match (no person's cards to hide) and the *replay* frames of a record that
the viewer already holds in full.

Cards are always written as their record names (``QS``, ``TD``); the page
draws them.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from marjolet.actions import ACTION_NAMES, DIX, DRAW, MELD_BASE
from marjolet.cards import CARD_NAMES, SUITS, display_order, mask_cards
from marjolet.engine import Breakdown, Deal, r16_duty
from marjolet.match import Match
from marjolet.melds import MELD_COUNT, MELD_NAMES, meld_card_order, meld_description
from marjolet.observation import Observation
from marjolet.record import Record
from marjolet.rules import SEVEN_POINTS

#: The picture of a position for one viewer: plain JSON data.
View = dict[str, Any]


def names(mask: int) -> list[str]:
    """The cards of a mask as record names, in the players' sorting order."""
    return [CARD_NAMES[c] for c in display_order(mask)]


def meld_names(meld: int, mask: int) -> list[str]:
    """A meld's cards as record names, the jack first in a jack-queen meld."""
    return [CARD_NAMES[c] for c in meld_card_order(meld, mask)]


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a deal with its public consequences (R23: all public)."""

    player: int
    action: int
    #: The trick the action belongs to (1-16).
    trick: int
    #: Points each player gained by this action.
    gain: tuple[int, int]
    #: Winner when the action completed a trick, else ``None``.
    won_by: int | None
    #: Why points were scored: ``(source, player, points)`` for each score
    #: source (a key of :meth:`Breakdown.to_json`) the action changed.
    why: tuple[tuple[str, int, int], ...] = ()


def deal_steps(deal: Deal) -> list[Step]:
    """Who did what in ``deal`` and what it scored, by replaying its deck.

    Needs a deal made from a deck order (every deal the server plays is).
    """
    steps = StepLog(deal)
    return steps.update(deal)


class StepLog:
    """:func:`deal_steps` kept up to date move by move: a live table adds
    one step per new move (one engine push, read off the engine's own
    state) instead of replaying the deal each time.

    The log follows one :class:`~marjolet.engine.Deal` object; given another
    one (the next deal, or the same game reloaded) or one with fewer moves
    than it has seen (taken back), it starts again from the deck."""

    def __init__(self, deal: Deal) -> None:
        self._start(deal)

    def _start(self, deal: Deal) -> None:
        if deal.deck is None:
            raise ValueError("deal_steps needs a deal made from a deck order")
        self.deal = deal
        self.replay = Deal(deal.deck, deal.dealer, deal.rules)
        self.steps: list[Step] = []

    def update(self, deal: Deal) -> list[Step]:
        """The steps of ``deal``, computing only the moves not seen yet."""
        moves = deal.moves
        if deal is not self.deal or len(moves) < len(self.steps):
            self._start(deal)
        for action in moves[len(self.steps) :]:
            self.steps.append(self._step(action))
        return self.steps

    def _step(self, action: int) -> Step:
        """Play ``action`` on the replay and say what it did (R8, R9, R21)."""
        replay = self.replay
        player, done, lead = replay.to_move, replay.tricks_played, replay.lead
        before = replay.points
        sources = (replay.breakdown(0).to_json(), replay.breakdown(1).to_json())
        replay.push(action)
        after = replay.points
        gain = (after[0] - before[0], after[1] - before[1])
        is_card = action < MELD_BASE
        won_by = replay.last_trick_winner if is_card and lead is not None else None
        why: tuple[tuple[str, int, int], ...] = ()
        if any(gain):
            now = (replay.breakdown(0).to_json(), replay.breakdown(1).to_json())
            why = tuple(
                (key, p, now[p][key] - sources[p][key])
                for p in (0, 1)
                for key in now[p]
                if now[p][key] != sources[p][key]
            )
        return Step(player, action, done + 1 if is_card else done, gain, won_by, why)


def _log(
    steps: Sequence[Step], drawn: Sequence[int] | None, viewer: int | None
) -> list[dict[str, Any]]:
    """The action log. ``drawn`` is the viewer's own draws (from its
    observation); with ``viewer`` None (open picture) draws stay anonymous."""
    out: list[dict[str, Any]] = []
    k = 0
    for step in steps:
        entry: dict[str, Any] = {
            "player": step.player,
            "action": ACTION_NAMES[step.action],
            "trick": step.trick,
        }
        if any(step.gain):
            entry["gain"] = list(step.gain)
            entry["why"] = [{"source": k, "player": p, "points": v} for k, p, v in step.why]
        if step.won_by is not None:
            entry["won_by"] = step.won_by
        if step.action == DRAW:
            if drawn is not None and k < len(drawn):
                entry["you_drew"] = CARD_NAMES[drawn[k]]
            k += 1
        out.append(entry)
    return out


def _last_trick(steps: Sequence[Step]) -> dict[str, Any] | None:
    """The latest finished trick: both cards, who played them, the winner."""
    for i in range(len(steps) - 1, 0, -1):
        step = steps[i]
        if step.won_by is not None:
            lead = steps[i - 1]
            return {
                "number": step.trick,
                "cards": [CARD_NAMES[lead.action], CARD_NAMES[step.action]],
                "players": [lead.player, step.player],
                "winner": step.won_by,
            }
    return None


def _melds(deal: Deal, player: int) -> list[dict[str, Any]]:
    """The melds ``player`` scored this deal, as the engine holds them."""
    scored = deal.melds_mask(player)
    return [
        {
            "id": MELD_NAMES[m],
            "value": deal.meld_values[m],
            "cards": meld_names(m, deal.meld_cards[m]),
        }
        for m in range(MELD_COUNT)
        if scored >> m & 1
    ]


def legal_choices(deal: Deal, legal: Sequence[int]) -> list[dict[str, Any]]:
    """The legal actions of the seat to act, described for buttons."""
    out: list[dict[str, Any]] = []
    for a in legal:
        if a < MELD_BASE:
            out.append({"action": CARD_NAMES[a], "kind": "card"})
        elif a < DIX:
            m = a - MELD_BASE
            out.append(
                {
                    "action": ACTION_NAMES[a],
                    "kind": "meld",
                    "meld": MELD_NAMES[m],
                    "value": deal.meld_values[m],
                    "cards": meld_names(m, deal.meld_cards[m]),
                    "label": meld_description(m, deal.trump, deal.rules),
                }
            )
        elif a == DIX:
            out.append(
                {
                    "action": "dix",
                    "kind": "dix",
                    "value": SEVEN_POINTS,
                    "cards": [CARD_NAMES[deal.seven], CARD_NAMES[deal.indicator]],
                }
            )
        else:
            out.append({"action": "draw", "kind": "draw"})
    return out


def _blocked(obs: Observation, legal: Sequence[int]) -> tuple[dict[str, str], list[str]]:
    """Why each card the seat to act holds cannot be played now, and the
    cards it must choose from when a duty applies.

    Each reason is a word the page puts into its own sentences, never a rule
    id: ``"window"`` (its meld window is open, R9/R10), the follower's duty
    of tricks 11-16 from :func:`~marjolet.engine.r16_duty` (``"overtake"``,
    ``"follow"`` or ``"trump"``, R16), else ``"now"``. The page holds no copy
    of R16: what it says comes from here."""
    legal_set = set(legal)
    held_back = [c for c in mask_cards(obs.hand.mask) if c not in legal_set]
    if not held_back:
        return {}, []
    why, must = "now", 0
    if obs.in_window:
        why = "window"
    elif obs.stock_empty and obs.lead is not None:
        must, duty = r16_duty(obs.hand.mask, obs.lead, obs.trump)
        why = duty if duty != "any" else "now"
    return {CARD_NAMES[c]: why for c in held_back}, names(must) if why != "now" else []


def _duty(obs: Observation) -> str | None:
    """The seat's duty as the follower of tricks 11-16 (R16), named by
    :func:`~marjolet.engine.r16_duty` (``"overtake"``, ``"follow"``,
    ``"trump"`` or ``"any"``), for the prompt; None elsewhere."""
    if obs.in_window or not obs.stock_empty or obs.lead is None:
        return None
    return r16_duty(obs.hand.mask, obs.lead, obs.trump)[1]


def deal_summaries(match: Match) -> list[dict[str, Any]]:
    """Every finished deal's score by source and the totals after it (public)."""
    out: list[dict[str, Any]] = []
    totals = [0, 0]
    for i, d in enumerate(match.deals):
        if not d.is_over:
            break
        score = d.points
        totals = [totals[0] + score[0], totals[1] + score[1]]
        out.append(
            {
                "index": i,
                "dealer": d.dealer,
                "trump": SUITS[d.trump],
                "score": list(score),
                "breakdown": [_breakdown(d.breakdown(0)), _breakdown(d.breakdown(1))],
                "totals": list(totals),
            }
        )
    return out


def _breakdown(b: Breakdown) -> dict[str, int]:
    return b.to_json()


def _common(match: Match, deal: Deal, steps: Sequence[Step], summaries: bool = True) -> View:
    """The public part of a picture (R23), the same for every viewer
    (without ``summaries``, no ``deals``: a replay's positions leave out
    the finished deals' summaries, which cost a pass over every deal)."""
    stock = deal.stock_size
    lead = deal.lead
    lead_player = steps[-1].player if lead is not None and steps else None
    return {
        "deal": match.deal_index,
        "dealer": deal.dealer,
        "trump": SUITS[deal.trump],
        "turned_up": CARD_NAMES[deal.turned_up],
        "seven_turned": deal.seven_turned_up,  # the dealer's 10 (R18)
        "indicator": CARD_NAMES[deal.indicator] if stock > 0 else None,
        "exchanged": deal.exchanged,
        "stock": stock,
        "phase": deal.phase,
        "tricks_played": deal.tricks_played,
        "trick_number": deal.trick_number,
        "to_move": deal.to_move,
        "in_window": deal.in_window,
        "lead": CARD_NAMES[lead] if lead is not None else None,
        "leader": lead_player,
        "last_trick": _last_trick(steps),
        "won": [deal.won_mask(0).bit_count(), deal.won_mask(1).bit_count()],
        "exposed": [names(deal.exposed_mask(0)), names(deal.exposed_mask(1))],
        "points": list(deal.points),
        "breakdown": [_breakdown(deal.breakdown(0)), _breakdown(deal.breakdown(1))],
        "melds": [_melds(deal, 0), _melds(deal, 1)],
        "deal_over": deal.is_over,
        "totals": list(match.totals),
        "running": list(match.running_totals),
        "target": match.rules.target,
        "match_over": match.is_over,
        "winner": match.winner,
        "deals": deal_summaries(match) if summaries else [],
        "players": list(match.players) if match.players else ["player 0", "player 1"],
        "rules": match.rules.to_json(),
    }


def seat_view(match: Match, seat: int, steps: Sequence[Step] | None = None) -> View:
    """The picture of the current deal for ``seat``: only what R23 lets it see."""
    deal = match.deal
    if deal is None:
        raise ValueError("no deal in progress")
    if steps is None:
        steps = deal_steps(deal)
    obs = match.observation(seat)
    view = _common(match, deal, steps)
    opp = seat ^ 1
    hands: list[dict[str, Any]] = [{}, {}]
    hands[seat] = {"cards": names(obs.hand.mask), "size": obs.hand_sizes[seat]}
    hands[opp] = {
        "cards": None,
        "size": obs.hand_sizes[opp],
        "known": names(obs.opponent_known.mask),
    }
    view["hands"] = hands
    view["seat"] = seat
    view["log"] = _log(steps, obs.draws, seat)
    if deal.to_move == seat:
        legal = deal.legal_actions()
        view["legal"] = legal_choices(deal, legal)
        view["blocked"], view["must_play"] = _blocked(obs, legal)
        view["duty"] = _duty(obs)
    else:
        view["legal"] = []
        view["blocked"], view["must_play"] = {}, []
        view["duty"] = None
    return view


def public_view(match: Match, steps: Sequence[Step] | None = None) -> View:
    """What a spectator of a game with a person sees: only what both
    players see (R23): no hand, no draw, no stock; a hand's cards that were
    exposed in a meld are public."""
    deal = match.deal
    if deal is None:
        raise ValueError("no deal in progress")
    if steps is None:
        steps = deal_steps(deal)
    view = _common(match, deal, steps)
    view["hands"] = [
        {
            "cards": None,
            "size": deal.hand_mask(p).bit_count(),
            "known": names(deal.hand_mask(p) & deal.exposed_mask(p)),
        }
        for p in (0, 1)
    ]
    view["seat"] = None
    view["log"] = _log(steps, None, None)
    view["legal"] = []
    view["blocked"], view["must_play"] = {}, []
    return view


def open_view(
    match: Match, steps: Sequence[Step] | None = None, *, summaries: bool = True
) -> View:
    """Both hands face up: for spectators of bot-vs-bot matches and replays.
    The stock order is still not shown."""
    deal = match.deal
    if deal is None:
        raise ValueError("no deal in progress")
    if steps is None:
        steps = deal_steps(deal)
    view = _common(match, deal, steps, summaries)
    view["hands"] = [
        {"cards": names(deal.hand_mask(p)), "size": deal.hand_mask(p).bit_count()} for p in (0, 1)
    ]
    view["seat"] = None
    view["log"] = _log(steps, None, None)
    to_move = deal.to_move
    view["legal"] = legal_choices(deal, deal.legal_actions()) if to_move >= 0 else []
    view["blocked"], view["must_play"] = {}, []
    return view


def replay_frames(record: Record) -> dict[str, Any]:
    """Every position of a record, both hands open, for the replay viewer,
    as diffs (a long record's positions are megabytes in full).

    Returns ``{"deals": [{"log": [...], "first": view, "changes": [diff, ...]}, ...]}``:
    ``first`` is the position before the deal's first action; position k
    (after action k) is position k-1 with the keys of ``changes[k-1]``
    replaced (:func:`diff_frame`, undone by :func:`expand_frames`). The
    record must already be checked (a record read by
    :func:`marjolet.record.loads` or stored by the server is), so its
    actions are applied unchecked.
    """
    match = Match(record.rules, first_dealer=record.first_dealer, seed=0, players=record.players)
    deals_out: list[dict[str, Any]] = []
    for deal_record in record.deals:
        deal = match.start_deal(deal_record.deck)
        steps = StepLog(deal)
        frames: list[View] = [_frame(match, steps.update(deal))]
        for action in deal_record.actions:
            match.push(action)
            frames.append(_frame(match, steps.update(deal)))
        deals_out.append(
            {
                "log": _log(steps.steps, None, None),
                "first": frames[0],
                "changes": [diff_frame(a, b) for a, b in itertools.pairwise(frames)],
            }
        )
    return {"deals": deals_out}


def diff_frame(before: View, after: View) -> dict[str, Any]:
    """The top-level keys of ``after`` that differ from ``before`` (a key
    ``after`` lacks is listed under ``"-"``)."""
    out: dict[str, Any] = {k: v for k, v in after.items() if before.get(k, _NONE) != v}
    gone = [k for k in before if k not in after]
    if gone:
        out["-"] = gone
    return out


def expand_frames(deal: dict[str, Any]) -> list[View]:
    """Every position of one deal of :func:`replay_frames` (what the
    replay page does in JavaScript)."""
    frames: list[View] = [dict(deal["first"])]
    for change in deal["changes"]:
        frame = {**frames[-1], **change}
        for key in frame.pop("-", []):
            frame.pop(key, None)
        frames.append(frame)
    return frames


_NONE = object()


def _frame(match: Match, steps: Sequence[Step]) -> View:
    view = open_view(match, steps, summaries=False)
    del view["log"], view["deals"], view["rules"]
    view["step"] = len(match.deal.moves) if match.deal is not None else 0
    return view


__all__ = [
    "Step",
    "View",
    "deal_steps",
    "deal_summaries",
    "diff_frame",
    "expand_frames",
    "legal_choices",
    "names",
    "open_view",
    "replay_frames",
    "seat_view",
]
