"""``marjolet play``: a match against the computer in the terminal.

In a terminal (standard input and output both a TTY) the game opens the
full-screen Textual interface (:mod:`marjolet.tui.app`); otherwise, or with
``--plain``, the plain line interface (:mod:`marjolet.tui.lines`), so games
can be scripted through a pipe. Either way the game record is saved
atomically after every action: to ``--save FILE``, else to a new file in the
per-user data folder (``marjolet.paths.data_dir()/games``).
``--resume FILE`` continues any record; ``--resume`` alone continues the
newest unfinished match of the data folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from marjolet.commands.common import add_rules_arguments, file_name, plain_int, rules_in_words
from marjolet.commands.words import (
    output_reason,
    rules_words,
    translate_parser,
    worded_error,
    worded_usage_error,
)
from marjolet.errors import MarjoletError, RecordError
from marjolet.rules import SETTING_NAMES

if TYPE_CHECKING:
    from marjolet.bots.levels import Level
    from marjolet.match import Match
    from marjolet.tui.saves import SaveLock
    from marjolet.tui.session import GameSession

class _Alone(str):
    """The text of ``--resume`` given alone: argparse passes an option's
    ``const`` through its ``type`` too, which must tell it from an empty
    FILE typed (``--resume "$UNSET"``)."""


#: ``--resume`` given without a file: the last unfinished match.
LAST: str = _Alone("")


def resume_file(text: str) -> str:
    """``--resume``'s type: alone (:data:`LAST`), or a file name, never an
    empty one (:func:`file_name`), which resumed the last match instead."""
    return text if isinstance(text, _Alone) else file_name(text)


def player_name(text: str) -> str:
    """``--name``: a name the screens can show (a blank or control-only
    name would leave "Marjolet:  against Expert")."""
    from marjolet.record import printable_name
    from marjolet.tui.words import tr

    if not printable_name(text):
        raise argparse.ArgumentTypeError(tr("play.usage.unprintable", name=repr(text)[1:-1]))
    return text


def opponent_spec(text: str) -> str:
    """``--opponent``: a bot spec or a level; an empty one (an unset shell
    variable) is refused, where read as "not given" it played the default
    opponent."""
    from marjolet.tui.words import tr

    if not text.strip():
        raise argparse.ArgumentTypeError(tr("play.usage.empty_opponent"))
    return text


def default_opponent() -> str:
    """The default opponent: the strongest bot that answers within about a
    second (:data:`marjolet.bots.STRONGEST`, also the hint bot)."""
    from marjolet.bots import STRONGEST

    return STRONGEST


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options, described in the language chosen by
    :func:`marjolet.commands.words.prepare`."""
    from marjolet.tui.words import tr

    translate_parser(parser, tr("play.help.description"))
    parser.add_argument(
        "--level", metavar=tr("play.help.metavar_level"), help=tr("play.help.level")
    )
    parser.add_argument(
        "--opponent", metavar="SPEC", type=opponent_spec, help=tr("play.help.opponent")
    )
    parser.add_argument(
        "--seed", type=plain_int, metavar=tr("play.help.metavar_seed"), help=tr("play.help.seed")
    )
    parser.add_argument(
        "--name", type=player_name, metavar=tr("play.help.metavar_name"), help=tr("play.help.name")
    )
    file = tr("cli.help.metavar_file")
    parser.add_argument("--save", metavar=file, type=file_name, help=tr("play.help.save"))
    parser.add_argument("--force", action="store_true", help=tr("play.help.force"))
    parser.add_argument(
        "--resume",
        metavar=file,
        nargs="?",
        const=LAST,
        type=resume_file,
        help=tr("play.help.resume"),
    )
    parser.add_argument("--plain", action="store_true", help=tr("play.help.plain"))
    parser.add_argument("--lang", choices=("fr", "en"), help=tr("play.help.lang"))
    add_rules_arguments(parser, rules_words())


