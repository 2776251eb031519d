"""The help screen: the keys and the rules of the match (press ``h`` or F1).

The rules are the web rules page's rule book (:mod:`marjolet.i18n.rulebook`)
laid out in Markdown, so the terminal and the browser say the same thing."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from marjolet.i18n.rulebook import rulebook, to_markdown
from marjolet.rules import Rules
from marjolet.tui.launch import resume_command
from marjolet.tui.words import lang, tr, translate_bindings


def keys_text(resume: str = "") -> str:
    """The keys of the game, in the player's language (Markdown), with
    ``resume``, the command that continues this match (the session's
    :attr:`~marjolet.tui.session.GameSession.resume_hint`)."""
    return tr("tui.help_keys", resume=resume or resume_command())


def rules_text(rules: Rules) -> str:
    """The rules of ``rules`` in the player's language: the same rule book
    as the web's rules page (:mod:`marjolet.i18n.rulebook`)."""
    return to_markdown(rulebook(rules, lang()), tr("rules.title"))


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
                yield Markdown(keys_text(self.resume) + "\n\n" + rules_text(self.rules))
            yield Static(tr("tui.help_scroll"), id="help-keys")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
