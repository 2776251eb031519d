"""The rules of a table in words, for the web rules page and the terminal help.

:func:`rulebook` turns a :class:`~marjolet.rules.Rules` into a list of
blocks (headings, paragraphs, lists, tables) in one language, from the
catalogue's ``rules.*`` texts and the rule set's values (rules.md: the
profile and its variations, the meld table with values, the worked example
of seed 000). :func:`to_html`, :func:`to_markdown` and :func:`to_text` lay
the same blocks out for a page, the terminal's help and plain text, so every
front end says the same thing.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from marjolet.cards import CARD_POINTS
from marjolet.i18n import number, translate
from marjolet.melds import (
    FOUR_ACES,
    FOUR_KINGS,
    FOUR_QUEENS,
    FOUR_TENS,
    JACK_QUEEN_BASE,
    MARRIAGE_BASE,
    MELD_VALUES,
)
from marjolet.rules import (
    CLASSIC,
    DEAL_PATTERNS,
    ENCYCLOPEDIA,
    LAST_CARD_POINTS,
    LAST_TRICK_POINTS,
    SAME_SUIT,
    SEVEN_POINTS,
    TARGETS,
    Rules,
)


@dataclass(frozen=True, slots=True)
class Block:
    """One piece of the rule book: ``kind`` is ``h2``, ``p``, ``ul``,
    ``table`` (``rows[0]`` is the header row) or ``qa`` (``rows`` are
    question and answer pairs)."""

    kind: str
    text: str = ""
    items: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = ()


def _filled(lang: str, args: dict[str, object]) -> dict[str, object]:
    """A text's values as ``lang`` writes numbers (« 1\u202f000 » in French)."""
    return {
        k: number(v, lang) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in args.items()
    }


def _meld_rows(rules: Rules, lang: str) -> list[tuple[str, ...]]:
    def tr(key: str) -> str:
        return translate(f"rules.{key}", lang)

    jq = ("m_jqs", "m_jqs_t") if rules.jack_queen == SAME_SUIT else ("m_jq", "m_jq_t")
    # the values are the engine's (R11): trumps are suit 0 here, suit 1 is plain
    value = MELD_VALUES[0]
    named = [
        ("m_4A", FOUR_ACES),
        ("m_4T", FOUR_TENS),
        ("m_4K", FOUR_KINGS),
        ("m_4Q", FOUR_QUEENS),
        ("m_kq", MARRIAGE_BASE + 1),
        ("m_kq_t", MARRIAGE_BASE),
        (jq[0], JACK_QUEEN_BASE + 1),
        (jq[1], JACK_QUEEN_BASE),
    ]
    rows: list[tuple[str, ...]] = [(tr("meld_col"), tr("value_col"))]
    return rows + [(tr(key), number(value[m], lang)) for key, m in named]


def settings_rows(rules: Rules, lang: str) -> list[tuple[str, ...]]:
    """The settings table of ``rules`` in ``lang``: a header row, then the
    profile, the target and each variation, a setting and its value a row."""

    def tr(key: str, **args: object) -> str:
        return translate(f"rules.{key}", lang, **_filled(lang, args))

    yes_no = {True: tr("yes"), False: tr("no")}
    return [
        (tr("setting_col"), tr("value_col")),
        (tr("s_profile"), translate(f"lobby.profile_{rules.profile}", lang)),
        (tr("s_target"), number(rules.target, lang)),
        (tr("s_deal_pattern"), "-".join(map(str, rules.deal_pattern))),
        (tr("s_all_tricks_bonus"), number(rules.all_tricks_bonus, lang)),
        (tr("s_dix_on_play"), yes_no[rules.dix_on_play]),
        (tr("s_jack_queen"), tr("jq_same" if rules.jack_queen == SAME_SUIT else "jq_trump")),
        (tr("s_one_meld_per_window"), yes_no[rules.one_meld_per_window]),
    ]