def usage_error(message: str) -> str:
    """The line that reports argparse's usage error ``message``, in the
    player's language, English worded too (:func:`marjolet.commands.words.usage_error`)."""
    from marjolet.tui.launch import play_command

    return worded_usage_error(message, play_command("--help"), english=True)


def run(args: argparse.Namespace) -> int:
    """Play in the player's language, errors included: a bad option or file
    ends as one line in that language (``marjolet : erreur : ...``)."""
    from marjolet.i18n import from_environment
    from marjolet.tui import words

    words.use(args.lang or from_environment())
    try:
        return _play(args)
    except MarjoletError as exc:  # a save open in another terminal too: it says what to do
        print(words.tr("cli.error", message=worded_error(exc)), file=sys.stderr)
        return 2


def _play(args: argparse.Namespace) -> int:
    from marjolet.tui.words import tr

    if args.level is not None and args.opponent is not None:
        raise MarjoletError(tr("play.level_or_opponent"))
    if args.level is not None:
        args.opponent_level = _level_by_name(args.level)
        args.opponent, args.opponent_name = args.opponent_level.spec, None
    fullscreen = not args.plain and _is_terminal() and _has_textual()
    if fullscreen and args.resume is None and args.opponent is None:
        from marjolet.tui.start import choose

        picked = choose()  # the opponent, its strength and the first dealer
        if picked is None:
            return 0
        from marjolet.tui.opponents import level_of

        if picked.resume is not None:  # the unfinished match, continued
            args.resume = picked.resume
        else:
            args.opponent, args.first_dealer = picked.opponent, picked.first_dealer
            args.opponent_name = picked.name
            args.opponent_level = level_of(picked.opponent)  # the record names the level
    session = open_session(args)
    try:
        return _run(session, args)
    finally:
        session.release_locks()


def _run(session: GameSession, args: argparse.Namespace) -> int:
    if not args.plain and _is_terminal():
        try:
            import textual  # noqa: F401
        except ImportError:
            print(
                "marjolet: the full-screen interface needs Textual (pip install 'marjolet[tui]'); "
                "using the plain interface.",
                file=sys.stderr,
            )
        else:
            return run_fullscreen(session, args)
    return run_plain(session, sys.stdin, sys.stdout)


def _has_textual() -> bool:
    import importlib.util

    return importlib.util.find_spec("textual") is not None


def _is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def open_session(args: argparse.Namespace) -> GameSession:
    """A new match from the options, or the resumed one; the record is
    written once before play, so an unusable save path stops here."""
    from marjolet.outputs import OutputError, check_output
    from marjolet.tui import saves
    from marjolet.tui.words import tr

    save_to = Path(args.save) if args.save else None
    if save_to is not None:
        # a new match never replaces a file unasked; a resumed one may go on in its own file
        own = args.resume if args.resume not in (None, LAST) else None
        try:
            check_output(save_to, force=args.force, flag="--save", may_replace=own)
        except OutputError as exc:
            reason = output_reason(exc)
            raise OutputError(tr("play.cannot_save", path=args.save, reason=reason)) from None
    locks = [saves.lock_save(save_to)] if save_to is not None else []
    try:
        session = _open_locked(args, save_to, locks)
    except BaseException:
        for lock in locks:
            lock.release()
        raise
    session.save_locks = locks
    return session


