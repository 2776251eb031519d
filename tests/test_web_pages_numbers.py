"""The numbers the pages write for a player (scores, targets), as the
server's :func:`marjolet.i18n.number` writes them: « 1 000 » in French,
1000 in English. ``common.js`` is run by Node with the few browser objects
it asks for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from marjolet.i18n import number

STATIC = Path(__file__).resolve().parent.parent / "src" / "marjolet" / "web" / "static"
CATALOGUES = STATIC.parent.parent / "i18n" / "catalogues"
NODE = shutil.which("node")

#: Loads common.js in the language asked, then prints what it writes.
SCRIPT = """
globalThis.location = { search: "?lang=" + process.argv[3] };
globalThis.localStorage = { setItem() {}, getItem() { return null; } };
globalThis.navigator = { languages: [] };
const marked = [{ dataset: { number: "1000" }, textContent: "1000" }];
globalThis.document = {
  documentElement: {}, cookie: "", querySelector: () => null,
  querySelectorAll: (selector) => (selector === "[data-number]" ? marked : []),
};
const { readFileSync } = await import("node:fs");
const catalogue = (url) =>
  JSON.parse(readFileSync(new URL(url.split("/").pop(), process.argv[5]), "utf8"));
globalThis.fetch = async (url) =>
  ({ ok: true, json: async () => (url.startsWith("/i18n/") ? catalogue(url) : {}) });
const common = await import(process.argv[2]);
await common.loadLanguage();
const values = JSON.parse(process.argv[4]);
console.log(JSON.stringify({
  numbers: values.map((v) => common.number(v)),
  score: common.scoreText(1040, 980),
  marked: marked[0].textContent,
  ratings: [common.ratingText(1500, false), common.ratingText(1662, true)],
}));
"""

VALUES = [0, 500, 999, 1000, 1040, 10_000, 1_234_567, -2500]


def _written(lang: str, tmp_path: Path) -> dict[str, object]:
    script = tmp_path / "numbers.mjs"
    script.write_text(SCRIPT, encoding="utf-8")
    args = [str(NODE), str(script), (STATIC / "common.js").as_uri(), lang, json.dumps(VALUES),
            CATALOGUES.as_uri() + "/"]  # fmt: skip
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True)
    result: dict[str, object] = json.loads(out.stdout)
    return result


@pytest.mark.skipif(NODE is None, reason="needs Node to run the pages' JavaScript")
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_pages_write_a_number_as_the_server_does_in_each_language(
    lang: str, tmp_path: Path
) -> None:
    written = _written(lang, tmp_path)
    assert written["numbers"] == [number(v, lang) for v in VALUES]
    assert written["ratings"] == [number(1500, lang), f"{number(1662, lang)}, " + (
        "provisoire" if lang == "fr" else "provisional"
    )]
    if lang == "fr":
        assert written["score"] == "1\u202f040\u00a0–\u00a0980"
        assert written["marked"] == "1\u202f000"  # the lobby's target menu
    else:
        assert (written["score"], written["marked"]) == ("1040\u00a0–\u00a0980", "1000")


def test_the_lobby_s_target_menu_writes_its_labels_as_numbers_its_values_as_digits() -> None:
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    menu = re.search(r'<select name="target">(.*?)</select>', page)
    assert menu is not None
    options = re.findall(r'<option value="(\d+)"([^>]*)>(\d+)</option>', menu.group(1))
    assert options and all(value == label for value, _, label in options)
    for value, marks, _ in options:  # each label of 1000 or more rewritten in the page's language
        assert int(value) < 1000 or f'data-number="{value}"' in marks, value


def test_the_score_tables_write_each_score_and_target_through_number() -> None:
    """Every score and target the board, the table and the replay put in a
    cell or a sentence goes through ``number``, the one place that writes
    them in the page's language."""
    board = (STATIC / "board.js").read_text(encoding="utf-8")
    bare = re.findall(
        r'el\("td", \{ class: "num" \}, (?!number\()[^)]*(?:points|score|totals|breakdown)', board
    )
    assert not bare, bare
    sources = "".join((STATIC / name).read_text(encoding="utf-8")
                      for name in ("board.js", "table.js", "replay.js", "online.js"))  # fmt: skip
    bare_value = r"\b\w+: ((?!number\()[\w.]*(?:target|totals|running|points)\b)"
    said = [  # the values a sentence of the catalogue is given: t("key", { n: ... })
        value
        for args in re.findall(r'\bt\("[\w.]+", \{([^}]*)\}', sources)
        for value in re.findall(bare_value, args)
    ]
    assert not said, said


def test_every_rating_a_page_shows_goes_through_number() -> None:
    """A rating (about 1500) is written as any other number: « 1 500 » in
    French. The lobby, the table's nameplates and end line go through
    ``ratingText``; the profile writes its rating, its interval, the chart's
    labels and its points itself, each through ``number``."""
    profile = (STATIC / "profile.js").read_text(encoding="utf-8")
    bare = re.findall(r"\b(?:rating|low|high): (?!number\()[^,}]+", profile)
    assert not bare, bare
    ticks = re.findall(r'class: v === points\[last\][^}]*\}, ([^)]*\))', profile)
    assert ticks and all(tick.startswith("number(") for tick in ticks), ticks
    sources = "".join(
        (STATIC / name).read_text(encoding="utf-8") for name in ("online.js", "board.js")
    )
    said = re.findall(r"\brating: ((?!ratingText\(|number\()[^,}]+)", sources)
    assert [value.strip() for value in said] == ["view.ratings[player]"], said  # ratingOf
    table = (STATIC / "table.js").read_text(encoding="utf-8")
    mapped = re.findall(r"ratings = \[0, 1\]\.map\((\w+)\)", table)
    assert mapped == ["ratingOf", "ratingOf"]
    for rating in re.findall(r"\brating: ([^\n]*)", table):  # through ratingText, ratingOf's too
        assert set(re.findall(r"\b(\w+)\(", rating)) <= {"ratingOf", "ratingText"}, rating
    assert "ratingText(account.rating, account.provisional)" in table  # ratingOf
    change = re.search(r"change: (.*)", table)
    assert change is not None and change.group(1).count("number(") == 2, change
