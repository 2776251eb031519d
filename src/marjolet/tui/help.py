"""The help screen: the keys and the rules of the match (press ``h`` or F1).

The rules are the web rules page's rule book (:mod:`marjolet.i18n.rulebook`)
laid out in Markdown, so the terminal and the browser say the same thing."""

from __future__ import annotations

import functools
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static
from textual.widgets.markdown import MarkdownBlock

from marjolet.i18n.rulebook import rulebook, to_markdown
from marjolet.rules import Rules
from marjolet.tui.launch import resume_command
from marjolet.tui.words import lang, tr, translate_bindings
from marjolet.tui.wrapping import hide_unbreakable_spaces, show_unbreakable_spaces


def keys_text(resume: str = "") -> str:
    """The keys of the game, in the player's language (Markdown), with
    ``resume``, the command that continues this match (the session's
    :attr:`~marjolet.tui.session.GameSession.resume_hint`)."""
    return tr("tui.help_keys", resume=resume or resume_command())


def rules_text(rules: Rules) -> str:
    """The rules of ``rules`` in the player's language: the same rule book
    as the web's rules page (:mod:`marjolet.i18n.rulebook`)."""
    return to_markdown(rulebook(rules, lang()), tr("rules.title"))


class UnbreakableMarkdown(Markdown):
    """Markdown that keeps the unbreakable spaces of French (« visible\u00a0: »).

    Textual's Markdown turns every run of whitespace in a text into one
    plain space, the unbreakable ones included, so a wrapped line could
    start with « : ». The source is read with each unbreakable space
    hidden as a private-use stand-in (:mod:`marjolet.tui.wrapping`), and
    each block shows it again once its text is built."""

    def __init__(self, markdown: str) -> None:
        super().__init__(hide_unbreakable_spaces(markdown))

    def get_block_class(self, block_name: str) -> type[MarkdownBlock]:
        return _showing_unbreakable_spaces(super().get_block_class(block_name))


@functools.cache
def _showing_unbreakable_spaces(block: type[MarkdownBlock]) -> type[MarkdownBlock]:
    """A subclass of ``block`` (the same CSS type) that shows the hidden
    unbreakable spaces of its text."""

    def set_content(self: MarkdownBlock, content: Content) -> None:
        shown = Content(show_unbreakable_spaces(content.plain), list(content.spans))
        block.set_content(self, shown)

    return type(block.__name__, (block,), {"set_content": set_content})


class HelpScreen(ModalScreen[None]):
    """The rules in brief and the keys, scrollable, fitting 80x24."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,h,f1,q", "close", "Close"),
    ]

    def __init__(self, rules: Rules, resume: str = "") -> None:
        super().__init__()
        translate_bindings(self._bindings)
        self.rules = rules
        self.resume = resume

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = tr("tui.help_title")
            with VerticalScroll():
                yield UnbreakableMarkdown(keys_text(self.resume) + "\n\n" + rules_text(self.rules))
            yield Static(tr("tui.help_scroll"), id="help-keys")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