def _open_locked(
    args: argparse.Namespace, save_to: Path | None, locks: list[SaveLock]
) -> GameSession:
    """:func:`open_session` once ``save_to`` is locked: the file resumed is
    locked before it is read, a new match's file once it is named, so two
    sessions never write one save (the second one stops, told why)."""
    from marjolet.tui import saves
    from marjolet.tui.session import GameSession

    if args.resume is None:
        rules = rules_in_words(args)
        opponent = args.opponent or default_opponent()
        with _opponent_checked(opponent):
            session = GameSession.new(
                rules,
                opponent=opponent,  # level:KEY plays that level
                name=args.name,
                seed=args.seed,
                save_path=save_to,
                first_dealer=getattr(args, "first_dealer", None),
                opponent_name=getattr(args, "opponent_name", None),
                level=getattr(args, "opponent_level", None) or _default_level(args.opponent),
            )
    else:
        with _opponent_checked(args.opponent or ""):
            session = _resume(args, save_to, locks)
    held = {lock.path for lock in locks}
    if session.save_path is not None and saves.lock_path(session.save_path) not in held:
        locks.append(saves.lock_save(session.save_path))  # a new match's file, or a fork
    if session.save_error:  # better now than after the first move
        raise RecordError(session.save_error)
    return session


def _not_a_save(path: Path) -> str:
    """Why ``--resume``'s path holds no game, in the player's words."""
    from marjolet.tui.words import tr

    if path.is_dir():
        return tr("replay.is_folder")
    if not path.exists():
        return tr("replay.no_such_file")
    return tr("cli.output.special")


def _level_by_name(text: str) -> Level:
    """``--level``: the level a player names (its key or its name in either
    language)."""
    from marjolet.bots.levels import LEVELS, LevelError, find_level
    from marjolet.tui.words import lang, tr

    try:
        return find_level(text)
    except LevelError:
        names = ", ".join(lv.name(lang()).lower() for lv in LEVELS)
        raise MarjoletError(tr("play.unknown_level", level=text, levels=names)) from None


@contextmanager
def _opponent_checked(spec: str) -> Iterator[None]:
    """A spec that names no bot, or a bot with bad parameters, is refused
    in the player's words, with where the levels and the bots are listed."""
    from marjolet.bots.base import BotSpecError
    from marjolet.bots.registry import EXEC, LEVEL, bot_names
    from marjolet.tui.words import tr

    try:
        yield
    except BotSpecError as exc:
        name = spec.strip().partition(":")[0]
        if name not in (*bot_names(), EXEC, LEVEL):
            raise MarjoletError(tr("play.unknown_opponent", spec=spec)) from None
        raise MarjoletError(tr("play.bad_opponent", spec=spec, detail=_words(exc))) from None


def _words(refusal: Exception) -> str:
    """What is wrong with a bot's settings, in the player's language where
    the refusal says what it is (an unknown setting, a value that is not a
    number); else the bot's own words, said to be technical English."""
    from marjolet.bots.base import BotSpecError
    from marjolet.tui.words import tr

    if not isinstance(refusal, BotSpecError) or not refusal.kind:
        return tr("play.opponent_detail", detail=refusal)
    if refusal.kind in ("number", "integer"):
        whole = refusal.kind == "integer"
        key = "play.opponent_not_whole" if whole else "play.opponent_not_a_number"
        return tr(key, param=refusal.param, value=refusal.value)
    if not refusal.value:
        return tr("play.opponent_no_settings", param=refusal.param)
    return tr("play.opponent_no_setting", param=refusal.param, params=refusal.value)


def _default_level(opponent: str | None) -> Level | None:
    """The default opponent plays a level: the record and the screen name
    it by the level (not its program)."""
    from marjolet.tui.opponents import level_of

    return level_of(default_opponent()) if opponent is None else None


