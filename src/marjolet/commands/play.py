"""``marjolet play``: a match against the computer in the terminal.

Standard input from a pipe gets the plain line interface
(:mod:`marjolet.tui.lines`), so games can be scripted. The game is saved
atomically after every action when ``--save FILE`` is given, and
``--resume FILE`` continues a saved record.
"""

from __future__ import annotations

import argparse
import sys

from marjolet.commands.common import add_rules_arguments, rules_from_args


def default_opponent() -> str:
    """The strongest bot that answers within about a second, if the bots
    package names one, else ``random``."""
    import marjolet.bots as bots

    return str(getattr(bots, "STRONGEST", "random"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponent", metavar="SPEC", help="bot spec of the opponent (see 'marjolet bots')")
    parser.add_argument("--seed", type=int, help="seed for the shuffles and the bot (reproducible game)")
    parser.add_argument("--name", default="You", help="your name in the record")
    parser.add_argument("--save", metavar="FILE", help="save the game to FILE after every action")
    parser.add_argument("--resume", metavar="FILE", help="continue the match saved in FILE")
    parser.add_argument("--plain", action="store_true", help="force the plain line interface")
    add_rules_arguments(parser)


def run(args: argparse.Namespace) -> int:
    return run_plain(args)


def run_plain(args: argparse.Namespace) -> int:
    from marjolet import record
    from marjolet.bots import make_bot
    from marjolet.errors import RecordError
    from marjolet.match import Match, play_deal
    from marjolet.tui.lines import LineSeat, Narrator, QuitGame

    out = sys.stdout
    human = 0
    if args.resume:
        rec = record.load(args.resume)
        match = record.to_match(rec)
        if args.seed is not None:
            match.seed = args.seed
        names = list(rec.players or (args.name, "computer"))
        spec = args.opponent or names[1]
        save_to = args.save or args.resume
    else:
        spec = args.opponent or default_opponent()
        rules = rules_from_args(args)
        names = [args.name, spec]
        match = Match(rules, seed=args.seed, players=names)
        save_to = args.save
    bot = make_bot(spec, seed=args.seed)
    names = [names[0], names[1]]

    def save() -> None:
        if save_to:
            try:
                record.save(record.Record.from_match(match), save_to)
            except OSError as exc:
                raise RecordError(f"cannot save to {save_to!r}: {exc.strerror or exc}") from None

    narrator = Narrator(human, names, out)
    seat = LineSeat(names, sys.stdin, out, lambda: match.totals)

    def on_action(m: Match, who: int, action: int) -> None:
        save()
        narrator(m, who, action)

    class BotSeat:
        def choose(self, obs, legal):  # type: ignore[no-untyped-def]
            if bot.sees_hidden_cards and match.deal is not None:
                bot.see_deal(match.deal)
            return bot.choose(obs, legal)

    seats = [seat, BotSeat()] if human == 0 else [BotSeat(), seat]
    out.write(f"Marjolet: {names[0]} against {names[1]} ({match.rules.profile} rules, "
              f"target {match.rules.target}). Type 'help' for help.\n")
    try:
        while not match.is_over:
            if match.needs_deal:
                deal = match.start_deal()
                save()
                dealer = "you" if deal.dealer == human else names[1]
                out.write(f"\n== Deal {len(match.deals)}: {dealer} dealt; trumps are "
                          f"{'CDHS'[deal.trump]} (indicator {record.CARD_NAMES[deal.turned_up]}).\n")
            narrator.before(match)
            play_deal(match, seats, on_action)
            _deal_summary(match, names, out)
    except QuitGame as stop:
        save()
        where = f"; saved to {save_to} (resume with --resume {save_to})" if save_to else ""
        out.write(f"\nGame stopped ({stop.reason}){where}.\n")
        return 0
    winner = match.winner
    assert winner is not None
    out.write(f"\nMatch over: {names[winner]} won {max(match.totals)}-{min(match.totals)}.\n")
    return 0


def _deal_summary(match: object, names: list[str], out: object) -> None:
    from marjolet.match import Match

    assert isinstance(match, Match)
    deal = match.deal
    assert deal is not None
    lines = [f"-- deal {len(match.deals)} over: points by source"]
    lines.append(f"   {'':12} {'cards':>5} {'melds':>5} {'dix':>4} {'last card':>9} "
                 f"{'last trick':>10} {'all six':>7} {'total':>6}")
    for p in (0, 1):
        b = deal.breakdown(p)
        lines.append(f"   {names[p][:12]:12} {b.cards:5} {b.melds:5} {b.dix:4} {b.last_card:9} "
                     f"{b.last_trick:10} {b.all_tricks:7} {b.total:6}")
    t0, t1 = match.totals
    lines.append(f"   match totals: {names[0]} {t0}, {names[1]} {t1} (target {match.rules.target})")
    print("\n".join(lines), file=out)  # type: ignore[arg-type]
