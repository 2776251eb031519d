"""Names that look alike, look-alike letters too: each account's
``name_look`` recomputed with the fold that also sets aside the Greek and
Cyrillic letters that pass for Latin ones ("аlice" with a Cyrillic а looks
like "alice"), a capital I after a small letter (an l), and "0", "1", "rn"
(o, l, m), in the manner of Unicode TR39's skeleton. Accounts keep their
names, as in revision 0011: where two of them now look alike, the earlier
keeps the look and the later one gets none (NULL), logs in as before, and
no new account or guest may take a name that looks like either.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

#: The folds of revision 0011 and of this one, frozen here
#: (``accounts.name_look`` is the running server's; a test checks that
#: this revision's agrees with it).
_UNSPLIT = str.maketrans(
    {"Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Đ": "D", "đ": "d",
     "Ł": "L", "ł": "l", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th", "ı": "i"}
)  # fmt: skip
_PROTOTYPES = str.maketrans(
    "ͿΑΒΕΖΗΘΙΚΜΝΟΡΤΥΧαγηθινορσυϜϳϺЅІЈАБВЕКМНОРСТУХЬагеорсухѕіјћѡѢѣѲѳѴѵѽҌҍғҚҞҢҪҫҬҮүҰұҲһҽҿ"
    "ӀӇӉӍӏӨөԁԌԛԜԝᴦꙇꚕ",
    "JABEZHOIKMNOPTYXaynOivopouFjMSIJAbBEKMHOPCTYXbareopcyxsijhwbbOoVvwbbrKKHCcTYyYyXhee"
    "IHHMiOodGqWwrih",
)
_CAPITAL_I_AS_L = re.compile(r"(?<=[a-z])I")
_ASCII_LOOKALIKES = (("0", "o"), ("1", "l"), ("|", "l"), ("rn", "m"))


def _bare(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name).translate(_UNSPLIT)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _look_0011(name: str) -> str:
    return _bare(name).casefold()


def _look(name: str) -> str:
    look = _CAPITAL_I_AS_L.sub("l", _bare(name).translate(_PROTOTYPES)).casefold()
    for lookalike, letter in _ASCII_LOOKALIKES:
        look = look.replace(lookalike, letter)
    return look


def _recompute(fold: Callable[[str], str]) -> None:
    """Every account's look by ``fold``, the earliest account first: a
    later one that looks like an earlier one gets none. All are cleared
    first, so no new look meets an old one still in place (unique index)."""
    bind = op.get_bind()
    accounts = sa.table(
        "accounts", sa.column("id", sa.Integer), sa.column("name"), sa.column("name_look")
    )
    rows = bind.execute(sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.id)).all()
    bind.execute(accounts.update().values(name_look=None))
    seen: set[str] = set()
    for row in rows:
        look = fold(row.name)
        if look in seen:
            continue
        seen.add(look)
        bind.execute(accounts.update().where(accounts.c.id == row.id).values(name_look=look))


def upgrade() -> None:
    _recompute(_look)


def downgrade() -> None:
    _recompute(_look_0011)