def _resume(
    args: argparse.Namespace, save_to: Path | None, locks: list[SaveLock]
) -> GameSession:
    from marjolet.tui import saves
    from marjolet.tui.launch import play_command
    from marjolet.tui.session import GameSession
    from marjolet.tui.words import tr

    changed = [
        f"--{f.replace('_', '-')}" for f in SETTING_NAMES if getattr(args, f, None) is not None
    ]
    if args.profile != "classic":
        changed.insert(0, "--rules")
    if changed:
        raise MarjoletError(tr("play.resume_rules", options=" ".join(changed)))
    if args.resume == LAST:
        path = saves.last_unfinished(
            warn=lambda line: print(tr("play.warning", message=line), file=sys.stderr)
        )
        if path is None:
            raise RecordError(
                tr(
                    "play.no_unfinished",
                    folder=saves.games_dir(create=False),
                    start=play_command(),
                    resume=play_command(f"--resume {tr('cli.help.metavar_file')}"),
                )
            )
    else:
        path = Path(args.resume)
        if not path.is_file():  # said as a player reads it: missing, a folder, or not a file
            reason = _not_a_save(path)
            raise RecordError(tr("play.cannot_resume", path=path, reason=reason))
    if save_to is None or path.resolve() != save_to.resolve():
        locks.append(saves.lock_save(path))  # before reading it: no other session writes it
    return GameSession.resume(
        path,
        opponent=args.opponent,
        fallback_opponent=default_opponent(),
        seed=args.seed,
        save_path=save_to,
        opponent_name=getattr(args, "opponent_name", None),
        level=getattr(args, "opponent_level", None),  # --level
    )


# -- the full-screen interface ---------------------------------------------------------


def run_fullscreen(session: GameSession, args: argparse.Namespace) -> int:
    from marjolet.tui import saves
    from marjolet.tui.app import MarjoletApp
    from marjolet.tui.session import GameSession

    def another_match() -> GameSession:
        m = app.session.match
        s = app.session
        players = m.players or (args.name, s.opponent_spec)
        name = s.names[1] if s.names[1] != s.opponent_spec else None
        new = GameSession.new(
            m.rules, opponent=s.opponent_spec, name=players[0], opponent_name=name, level=s.level
        )
        if new.save_path is not None:
            new.save_locks = [saves.lock_save(new.save_path)]  # a fresh file: never in use
        s.release_locks()
        return new

    app = MarjoletApp(session, new_session=another_match, hint_seed=args.seed)
    app.run()
    final = app.session
    if final is not session:
        final.release_locks()
    print(_farewell(final, plain=app.too_small))  # quit too small: the line interface's command
    return 0


def _farewell(session: GameSession, *, plain: bool = False) -> str:
    from marjolet.tui.words import tr

    m = session.match
    if m.is_over and m.winner is not None:
        score = {"a": max(m.totals), "b": min(m.totals)}
        if m.winner == session.human:
            text = tr("tui.farewell_you_won", **score)
        else:
            text = tr("tui.farewell_they_won", name=session.names[1], **score)
        if session.save_path is not None:
            text += tr("tui.farewell_record", path=session.save_path)
        return text
    if session.save_path is None:
        return tr("tui.farewell_stopped")
    if session.save_error:
        return tr("tui.farewell_save_failed", error=session.save_error)
    hint = session.resume_hint_for(plain=plain)
    return tr("tui.farewell_saved", path=session.save_path, hint=hint)


# -- the plain line interface ------------------------------------------------------------

#: Why a plain game stopped (:class:`marjolet.tui.lines.QuitGame`), as catalogue keys.
STOP_REASONS = {"input ended": "tui.stop_input_ended", "quit": "tui.stop_quit"}