def questions(rules: Rules, lang: str) -> list[tuple[str, str]]:
    """The questions players ask at the table, answered for ``rules`` in
    ``lang`` (docs/rules.md's "Questions players ask" in players' words):
    an answer that a variation changes is the variation's, so the book
    never promises a point or a meld that this table does not give."""

    def tr(key: str, **args: object) -> str:
        return translate(f"rules.faq_{key}", lang, **_filled(lang, args))

    n = SEVEN_POINTS
    several = "several_a_one" if rules.one_meld_per_window else "several_a"
    seven = "last_seven_played" if rules.dix_on_play else "last_seven_not_played"
    jack = "jack_twice_a_same" if rules.jack_queen == SAME_SUIT else "jack_twice_a"
    last = {"last_trick": LAST_TRICK_POINTS, "last_card": LAST_CARD_POINTS}
    bonus = rules.all_tricks_bonus
    all_six = tr("all_six", n=bonus) if bonus else tr("all_six_none")
    target = {"target": rules.target}
    return [
        (tr("follow_q"), tr("follow_a")),
        (tr("lost_q"), tr("lost_a")),
        (tr("several_q"), tr(several)),
        (tr("trick10_q"), tr("trick10_a")),
        (tr("phase2_q"), tr("phase2_a")),
        (tr("last_seven_q"), tr("last_seven_a") + " " + tr(seven, n=n)),
        (tr("shown_q"), tr("shown_a")),
        (tr("four_jacks_q"), tr("four_jacks_a")),
        (tr("jack_twice_q"), tr(jack)),
        (tr("exchanged_q"), tr("exchanged_a", n=n)),
        (tr("turned_q"), tr("turned_a", n=n)),
        (tr("trump_q"), tr("trump_a")),
        (tr("last_points_q", **last), tr("last_points_a", **last) + " " + all_six),
        (tr("both_target_q", **target), tr("both_target_a")),
        (tr("mid_deal_q", **target), tr("mid_deal_a")),
    ]


def profile_values() -> dict[str, object]:
    """The numbers the profiles' paragraph quotes, from the rules' homes."""
    default = tuple(CLASSIC.deal_pattern)
    other = next(p for p in DEAL_PATTERNS if p != default)
    classic_pattern, other_pattern = ("-".join(map(str, p)) for p in (default, other))
    return {
        "classic_pattern": classic_pattern,
        "other_pattern": other_pattern,
        "classic_bonus": CLASSIC.all_tricks_bonus,
        "encyclopedia_bonus": ENCYCLOPEDIA.all_tricks_bonus,
        "long_target": max(TARGETS),
    }


def rulebook(rules: Rules, lang: str) -> list[Block]:
    """The rules of ``rules`` in ``lang``, as blocks."""

    def tr(key: str, **args: object) -> str:
        return translate(f"rules.{key}", lang, **_filled(lang, args))

    profile = translate(f"lobby.profile_{rules.profile}", lang)
    pattern = "-".join(map(str, rules.deal_pattern))
    phase1 = tr("phase1_p") + (" " + tr("one_meld") if rules.one_meld_per_window else "")
    n = SEVEN_POINTS
    seven = [tr("dix_turned", n=n), tr("dix_exchange", n=n)]
    seven.append(tr("dix_played", n=n) if rules.dix_on_play else tr("dix_not_played"))
    seven.append(tr("dix_once", n=n))
    example = tr("example_p")
    if rules.jack_queen == SAME_SUIT:
        example += " " + tr("example_same_suit")
    return [
        Block("p", tr("intro", profile=profile, target=rules.target)),
        Block("h2", tr("cards_h")),
        Block("p", tr("cards_p", pattern=tr(f"pattern_{pattern}", pattern=pattern))),
        Block("h2", tr("phase1_h")),
        Block("p", phase1),
        Block("h2", tr("melds_h")),
        Block("p", tr("melds_p")),
        Block("table", rows=tuple(_meld_rows(rules, lang))),
        Block("h2", tr("dix_h")),
        Block("ul", items=tuple(seven)),
        Block("h2", tr("last_h")),
        Block("p", tr("last_p", n=LAST_CARD_POINTS)),
        Block("h2", tr("phase2_h")),
        Block("p", tr("phase2_p")),
        Block("h2", tr("points_h")),
        Block(
            "ul",
            items=(
                tr("points_cards", n=max(CARD_POINTS), total=sum(CARD_POINTS)),
                tr("points_melds"),
                tr("points_dix", n=SEVEN_POINTS),
                tr("points_last_card", n=LAST_CARD_POINTS),
                tr("points_last_trick", n=LAST_TRICK_POINTS),
                (
                    tr("points_all_six", n=rules.all_tricks_bonus)
                    if rules.all_tricks_bonus
                    else tr("points_all_six_none")
                ),
            ),
        ),
        Block("p", tr("points_match", target=rules.target)),
        Block("h2", tr("example_h")),
        Block("p", example),
        Block("h2", tr("settings_h")),
        Block("table", rows=tuple(settings_rows(rules, lang))),
        Block("h2", tr("profiles_h")),
        Block("p", tr("profiles_p", **profile_values())),
        Block("h2", tr("faq_h")),
        Block("qa", rows=tuple(questions(rules, lang))),
    ]


