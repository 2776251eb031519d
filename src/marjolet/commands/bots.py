"""``marjolet bots [--json]``: the bots, their parameters and defaults."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def run(args: argparse.Namespace) -> int:
    """List the bots, with their parameters and defaults, the other forms a
    spec takes, the player levels and the engine: as text, or as JSON."""
    # the kernel first: a bad MARJOLET_KERNEL is refused as such, not taken
    # for a bot's missing extra
    from marjolet import kernel
    from marjolet.bots.levels import LEVELS
    from marjolet.bots.registry import EXEC, bot_class

    rows = _bot_rows()
    #: what is written as a spec but is not a bot name: a program of one's own
    forms = [_row(EXEC, bot_class(EXEC), "exec:PATH or exec:path=PATH,budget_s=S")]
    levels = [{"spec": f"level:{lv.key}", "bot": lv.spec} for lv in LEVELS]
    if args.json:
        _print_json(rows, forms, levels, kernel.available(), kernel.description())
    else:
        _print_text(rows, forms, levels, kernel.description())
    return 0


def _bot_rows() -> list[dict[str, Any]]:
    """A listing row for each registered bot, in the registry's order."""
    from marjolet.bots import bot_names

    return [_bot_row(name) for name in bot_names()]


def _bot_row(name: str) -> dict[str, Any]:
    """A registered bot's row; a bot of an optional extra that is not
    installed is listed as unavailable, with the reason."""
    from marjolet.bots.registry import bot_class

    try:
        cls = bot_class(name)
    except ImportError as exc:  # a bot of an optional extra that is not installed
        return {
            "name": name,
            "description": f"unavailable: {exc}",
            "sees_hidden_cards": False,
            "params": [],
        }
    return {
        "name": name,
        "description": cls.description,
        "sees_hidden_cards": cls.sees_hidden_cards,
        "params": _params(cls),
    }


def _params(cls: Any) -> list[dict[str, Any]]:
    """A bot class's parameters: name, type, default and help of each."""
    return [
        {"name": p.name, "type": p.type.__name__, "default": p.default, "help": p.help}
        for p in cls.params
    ]


def _print_json(
    rows: list[dict[str, Any]],
    forms: list[dict[str, Any]],
    levels: list[dict[str, str]],
    kernel_available: bool,
    engine: str,
) -> None:
    """The listing as one JSON object, for programs."""
    from marjolet.bots import STRONGEST

    print(
        json.dumps(
            {
                "bots": rows,
                "forms": forms,
                "levels": levels,
                "strongest": STRONGEST,
                "kernel": kernel_available,
                "engine": engine,
            }
        )
    )


def _print_text(
    rows: list[dict[str, Any]],
    forms: list[dict[str, Any]],
    levels: list[dict[str, str]],
    engine: str,
) -> None:
    """The listing as text: each bot and its parameters, then how to write
    a spec, the player levels, the default opponent and the engine."""
    from marjolet.bots import STRONGEST

    for row in rows + forms:
        print(f"{row.get('form', row['name'])}: {row['description']}")
        for p in row["params"]:
            default = f"{p['name']}={p['default']}"
            print(f"    {default:<20} {p['type']:<6} {p['help']}")
    print()
    print("Spec strings: NAME or NAME:key=value,...   e.g. pimc:worlds=64,time=1.0")
    print(
        "Player levels (the game's menus): "
        + ", ".join(f"{lv['spec']} = {lv['bot']}" for lv in levels)
    )
    print(f"Default opponent (strongest within about a second a move): {STRONGEST}")
    print(f"Engine: {engine}")


def _row(name: str, cls: Any, form: str) -> dict[str, Any]:
    """A listing row for a bot that is not a registered name (``exec``)."""
    return {
        "name": name,
        "form": form,
        "description": f"{cls.description} (docs/bot-protocol.md)",
        "sees_hidden_cards": cls.sees_hidden_cards,
        "params": _params(cls),
    }
