"""The parts of the table, each drawn from a :class:`~marjolet.tui.state.TableView`
(the human's observation, R23, and the state of the screen): the top bar,
the two players' lines and hands, and the middle of the table (stock,
trumps, the trick).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from marjolet.actions import DIX, DRAW, MELD_BASE
from marjolet.cards import CARD_POINTS, SUIT_SYMBOLS
from marjolet.observation import Observation
from marjolet.tui import describe
from marjolet.tui.keys import HAND_SLOTS
from marjolet.tui.state import TableView, Waiting
from marjolet.tui.widgets import CardView, colour_cards, suit_style
from marjolet.tui.words import card as card_symbol
from marjolet.tui.words import suit_name, tr

# -- the top bar -----------------------------------------------------------------


def topbar(obs: Observation, colour: bool, width: int) -> Text:
    """``Marjolet  deal 1 · trick 3/16 · trumps ♠ spades │ stock open: any
    card``, shortened (the title first, then the phase's words) so that it
    never runs past ``width`` columns."""
    where = tr("tui.topbar", n=obs.deal_index + 1, trick=describe.shown_trick(obs)).strip() + " "
    trumps = Text(SUIT_SYMBOLS[obs.trump] + " " + suit_name(obs.trump),
                  suit_style(obs.trump, colour))  # fmt: skip
    phase = "tui.phase2" if obs.stock_empty else "tui.phase1"
    bar = Text()
    for title, words in (("Marjolet  ", phase), ("", phase), ("", phase + "_short")):
        bar = Text.assemble((title, "bold"), where, trumps, "  │  ", tr(words))
        if cell_len(bar.plain) <= width:
            break
    return bar


# -- the players' lines -------------------------------------------------------------


def _melds(view: TableView, seat: int, label: bool = True) -> Text:
    obs = view.obs
    if not obs.melds[seat]:
        return Text()
    melds = describe.melds_text(obs.melds[seat], obs.trump, obs.rules)
    return colour_cards((tr("tui.melds") if label else " · ") + melds, view.colour)


def _fitted(variants: Sequence[Text], width: int | None) -> Text:
    """The first of ``variants`` (fullest first) that fits in ``width``
    columns, else the last (the screen's ellipsis cuts it)."""
    for line in variants:
        if width is None or cell_len(line.plain) <= width:
            return line
    return variants[-1]


def _player_line(
    view: TableView, seat: int, before: str, after: str, width: int | None
) -> Text:
    """``name (role)before · melds: ...after``, its words dropped one by one
    (the role, then ``before`` and ``after``, then the word "melds") until
    it fits in ``width`` columns: the melds, which the cards' ``•`` only
    hint at, are cut last."""
    obs = view.obs
    name = view.names[0 if seat == obs.seat else 1]
    role = tr("tui.dealer") if obs.dealer == seat else tr("tui.elder")
    variants = []
    for with_role, with_rest, label in ((True, True, True), (False, True, True),
                                        (False, False, True), (False, False, False)):  # fmt: skip
        line = Text(name, style="bold")
        line.append(role if with_role else "")
        line.append(before if with_rest else "")
        line.append_text(_melds(view, seat, label))
        line.append(after if with_rest else "")
        variants.append(line)
    return _fitted(variants, width)


def opponent_line(view: TableView, width: int | None = None) -> Text:
    """The opponent's name, role, cards in hand and melds, shortened to
    ``width`` columns if given."""
    opp = view.obs.opponent
    return _player_line(view, opp, tr("tui.n_cards", n=view.obs.hand_sizes[opp]), "", width)


def my_line(view: TableView, width: int | None = None) -> Text:
    """The human's name, role, melds and whether cards are on show,
    shortened to ``width`` columns if given."""
    me = view.obs.seat
    shown = tr("tui.shown") if view.obs.exposed[me] else ""
    return _player_line(view, me, "", shown, width)


# -- the hands -----------------------------------------------------------------------


class CardRow(Horizontal):
    """A row of :data:`HAND_SLOTS` card places."""

    def compose(self) -> ComposeResult:
        for i in range(HAND_SLOTS):
            yield CardView(i)

    @property
    def views(self) -> list[CardView]:
        return list(self.query(CardView).results(CardView))


class OpponentHand(CardRow):
    """The opponent's cards: the known ones face up (``•`` if on show), the
    others as backs."""

    def show(self, view: TableView) -> None:
        obs = view.obs
        opp = obs.opponent
        known = describe.hand_order(obs.opponent_known.mask)
        exposed = obs.exposed[opp].mask
        hidden = obs.hand_sizes[opp] - len(known)
        for i, card_view in enumerate(self.views):
            if i < len(known):
                c = known[i]
                card_view.show_face(c, subtitle="•" if exposed >> c & 1 else "")
            elif i < len(known) + hidden:
                card_view.show_back()
            else:
                card_view.hide()


class Hand(CardRow):
    """The human's cards: the key that plays each on its top edge, the
    refused ones dimmed, the chosen one raised."""

    def show(self, view: TableView) -> None:
        exposed = view.obs.exposed[view.obs.seat].mask
        for i, card_view in enumerate(self.views):
            if i >= len(view.hand):
                card_view.hide()
                continue
            c = view.hand[i]
            allowed = not view.choosing or bool(view.playable >> c & 1)
            classes = [] if allowed else ["illegal"]
            if view.choosing and i == view.cursor:
                classes.append("selected")
            card_view.show_face(
                c,
                title=str(i + 1) if view.choosing and allowed else "",
                subtitle="•" if exposed >> c & 1 else "",
                classes=classes,
            )


# -- the middle of the table -----------------------------------------------------------


def _column(card_id: str) -> Vertical:
    return Vertical(CardView(id=card_id), Static(id=f"{card_id}-label", classes="label"),
                    classes="column")  # fmt: skip


class Middle(Horizontal):
    """The stock, the trump indicator and the trick (or the last one)."""

    def compose(self) -> ComposeResult:
        yield _column("stock")
        yield _column("indicator")
        yield Static(id="trick-gap")
        yield _column("trick-opp")
        yield _column("trick-me")
        yield Static(id="trick-note")

    def _label(self, card_id: str, text: str | Text) -> None:
        self.query_one(f"#{card_id}-label", Static).update(text)

    def show(self, view: TableView) -> None:
        self._show_stock(view.obs)
        self._label("trick-opp", view.names[1])
        self._label("trick-me", tr("tui.you"))
        self.query_one("#trick-note", Static).update(self._show_trick(view))

    def _show_stock(self, obs: Observation) -> None:
        stock = self.query_one("#stock", CardView)
        hidden = max(0, obs.stock_size - 1)
        if hidden:
            stock.show_back()
            stock.update(str(hidden))
        else:
            stock.show_empty()
        self._label("stock", tr("tui.stock") if obs.stock_size else tr("tui.empty"))
        indicator = self.query_one("#indicator", CardView)
        if obs.indicator is not None:
            indicator.show_face(obs.indicator)
            self._label("indicator", tr("tui.trumps"))
        else:
            indicator.show_empty(SUIT_SYMBOLS[obs.trump])
            self._label("indicator", tr("tui.taken"))

    def _show_trick(self, view: TableView) -> Text:
        """Draw the trick on the table; return the note beside it."""
        obs = view.obs
        me = obs.seat
        slot = {me: self.query_one("#trick-me", CardView),
                obs.opponent: self.query_one("#trick-opp", CardView)}  # fmt: skip
        if obs.lead is not None:
            leader = obs.to_move ^ 1
            slot[leader].show_face(obs.lead)
            slot[leader ^ 1].show_empty("?" if obs.to_move == leader ^ 1 else "")
            # the opponent's lead is named by the prompt below, which asks for the answer
            return Text(tr("tui.you_led") if leader == me else "")
        done = describe.tricks_of(obs)
        if not done:
            for card_view in slot.values():
                card_view.show_empty()
            return Text(tr("tui.new_deal"))
        last = done[-1]
        slot[last.leader].show_face(last.lead)
        slot[last.leader ^ 1].show_face(last.follow)
        won = "tui.trick_you_win" if last.winner == me else "tui.trick_wins"
        note = Text(tr(won, n=last.number, name=view.names[1]), style="bold")
        points = CARD_POINTS[last.lead] + CARD_POINTS[last.follow]
        if points:
            note.append(f" +{points}")
        return note


# -- the prompt ----------------------------------------------------------------------


def prompt(
    waiting: Waiting,
    obs: Observation | None,
    names: Sequence[str],
    hand_size: int,
    legal: Sequence[int] = (),
) -> str:
    """What the human should do now, in words (``legal``: the human's legal
    actions, so that a meld window offers the exchange only when it is one)."""
    if waiting == Waiting.BOT:
        return tr("tui.thinking", name=names[1])
    if waiting in (Waiting.SUMMARY, Waiting.OVER):
        return tr("prompt.deal_over")
    if waiting != Waiting.HUMAN or obs is None:
        return ""
    if obs.in_window:
        lines = len(describe.window_options(obs, legal))  # the menu's lines, draw included
        window_keys = f"1-{lines}" if lines > 1 else "1"
        melds = any(MELD_BASE <= a < DIX for a in legal)
        if DIX in legal:
            key = "tui.prompt_window" if melds else "tui.prompt_window_dix"
        else:
            key = "tui.prompt_window_melds"
        return tr(key, keys=window_keys)
    keys = f"1-{hand_size}" if hand_size > 1 else "1"
    if obs.lead is None:
        return tr("tui.prompt_lead", keys=keys) if hand_size > 1 else tr("tui.prompt_lead_one")
    led = card_symbol(obs.lead)
    rule = describe.follow_rule(obs)
    if rule is not None:
        return tr("tui.prompt_rule", name=names[1], card=led, rule=rule.explain())
    key = "tui.prompt_any2" if obs.stock_empty else "tui.prompt_any"
    return tr(key, name=names[1], card=led, keys=keys)


# -- the meld window -------------------------------------------------------------------


def window_line(n: int, opt: describe.WindowOption, colour: bool) -> Text:
    """A line of the meld window: ``1 K♥-Q♥ marriage +20``, ``3 draw and play on``."""
    text = Text(f"{n} ", style="bold")
    if opt.action == DRAW:
        text.append(tr("tui.option_draw"))
        return text
    label = opt.kind if opt.action < MELD_BASE + 4 else f"{opt.cards} {opt.kind}"
    if opt.action == DIX:
        label = f"{opt.cards} {tr('tui.option_dix')}"
    text.append_text(colour_cards(label, colour))
    text.append(f" +{opt.value}", style="bold")
    return text
