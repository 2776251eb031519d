"""``marjolet bots [--json]``: the bots, their parameters and defaults."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


def run(args: argparse.Namespace) -> int:
    from marjolet import kernel
    from marjolet.bots import STRONGEST, bot_names
    from marjolet.bots.levels import LEVELS
    from marjolet.bots.registry import EXEC, bot_class

    rows: list[dict[str, Any]] = []
    for name in bot_names():
        try:
            cls = bot_class(name)
        except ImportError as exc:  # a bot of an optional extra that is not installed
            rows.append(
                {
                    "name": name,
                    "description": f"unavailable: {exc}",
                    "sees_hidden_cards": False,
                    "params": [],
                }
            )
            continue
        rows.append(
            {
                "name": name,
                "description": cls.description,
                "sees_hidden_cards": cls.sees_hidden_cards,
                "params": [
                    {"name": p.name, "type": p.type.__name__, "default": p.default, "help": p.help}
                    for p in cls.params
                ],
            }
        )
    #: what is written as a spec but is not a bot name: a program of one's own
    forms = [_row(EXEC, bot_class(EXEC), "exec:PATH or exec:path=PATH,budget_s=S")]
    levels = [{"spec": f"level:{lv.key}", "bot": lv.spec} for lv in LEVELS]
    if args.json:
        print(
            json.dumps(
                {
                    "bots": rows,
                    "forms": forms,
                    "levels": levels,
                    "strongest": STRONGEST,
                    "kernel": kernel.available(),
                    "engine": kernel.description(),
                }
            )
        )
        return 0
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
    print(f"Engine: {kernel.description()}")
    return 0


def _row(name: str, cls: Any, form: str) -> dict[str, Any]:
    """A listing row for a bot that is not a registered name (``exec``)."""
    return {
        "name": name,
        "form": form,
        "description": f"{cls.description} (docs/bot-protocol.md)",
        "sees_hidden_cards": cls.sees_hidden_cards,
        "params": [
            {"name": p.name, "type": p.type.__name__, "default": p.default, "help": p.help}
            for p in cls.params
        ],
    }
