"""Names that look alike: each account's name as a reader sees it, accents
and case set aside ("Amélie", "amelie" and "AMELIE" look the same), kept
unique, so that no new account, and no guest, can pass for an account.
Accounts made before this revision keep their names; where two of them
already look alike, the later one gets no look (NULL) and stays as it is.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


#: Latin letters that no Unicode decomposition splits into a base letter
#: and a mark, written as they are read ("Ørjan" looks like "Orjan").
_UNSPLIT = str.maketrans(
    {"Ø": "O", "ø": "o", "Æ": "AE", "æ": "ae", "Œ": "OE", "œ": "oe", "Đ": "D", "đ": "d",
     "Ł": "L", "ł": "l", "Ð": "D", "ð": "d", "Þ": "TH", "þ": "th", "ı": "i"}
)  # fmt: skip


def _look(name: str) -> str:
    """The fold of this revision (frozen here: ``accounts.name_look`` is
    the running server's, and a test checks that they agree)."""
    decomposed = unicodedata.normalize("NFKD", name).translate(_UNSPLIT)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def upgrade() -> None:
    bind = op.get_bind()
    if "name_look" not in {c["name"] for c in sa.inspect(bind).get_columns("accounts")}:
        op.add_column("accounts", sa.Column("name_look", sa.String(100)))
    accounts = sa.table(
        "accounts", sa.column("id", sa.Integer), sa.column("name"), sa.column("name_look")
    )
    seen: set[str] = set()
    for row in bind.execute(sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.id)):
        look = _look(row.name)
        if look in seen:
            continue
        seen.add(look)
        bind.execute(accounts.update().where(accounts.c.id == row.id).values(name_look=look))
    op.create_index("accounts_by_look", "accounts", ["name_look"], unique=True)


def downgrade() -> None:
    # a plain ALTER TABLE ... DROP COLUMN (SQLite 3.35 or later): a batch
    # would copy the accounts table, which the sessions' foreign keys forbid
    op.drop_index("accounts_by_look", table_name="accounts")
    op.drop_column("accounts", "name_look")
