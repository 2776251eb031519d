"""Unbreakable spaces kept whole by the terminal's line wrapping.

French sets a space before ``:`` ``;`` ``?`` ``!`` ``%`` and inside « »,
and the catalogue writes it unbreakable (U+00A0, or the narrow U+202F) so
that a wrapped line never starts with the sign. Rich and Textual wrap at
any character that Python's ``\\s`` matches, the unbreakable spaces
included (Textualize/rich#4196, still open), so on their own they would
still break there. :func:`keep_unbreakable_spaces` replaces the one
pattern each of them splits words with (``rich._wrap.re_word`` and
``textual._wrap.re_chunk``, read at every call) by the same pattern with
the unbreakable spaces counted as part of a word: the upstream fix
proposed in rich#3990. A test checks both libraries still wrap through
these names, so an upgrade that moves them fails loudly, not silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: Spaces a line must not break at: no-break, narrow no-break, figure space.
UNBREAKABLE = "\u00a0\u202f\u2007"
_BREAKABLE = rf"[^\S{UNBREAKABLE}]"  # whitespace a line may break at
_WORD_CHAR = rf"[^\s]|[{UNBREAKABLE}]"


#: (module, name, pattern): each library's word pattern, with the
#: unbreakable spaces counted inside words.
PATTERNS = (
    ("rich._wrap", "re_word", rf"{_BREAKABLE}*(?:{_WORD_CHAR})+{_BREAKABLE}*"),
    ("textual._wrap", "re_chunk", rf"(?:{_WORD_CHAR})+{_BREAKABLE}*|{_BREAKABLE}+"),
)


def keep_unbreakable_spaces() -> None:
    """Make Rich's and Textual's wrapping keep unbreakable spaces inside a
    word (idempotent; call before the first screen is drawn). A library
    that no longer wraps through that name is left as it is: the game still
    runs, and the test of the wrapping fails."""
    import importlib

    for module_name, name, pattern in PATTERNS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if isinstance(getattr(module, name, None), re.Pattern):
            setattr(module, name, re.compile(pattern))


#: Stand-ins for the unbreakable spaces while Textual's Markdown reads a
#: text: it collapses every run of ``\\s`` into one plain space
#: (``re.sub(r"\\s+", " ", ...)`` on each text token), which would undo them.
#: They are punctuation (rare dots of Unicode's supplemental punctuation),
#: as a space is neither letter nor digit for Markdown: ``**?**`` before
#: « : » closes its bold only if what follows it is a space or punctuation.
_STAND_INS = dict(zip(UNBREAKABLE, "\u2e31\u2e33\u2e30", strict=True))
_HIDE = str.maketrans(_STAND_INS)
_SHOW = str.maketrans({v: k for k, v in _STAND_INS.items()})


def hide_unbreakable_spaces(text: str) -> str:
    """``text`` with each unbreakable space replaced by its stand-in."""
    return text.translate(_HIDE)


def show_unbreakable_spaces(text: str) -> str:
    """The inverse of :func:`hide_unbreakable_spaces`."""
    return text.translate(_SHOW)


def fit_to_terminal(text: str, width: int | None = None, keep: Sequence[str] = ()) -> str:
    """``text`` wrapped for the line interface: each line to ``width``
    columns (the terminal's, 80 in a pipe), between words only, a line such
    as ``  help   this text`` going on under its text. ``textwrap`` breaks
    only at ASCII whitespace, so the unbreakable spaces stay whole; each
    text of ``keep`` (a command to paste) is wrapped as one word."""
    import shutil
    import textwrap

    if width is None:
        width = shutil.get_terminal_size((80, 24)).columns - 1
    marks = {chr(1 + i) * len(whole): whole for i, whole in enumerate(keep) if whole}
    for mark, whole in marks.items():
        text = text.replace(whole, mark)
    lines = []
    for line in text.split("\n"):
        hang = re.match(r"\s+\S+\s+", line)
        indent = " " * (hang.end() if hang else 0)
        wrap = textwrap.TextWrapper(max(width, 20), subsequent_indent=indent,
                                    break_long_words=False, break_on_hyphens=False)  # fmt: skip
        lines.append(wrap.fill(line) or line)
    fitted = "\n".join(lines)
    for mark, whole in marks.items():
        fitted = fitted.replace(mark, whole)
    return fitted


__all__ = ["PATTERNS", "UNBREAKABLE", "fit_to_terminal", "keep_unbreakable_spaces"]
