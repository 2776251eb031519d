"""One human against one bot: the match, its save file and the turn order,
independent of how the table is drawn.

Both terminal interfaces drive a :class:`GameSession`. It owns the
:class:`~marjolet.match.Match` and writes the game record atomically after
every action (and at the start of every deal), so quitting at any moment
never loses a move. The front end sees the game only through
:meth:`GameSession.observation` (R23). Turns go through the core's
:class:`~marjolet.turns.TurnDriver`: the bot is asked through
:meth:`bot_request` (the driver's :class:`~marjolet.turns.Turn`, the
cheater briefed by the driver) and :meth:`bot_choose`, which a front end may
run on another thread because the turn carries everything the bot needs;
:meth:`bot_play` submits the answer with the turn's version, so an answer
that arrives after the game moved on is refused.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from marjolet import record
from marjolet.actions import ACTION_NAMES, parse_action
from marjolet.bots import Bot, make_bot
from marjolet.bots.base import BotSpecError
from marjolet.bots.levels import Level
from marjolet.bots.registry import EXEC, bot_class, parse_spec
from marjolet.engine import Deal, Outcome
from marjolet.errors import ActionError, IllegalActionError, MarjoletError, RecordError
from marjolet.i18n import LANGS, translate
from marjolet.match import Match, new_rng
from marjolet.observation import Observation, observe
from marjolet.rules import Rules
from marjolet.tui import describe, opponents, saves
from marjolet.tui.launch import resume_command
from marjolet.tui.record_errors import cannot_be_read, record_error_text, record_fault
from marjolet.tui.words import lang, number, tr
from marjolet.turns import Turn, TurnDriver, checked_choice

HUMAN = 0


def default_name() -> str:
    """The human's name when none is given: "You", "Vous" in French (the
    record keeps it as it was written)."""
    return tr("player.you")


#: The default name in every language: a match started in English and
#: resumed in French shows "Vous".
DEFAULT_NAMES = frozenset(translate("player.you", lang) for lang in LANGS)


def shown_name(recorded: str) -> str:
    """The human's name on screen in a resumed match: the default name in
    the language in use when the record has the default name of any
    language, else as recorded."""
    return default_name() if recorded in DEFAULT_NAMES else recorded


def _unreadable(path: Path, exc: RecordError, rec: record.Record | None) -> str:
    """Why the save at ``path`` cannot be resumed, as ``marjolet replay``
    words the same file (the place counted from 1, never the library's
    English where the fault has words): ``rec`` is the record as read, when
    only its moves are wrong."""
    if cannot_be_read(exc):
        return record_error_text(str(path), exc, rec)
    return tr("play.unreadable", path=path, reason=record_fault(exc, rec))


def _over_message(path: Path, players: tuple[str, str] | None, match: Match) -> str:
    """Why a finished match cannot be resumed, in the player's words: who
    won, named as the replay names them ("you" for the seat of the default
    name, "Bob", "Player 2" without a name), except that a level or a bot of
    this program is named as the game names it ("Confirmé won", not its
    spec)."""
    from marjolet.tui.reports import record_names

    score = {"a": number(max(match.totals)), "b": number(min(match.totals))}
    winner = match.winner if match.winner is not None else HUMAN
    recorded = players[winner] if players is not None else None
    if recorded in DEFAULT_NAMES:
        return tr("play.resume_over_you", path=path, **score)
    if players is not None and winner != HUMAN and _opposes_a_player(players):
        name = opponent_shown(players[winner])
    else:
        name = record_names(players)[winner]
    return tr("play.resume_over", path=path, name=name, **score)


def _opposes_a_player(players: tuple[str, str]) -> bool:
    """Whether a record is a save of ``play``: a player (not a bot of this
    program) against a level or a bot of the registry."""
    return _a_bot_of_ours(players[1]) and not _a_bot_of_ours(players[HUMAN])


def _a_bot_of_ours(recorded: str) -> bool:
    """Whether a record's player name is a level or a bot of the registry
    (not a program of the player's, nor a person)."""
    if opponents.level_named(recorded) or opponents.level_of(recorded):
        return True
    try:
        name, _ = parse_spec(recorded)
        return name != EXEC and bot_class(name) is not None
    except BotSpecError:
        return False


def opponent_shown(recorded: str) -> str:
    """A save's opponent as a player's screen calls it: a level by its name
    in the language in use (a save names it in English, an older save by
    the spec that played it then), any other bot of the registry as "the
    computer" (a spec names a program, which a player's screen never
    shows), a program or a person by the name recorded."""
    level = opponents.level_named(recorded) or opponents.level_of(recorded)
    if level is not None:
        return level.name(lang())
    try:
        name, _ = parse_spec(recorded)
    except BotSpecError:
        return record.printable_name(recorded)
    return display_name(recorded) if name == EXEC else tr("tui.computer_name")


#: A hint is saved in the record as a comment where it was given
#: (``hint: AS`` after the actions before it), so that the review of a
#: resumed match still knows which hints the player followed.
HINT_COMMENT = "hint: "
#: A match the opponent's program lost by breaking down ends with this
#: comment (the reason after it): it is over and cannot be resumed.
FORFEIT_COMMENT = "forfeit: "


def hint_comments(hints: dict[tuple[int, int], int]) -> list[record.Comment]:
    """The hints given, (deal index, action index) -> action, as comments."""
    return [
        record.Comment(deal, at, HINT_COMMENT + ACTION_NAMES[action])
        for (deal, at), action in sorted(hints.items())
    ]


def split_hints(
    comments: Sequence[record.Comment],
) -> tuple[dict[tuple[int, int], int], tuple[record.Comment, ...]]:
    """The hints saved among a record's comments, and the other comments
    (one that only looks like a hint among them, kept as it is)."""
    hints, others = {}, []
    for c in comments:
        action = _hinted(c.text)
        if action is None:
            others.append(c)
        else:
            hints[(c.deal, c.after)] = action
    return hints, tuple(others)


def _hinted(text: str) -> int | None:
    """The action of a hint's comment (``hint: AS``), else None."""
    if not text.startswith(HINT_COMMENT):
        return None
    try:
        return parse_action(text[len(HINT_COMMENT) :])
    except ActionError:
        return None


def display_name(spec: str) -> str:
    """The bot's name without its parameters: ``pimc:worlds=64`` -> ``pimc``;
    an outside program's file name: ``exec:./bots/mine.py`` -> ``mine.py``."""
    name = spec.split(":", 1)[0].strip()
    if name == EXEC:
        try:
            path = parse_spec(spec)[1].get("path", "")
        except BotSpecError:
            path = ""
        return os.path.basename(path.rstrip("/")) or spec
    return name or spec


def _fresh_save_path() -> Path:
    """A new file in the saves folder, or a one-line error naming it."""
    from marjolet.commands.words import output_reason

    try:
        return saves.new_save_path()
    except OSError as exc:
        folder = saves.games_dir(create=False)
        # a file where the data or saves folder should be: mkdir's "file exists"
        in_the_way = isinstance(exc, (FileExistsError, NotADirectoryError))
        reason = tr("cli.output.not_a_folder") if in_the_way else output_reason(exc)
        raise RecordError(tr("play.cannot_save", path=folder, reason=reason)) from None


class GameSession:
    """A match between the human (seat 0) and a bot, saved continuously."""

    def __init__(
        self,
        match: Match,
        *,
        opponent: str,
        save_path: Path | None,
        seed: int | None = None,
        notes: Sequence[str] = (),
        opponent_name: str | None = None,
        level: Level | None = None,
    ) -> None:
        """``opponent``: the bot spec that plays (``level:KEY`` plays that
        level); ``level``: the player level it plays, which a new record
        names by its English name (:func:`opponents.recorded_name`), never
        by the spec. ``opponent_name``: how the screen calls the opponent;
        by default the level's name, else the bot's name without its
        parameters (a researcher's ``--opponent SPEC``)."""
        self.match = match
        self.driver = TurnDriver(match)
        self.human = HUMAN
        #: the player level the bot plays, if it plays one
        self.level = level or opponents.level_in_spec(opponent)
        if self.level is not None and opponents.level_in_spec(opponent) is not None:
            opponent = self.level.spec  # level:KEY: the spec behind it
        self.opponent_spec = opponent
        self.bot: Bot = make_bot(opponent, seed=seed)
        self.save_path = save_path
        self.seed = seed
        if match.players is None:
            bot_name = opponents.recorded_name(self.level) if self.level else opponent
            match.players = (default_name(), bot_name)
        players = match.players
        self.player_names = (players[0], players[1])
        if opponent_name is None and self.level is not None:
            opponent_name = self.level.name(lang())
        #: Short names for the screen: the human's own name and the bot's.
        self.names = (
            record.printable_name(players[0]),
            opponent_name or record.printable_name(self._bot_name(opponent)),
        )
        #: Messages for the player about how the session was opened.
        self.notes = list(notes)
        self.save_error: str | None = None
        #: True when the match was continued from a saved record.
        self.resumed = False
        #: The hints given: (deal index, action index) -> the suggested action.
        self.hints: dict[tuple[int, int], int] = {}
        #: A resumed record's own comments, saved again with the hints.
        self.comments: tuple[record.Comment, ...] = ()
        #: The locks that keep other sessions off this match's files.
        self.save_locks: list[saves.SaveLock] = []

    def release_locks(self) -> None:
        """Let another session open this match's files (at the end)."""
        for lock in self.save_locks:
            lock.release()
        self.save_locks = []

    def _bot_name(self, spec: str) -> str:
        """An outside program's own name (from its answer to ``hello``), else
        the bot's name without its parameters. A program that cannot start
        is named by its spec here; its fault is told at its first move."""
        from marjolet.bots.base import BotFault
        from marjolet.bots.external import ExternalBot  # starts processes: not at import

        if isinstance(self.bot, ExternalBot):
            try:
                return self.bot.start().name
            except BotFault:
                pass
        return display_name(spec)

    # -- opening -----------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules,
        *,
        opponent: str,
        name: str | None = None,
        seed: int | None = None,
        save_path: Path | None = None,
        first_dealer: int | None = None,
        opponent_name: str | None = None,
        level: Level | None = None,
    ) -> GameSession:
        """A new match, saved to ``save_path`` (default: a new file in the
        data folder's ``games``); ``first_dealer`` None draws it (R3). The
        human is ``name``, else :func:`default_name` in the language in use.
        The record names a ``level`` (or ``level:KEY``) by its English name,
        any other opponent by its spec."""
        if name is None:
            name = default_name()
        level = level or opponents.level_in_spec(opponent)
        bot_name = opponents.recorded_name(level) if level is not None else opponent
        match = Match(rules, seed=seed, players=(name, bot_name), first_dealer=first_dealer)
        path = save_path if save_path is not None else _fresh_save_path()
        session = cls(
            match,
            opponent=opponent,
            save_path=path,
            seed=seed,
            opponent_name=opponent_name,
            level=level,
        )
        session.save()
        return session

    @classmethod
    def resume(
        cls,
        path: Path,
        *,
        opponent: str | None = None,
        fallback_opponent: str = "random",
        seed: int | None = None,
        save_path: Path | None = None,
        opponent_name: str | None = None,
        level: Level | None = None,
    ) -> GameSession:
        """Continue the match saved in ``path``; it keeps being saved there
        (or to ``save_path``). The opponent is ``opponent`` (or ``level``),
        else the one named as player 1 in the record (a level by its name,
        or a bot by its spec), else ``fallback_opponent``; the screen calls
        it ``opponent_name`` (a level chosen now), else by its level's name,
        else as :func:`opponent_shown` says (a spec chosen now: by the
        bot's name, as a researcher asked for it)."""
        try:
            rec, match = saves.load_match(path)
        except saves.UnreadableSave as exc:  # the file's fault, in the player's words
            raise RecordError(_unreadable(path, exc.cause, exc.record)) from None
        if match.is_over:
            raise RecordError(_over_message(path, rec.players, match))
        if any(c.text.startswith(FORFEIT_COMMENT) for c in rec.comments):
            raise RecordError(tr("play.resume_forfeited", path=path))
        # A replayed match deals from seed 0; new deals must be shuffled by a
        # strong source again (R6), or from the seed given now.
        match.seed = seed
        match.rng = new_rng(seed)
        notes = []
        recorded = rec.players[1] if rec.players else None
        spec = level.spec if level is not None and opponent is None else opponent
        shown = opponent_name
        if spec is None and recorded is not None:
            level = opponents.level_named(recorded)  # a level, as saves name it
            if level is not None:
                spec = level.spec
            else:  # a bot by its spec (an older save, or a researcher's)
                try:
                    make_bot(recorded)
                    spec = recorded
                    level = opponents.level_of(recorded)  # the spec a level had then
                    shown = shown or opponent_shown(recorded)
                except MarjoletError:
                    spec = None
        if spec is None:
            spec = fallback_opponent
            level = opponents.level_of(spec)
            fallback = level.name(lang()) if level is not None else tr("tui.computer_name")
            shown = shown or fallback
            if recorded is not None:
                notes.append(tr("tui.not_a_bot", name=recorded, bot=shown))
        if save_path is None and not saves.may_save_back(path, rec):
            save_path = _fresh_save_path()
            notes.append(tr("tui.resumed_elsewhere", path=path, new=save_path))
        session = cls(
            match,
            opponent=spec,
            save_path=save_path or path,
            seed=seed,
            notes=notes,
            opponent_name=shown,
            level=level,
        )
        session.resumed = True
        session.hints, session.comments = split_hints(rec.comments)
        session.names = (shown_name(session.names[0]), session.names[1])
        session.save()
        return session

    # -- state -------------------------------------------------------------------

    @property
    def deal(self) -> Deal | None:
        return self.match.deal

    def observation(self) -> Observation:
        """The current deal as the human sees it (R23)."""
        return self.match.observation(self.human)

    @property
    def version(self) -> int:
        """The driver's version: changes with every action, every new deal
        and a forfeit."""
        return self.driver.version

    @property
    def deal_in_progress(self) -> bool:
        return self.driver.to_move is not None

    @property
    def human_to_move(self) -> bool:
        return self.driver.to_move == self.human

    @property
    def bot_to_move(self) -> bool:
        return self.driver.to_move == self.human ^ 1

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended (R22, or the bot's forfeit)."""
        return self.driver.outcome

    def legal(self) -> list[int]:
        """The human's legal actions (empty when it is not their turn)."""
        turn = self.driver.turn()
        if turn is None or turn.seat != self.human:
            return []
        return list(turn.legal)

    def history(self) -> list[str]:
        """The log lines of the current deal so far, as the human saw them
        (used when a match is resumed). Every line comes from the human's
        observations, never from the hidden cards."""
        d = self.match.deal
        if d is None or d.deck is None:
            return []
        index, totals = len(self.match.deals) - 1, self.match.totals
        replay = Deal(d.deck, d.dealer, d.rules)

        def seen() -> Observation:
            return observe(replay, self.human, deal_index=index, totals=totals)

        lines = describe.deal_start(seen(), self.names)
        for action in d.moves:
            before, actor = seen(), replay.to_move
            replay.push(action)
            lines += describe.narrate(before, seen(), actor, action, self.names)
        return lines

    def opening_lines(self) -> list[str]:
        """The log's first lines: the welcome, the notes, and for a resumed
        match the deal so far and where it stands."""
        lines = [tr("tui.welcome", bot=self.names[1]), *self.notes]
        if self.deal_in_progress:
            lines += self.history()
        if self.deal_in_progress and self.resumed:
            obs = self.observation()
            lines.append(
                tr("tui.resumed", n=obs.deal_index + 1, trick=describe.shown_trick(obs))
            )
        elif self.resumed and self.match.deals:
            t = self.match.totals
            n = len(self.match.deals)
            lines.append(tr("tui.resumed_after", n=n, a=t[0], name=self.names[1], b=t[1]))
        return lines

    # -- hints -------------------------------------------------------------------

    def hint_given(self, action: int) -> None:
        """Remember that the hint suggested ``action`` at the current position."""
        d = self.match.deal
        if d is not None:
            self.hints[(len(self.match.deals) - 1, len(d.moves))] = action

    @property
    def followed(self) -> dict[tuple[int, int], int]:
        """The hints the human followed: (deal index, action index) -> action."""
        played = {
            (i, j): a for i, deal in enumerate(self.match.deals) for j, a in enumerate(deal.moves)
        }
        return {at: a for at, a in self.hints.items() if played.get(at) == a}

    # -- acting ------------------------------------------------------------------

    def start_deal(self) -> list[str]:
        """Deal the next hand (when the match needs one); return the lines
        that announce it."""
        self.driver.start_deal()
        self.save()
        return describe.deal_start(self.observation(), self.names)

    def play(self, action: int, seat: int | None = None) -> list[str]:
        """Apply ``seat``'s action (the human's by default), save, and return
        the lines that tell the human what happened."""
        return self._apply(action, self.driver.version, self.human if seat is None else seat)

    def _apply(self, action: int, version: int, seat: int) -> list[str]:
        d = self.match.deal
        if d is None or d.is_over:
            why: dict[str, object] = {"code": "deal_over"}  # the screen words the code
            raise IllegalActionError("no deal in progress", action=action, why=why)
        if d.to_move != seat:
            raise IllegalActionError(f"it is not {self.names[seat]}'s turn", action=action)
        actor = seat
        before = self.observation()
        self.driver.submit(action, version, seat)  # checked: refused with the rule or "stale"
        self.save()
        after = self.observation()
        lines = describe.narrate(before, after, actor, action, self.names)
        if d.is_over:
            lines += describe.deal_end(after, self.match.totals, self.names)
            if (winner := self.match.winner) is not None:
                self.bot.end_match(self.match.totals, winner)  # a program hears `result`
        return lines

    def bot_request(self) -> Turn:
        """The bot's turn (on the thread that owns the match; the driver
        briefs a bot that sees hidden cards)."""
        turn = self.driver.turn()
        if turn is None or turn.seat != self.human ^ 1:
            raise MarjoletError("it is not the computer's turn")
        self.driver.brief(self.bot, turn)
        return turn

    def bot_choose(self, turn: Turn) -> int:
        """Ask the bot (safe on a worker thread: it touches only the turn
        and the bot)."""
        return checked_choice(self.bot, turn)

    def bot_play(self, turn: Turn, action: int) -> list[str]:
        """Submit the bot's answer to ``turn`` (on the thread that owns the
        match); refused with ``stale`` if the game moved on meanwhile."""
        return self._apply(action, turn.version, turn.seat)

    def forfeit(self, reason: str) -> Outcome:
        """The bot broke down: it loses the match. The record keeps every
        action played and, as it has no forfeits (record.md), a comment
        saying so where it happened, which keeps the match from being
        resumed."""
        outcome = self.driver.forfeit(self.human ^ 1, reason)
        deal = len(self.match.deals) - 1
        if deal >= 0 and self.match.deal is not None:
            at = len(self.match.deal.moves)
            self.comments = (*self.comments, record.Comment(deal, at, FORFEIT_COMMENT + reason))
            self.save()
        return outcome

    def fault_text(self, fault: Exception) -> str:
        """The technical detail of the bot's fault, with where it happened,
        counted as a player counts (deal 1, trick 1)."""
        deal = self.match.deal
        if deal is None or deal.is_over:
            return str(fault)
        return f"deal {len(self.match.deals)}, trick {deal.trick_number}: {fault}"

    # -- saving ------------------------------------------------------------------

    def save(self) -> None:
        """Write the record atomically. A failure is remembered in
        :attr:`save_error` (the game goes on; the front end shows it)."""
        if self.save_path is None:
            return
        comments = [*self.comments, *hint_comments(self.hints)]
        comments.sort(key=lambda c: (c.deal, c.after))  # reading order
        saved = replace(record.Record.from_match(self.match), comments=tuple(comments))
        try:
            record.save(saved, self.save_path)
            self.save_error = None
        except OSError as exc:
            from marjolet.commands.words import output_reason

            self.save_error = tr("play.cannot_save", path=self.save_path, reason=output_reason(exc))

    @property
    def resume_hint(self) -> str:
        """How to continue this match later: the command as it works from
        where the player is (:func:`marjolet.tui.launch.resume_command`)."""
        return self.resume_hint_for(plain=False)

    def resume_hint_for(self, *, plain: bool) -> str:
        """:attr:`resume_hint`, in the line interface with ``plain`` (for a
        screen too small for the table). ``--resume`` alone only when this
        is the one unfinished match of the saves folder: with another one,
        ``--resume`` would open whichever was saved last, so the file is
        named."""
        if self.save_path is None:
            return ""
        try:
            unfinished = saves.unfinished_games()
        except OSError:
            unfinished = []
        if len(unfinished) == 1 and unfinished[0].resolve() == self.save_path.resolve():
            return resume_command(plain=plain)
        return resume_command(self.save_path, plain=plain)
