"""Write ``src/marjolet/_kernel/rules_constants.h``: the rule values the C
kernel counts with, each read from its one Python home, so that no rule
value is typed twice.

    PYTHONPATH=src python scripts/rules_header.py           # write the header
    PYTHONPATH=src python scripts/rules_header.py --check   # exit 1 if it is stale

The homes: the card points (R2) in ``cards.py``, the meld values (R11) in
``melds.py``, the fixed scores (R15, R17-R19) and the classic profile in
``rules.py``, the deal's structure counts in ``history.py``.
``tests/test_kernel_rules_constants.py`` fails while the committed header
differs from what this script writes; rebuild the kernel after writing it.
The kernel stays plain C11: the header is committed, and building the
kernel needs no Python beyond setup.py.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from marjolet import cards, history, melds, rules

HEADER = Path(__file__).resolve().parents[1] / "src" / "marjolet" / "_kernel" / "rules_constants.h"

#: The deal patterns and jack-queen modes the kernel's mk_rules flags can
#: say (pattern_222, same_suit): another one needs C code, not a constant.
KERNEL_PATTERNS = ((3, 3), (2, 2, 2))
KERNEL_JACK_QUEEN_MODES = (rules.TRUMP_JACK, rules.SAME_SUIT)

PREAMBLE = """\
/* rules_constants.h -- the rule values the kernel counts with, each read
 * from its Python home (marjolet/cards.py, melds.py, rules.py, history.py).
 * Written by scripts/rules_header.py: do not edit by hand. After a change
 * to a rule value run `PYTHONPATH=src python scripts/rules_header.py` and
 * rebuild the kernel; tests/test_kernel_rules_constants.py fails until the
 * header agrees. Included by kernel.h. */
#ifndef MARJOLET_RULES_CONSTANTS_H
#define MARJOLET_RULES_CONSTANTS_H
"""


def _define(name: str, value: int, comment: str = "") -> str:
    """``#define NAME value``, with a comment in a column when one is given."""
    line = f"#define {name} {value}"
    return f"{line:<32}/* {comment} */" if comment else line


def _numbers(values: Sequence[int]) -> str:
    return ", ".join(str(v) for v in values)


def _table(name: str, rows: Sequence[str]) -> list[str]:
    """A brace initializer as a macro, one row a line."""
    body = [f"    {row}," for row in rows]
    body[-1] = body[-1].rstrip(",")
    return [f"#define {name} {{ \\", *(line + " \\" for line in body), "}"]


def _check_kernel_can_say_the_rules() -> None:
    """The settings with a few values must be those mk_rules has flags for."""
    if rules.DEAL_PATTERNS != KERNEL_PATTERNS:
        raise SystemExit(f"rules.DEAL_PATTERNS is {rules.DEAL_PATTERNS}: mk_deal_init knows "
                         f"{KERNEL_PATTERNS} only (state.c)")
    if rules.JACK_QUEEN_MODES != KERNEL_JACK_QUEEN_MODES:
        raise SystemExit(f"rules.JACK_QUEEN_MODES is {rules.JACK_QUEEN_MODES}: the kernel knows "
                         f"{KERNEL_JACK_QUEEN_MODES} only (mk_rules.same_suit)")


def render() -> str:
    """The header's text, from the Python homes as they are now."""
    _check_kernel_can_say_the_rules()
    classic = rules.CLASSIC
    lines = [
        PREAMBLE,
        "/* the deal's structure (history.py) */",
        _define("MK_STOCK_CARDS", history.STOCK_CARDS, "hidden stock: deck[13..31] (R5)"),
        _define("MK_PHASE1_TRICKS", history.PHASE1_TRICKS, "tricks with a meld window (R9)"),
        _define("MK_LAST_TRICK", history.LAST_TRICK, "the last trick (R17)"),
        "",
        "/* the fixed scores (rules.py, cards.py) */",
        _define("MK_SEVEN_POINTS", rules.SEVEN_POINTS, "the seven of trumps (R18, R19)"),
        _define("MK_LAST_CARD_POINTS", rules.LAST_CARD_POINTS, "the last stock card (R15)"),
        _define("MK_LAST_TRICK_POINTS", rules.LAST_TRICK_POINTS, "the last trick (R17)"),
        _define("MK_POINT_CARD_POINTS", cards.POINT_CARD_POINTS, "an ace or a ten captured (R2)"),
        "",
        "/* the classic profile: the kernel's rules when none are given (rules.CLASSIC) */",
        _define("MK_CLASSIC_PATTERN_222", int(classic.deal_pattern == (2, 2, 2))),
        _define("MK_CLASSIC_DIX_ON_PLAY", int(classic.dix_on_play)),
        _define("MK_CLASSIC_SAME_SUIT", int(classic.jack_queen == rules.SAME_SUIT)),
        _define("MK_CLASSIC_ONE_MELD", int(classic.one_meld_per_window)),
        _define("MK_CLASSIC_ALL_TRICKS_BONUS", classic.all_tricks_bonus),
        "",
        "/* card points by card 0-31 (cards.CARD_POINTS, R2) */",
        *_table("MK_CARD_POINTS_INIT", [_numbers(cards.CARD_POINTS[s * 8 : s * 8 + 8])
                                        for s in range(4)]),
        "",
        "/* meld values [trump][meld id] (melds.MELD_VALUES, R11) */",
        *_table("MK_MELD_VALUES_INIT", ["{" + _numbers(v) + "}" for v in melds.MELD_VALUES]),
        "",
        "#endif",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the header is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if HEADER.read_text(encoding="utf-8") != text:
            print(f"{HEADER} is stale: run scripts/rules_header.py", file=sys.stderr)
            return 1
        return 0
    tmp = HEADER.with_suffix(".h.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(HEADER)
    print(f"wrote {HEADER}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
