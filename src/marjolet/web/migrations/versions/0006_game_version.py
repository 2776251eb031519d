"""A version per game, bumped by every change of it (a move, a deal, a
forfeit, a friend taking a seat): several server processes compare it to
know whether the game they hold in memory is the one in the database.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("games")}
    if "version" in columns:
        return
    op.add_column("games", sa.Column("version", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("games", "version")