def to_html(blocks: Sequence[Block], title: str) -> str:
    """The blocks as HTML (every text escaped), under an ``h1``."""
    out = [f"<h1>{escape(title)}</h1>"]
    for b in blocks:
        if b.kind == "table":
            head, *body = b.rows
            cells = "".join(f'<th scope="col">{escape(c)}</th>' for c in head)
            rows = "".join(
                "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in body
            )
            out.append(
                f'<div class="scroll-x"><table class="summary rules-table"><thead><tr>{cells}'
                f"</tr></thead><tbody>{rows}</tbody></table></div>"
            )
        elif b.kind == "qa":
            pairs = "".join(f"<dt>{escape(q)}</dt><dd>{escape(a)}</dd>" for q, a in b.rows)
            out.append(f'<dl class="faq">{pairs}</dl>')
        elif b.kind == "ul":
            out.append("<ul>" + "".join(f"<li>{escape(i)}</li>" for i in b.items) + "</ul>")
        else:
            out.append(f"<{b.kind}>{escape(b.text)}</{b.kind}>")
    return "\n".join(out)


def _md_escape(text: str) -> str:
    return text.replace("*", "\\*").replace("_", "\\_")


def to_markdown(blocks: Sequence[Block], title: str) -> str:
    """The same blocks as Markdown, for the terminal's help screen."""
    out = [f"## {title}", ""]
    for b in blocks:
        if b.kind == "h2":
            out += [f"### {b.text}", ""]
        elif b.kind == "p":
            out += [_md_escape(b.text), ""]
        elif b.kind == "ul":
            out += [f"- {_md_escape(i)}" for i in b.items] + [""]
        elif b.kind == "qa":
            for q, a in b.rows:
                out += [f"**{_md_escape(q)}**", "", _md_escape(a), ""]
        elif b.kind == "table":
            head, *body = b.rows
            out.append("| " + " | ".join(head) + " |")
            out.append("|" + "---|" * len(head))
            out += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in body]
            out.append("")
    return "\n".join(out)


def to_text(blocks: Sequence[Block], title: str, width: int = 78) -> str:
    """The same blocks as plain text ``width`` columns wide, for a terminal
    or a file (``marjolet rules --book``): headings underlined, paragraphs
    and list items wrapped, tables in aligned columns."""
    out = [title, "=" * len(title), ""]
    for b in blocks:
        if b.kind == "h2":
            out += [b.text, "-" * len(b.text), ""]
        elif b.kind == "p":
            out += [*textwrap.wrap(b.text, width), ""]
        elif b.kind == "ul":
            for item in b.items:
                out += textwrap.wrap(item, width, initial_indent="- ", subsequent_indent="  ")
            out.append("")
        elif b.kind == "qa":
            for q, a in b.rows:
                out += textwrap.wrap(q, width)
                out += [*textwrap.wrap(a, width, initial_indent="  ", subsequent_indent="  "), ""]
        elif b.kind == "table":
            out += [*_text_table(b.rows, width), ""]
    return "\n".join(out)


def settings_text(rules: Rules, lang: str, width: int = 78) -> str:
    """The settings of ``rules`` in ``lang`` as a plain-text table, the
    rule book's own (``marjolet rules``): a setting and its value a line."""
    return "\n".join(_text_table(settings_rows(rules, lang), width))


def _text_table(rows: Sequence[tuple[str, ...]], width: int) -> list[str]:
    """A table in aligned columns; one wrapped item a row when the columns
    would not fit in ``width``."""
    sizes = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    if sum(sizes) + 2 * (len(sizes) - 1) > width:
        out: list[str] = []
        for row in rows[1:]:
            item = " — ".join(row)
            out += textwrap.wrap(item, width, initial_indent="- ", subsequent_indent="  ")
        return out
    lines = ["  ".join(map(str.ljust, row, sizes)).rstrip() for row in rows]
    return [lines[0], "  ".join("-" * n for n in sizes), *lines[1:]]


__all__ = [
    "Block",
    "questions",
    "rulebook",
    "settings_rows",
    "settings_text",
    "to_html",
    "to_markdown",
    "to_text",
]
