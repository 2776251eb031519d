"""Rematches between players found online: a seek may be the offer of a
rematch of a finished game, which only the game's other seat may take and
the lobby never lists (``rematch_of``, the game; ``rematch_seat``, the
seat that offered it).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "rematch_of" not in {c["name"] for c in inspector.get_columns("seeks")}:
        op.add_column("seeks", sa.Column("rematch_of", sa.Text))
        op.add_column("seeks", sa.Column("rematch_seat", sa.Integer))
        op.create_index("seeks_by_rematch", "seeks", ["rematch_of", "created"])


def downgrade() -> None:
    op.drop_index("seeks_by_rematch", "seeks")
    op.drop_column("seeks", "rematch_seat")
    op.drop_column("seeks", "rematch_of")
