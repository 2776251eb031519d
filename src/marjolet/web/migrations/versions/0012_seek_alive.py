"""A live seek's sign of life: ``seeks.alive``, the last time its owner
was seen following it. A live seek whose owner left (the tab closed) is
no longer listed nor accepted, so nobody is seated in a game against a
player who is not there. Seeks made before this revision have none: the
open live ones among them leave the lobby.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if "alive" not in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("seeks")}:
        op.add_column("seeks", sa.Column("alive", sa.Float))


def downgrade() -> None:
    op.drop_column("seeks", "alive")
