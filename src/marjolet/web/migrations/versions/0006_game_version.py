"""Several server processes (issue 24): a version per game, bumped by
every change of it (a move, a deal, a forfeit, a friend taking a seat),
which the processes compare to know whether the game they hold in memory
is the one in the database; and, per seek, the hash of the seat token its
owner will be given, so that any process can seat the owner.

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
    inspector = sa.inspect(op.get_bind())
    if "version" not in {c["name"] for c in inspector.get_columns("games")}:
        op.add_column(
            "games", sa.Column("version", sa.Integer, nullable=False, server_default="0")
        )
    if "seat_hash" not in {c["name"] for c in inspector.get_columns("seeks")}:
        op.add_column("seeks", sa.Column("seat_hash", sa.String(64)))


def downgrade() -> None:
    op.drop_column("seeks", "seat_hash")
    op.drop_column("games", "version")