def run_plain(session: GameSession, stdin: TextIO, out: TextIO) -> int:
    from marjolet.bots.base import BotFault
    from marjolet.tui.describe import deal_start
    from marjolet.tui.lines import LineSeat, Narrator, QuitGame, Wrapped
    from marjolet.tui.reports import changed_settings
    from marjolet.tui.words import card, suit_name, tr
    from marjolet.turns import Seat

    match = session.match
    human = session.human
    names = list(session.names)
    # wrapped to the terminal between words, the commands to paste whole
    out = cast(TextIO, Wrapped(out, [session.resume_hint_for(plain=True)]))

    def save() -> None:
        session.save()
        if session.save_error:
            raise RecordError(session.save_error)

    narrator = Narrator(human, names, out)
    seat = LineSeat(
        names, stdin, out, lambda: match.totals, session.resume_hint_for(plain=True),
        hint_seed=session.seed, on_hint=session.hint_given,
    )  # fmt: skip

    def on_action(m: Match, who: int, action: int) -> None:
        save()
        narrator(m, who, action)

    seats: list[Seat] = [seat, session.bot] if human == 0 else [session.bot, seat]
    out.write(
        tr(
            "tui.plain_start",
            name=names[0],
            bot=names[1],
            profile=tr(f"lobby.profile_{match.rules.profile}"),
            n=match.rules.target,
        )
        + "\n"
    )
    changed = changed_settings(match.rules)
    if changed:  # the variations played, as a replay's rules line says them
        settings = tr("report.settings_separator").join(changed)
        out.write(tr("tui.plain_variations", settings=settings) + "\n")
    for note in session.notes:
        out.write(note + "\n")
    if session.save_path is not None:
        out.write(tr("tui.plain_saved", path=session.save_path) + "\n")
    try:
        while not match.is_over:
            if match.needs_deal:
                deal = session.driver.start_deal()
                save()
                out.write(
                    "\n"
                    + tr(
                        "tui.plain_deal_you" if deal.dealer == human else "tui.plain_deal",
                        n=len(match.deals),
                        dealer=names[1],
                        trump=suit_name(deal.trump),
                        card=card(deal.turned_up),
                    )
                    + "\n"
                )
                for line in deal_start(match.observation(human), names)[1:]:
                    out.write(line + "\n")  # a seven of trumps turned up scores at once
            elif match.deal is not None and match.deal.moves:
                out.write("\n" + tr("tui.plain_resumed", n=len(match.deals)) + "\n")
            narrator.before(match)
            while session.driver.to_move is not None:
                played = session.driver.play_turn(seats)
                on_action(match, played.seat, played.action)
            _deal_summary(match, names, out)
    except BotFault as fault:
        detail = session.fault_text(fault)
        session.forfeit(str(fault))
        save()
        out.write("\n" + tr("tui.plain_forfeit", name=names[1], fault=detail) + "\n")
        return 0
    except QuitGame as stop:
        save()
        where = ""
        if session.save_path is not None:
            hint = session.resume_hint_for(plain=True)
            where = tr("tui.plain_stopped_where", path=session.save_path, hint=hint)
        reason = tr(STOP_REASONS[stop.reason]) if stop.reason in STOP_REASONS else stop.reason
        out.write("\n" + tr("tui.plain_stopped", reason=reason, where=where) + "\n")
        return 0
    out.write("\n" + _match_over(match, human, names[1]) + "\n")
    return 0


def _match_over(match: Match, human: int, opponent: str) -> str:
    """The plain interface's last line: the winner and the score. The human
    is "you" whatever their name (a name, or "Vous", before the verb of a
    third person was wrong in French), as in the full screen's farewell."""
    from marjolet.tui.words import tr

    assert match.winner is not None
    score = {"a": max(match.totals), "b": min(match.totals)}
    if match.winner == human:
        return tr("tui.plain_match_over_you", **score)
    return tr("tui.plain_match_over", name=opponent, **score)


def _deal_summary(match: Match, names: list[str], out: TextIO) -> None:
    from marjolet.tui.describe import summary_table
    from marjolet.tui.words import tr

    deal = match.deal
    assert deal is not None
    rows = summary_table((deal.breakdown(0), deal.breakdown(1)))
    rows.append((tr("tui.match"), *match.totals))
    label_width = max(18, *(len(label) for label, _, _ in rows))
    w0, w1 = (max(10, len(name)) for name in names)  # whole names, never cut
    lines = [tr("tui.plain_summary", n=len(match.deals))]
    lines.append(f"   {'':{label_width}} {names[0]:>{w0}} {names[1]:>{w1}}")
    lines += [f"   {label:{label_width}} {a:{w0}} {b:{w1}}" for label, a, b in rows]
    lines[-1] += "   " + tr("tui.plain_target", n=match.rules.target)
    out.write("\n".join(lines) + "\n")
