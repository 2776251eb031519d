"""The lobby's seeks, and which account holds which seat of a game.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("owner_hash", sa.String(64), nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("rating", sa.Float),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("days_per_move", sa.Integer),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("game_id", sa.Text),
        sa.Column("seat", sa.Integer),
        sa.Column("acceptor_id", sa.Integer),
    )
    op.create_index("seeks_by_status", "seeks", ["status", "created"])
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("days_per_move", sa.Integer),
    )
    op.create_index("game_players_by_account", "game_players", ["account_id"])


def downgrade() -> None:
    op.drop_index("game_players_by_account", "game_players")
    op.drop_table("game_players")
    op.drop_index("seeks_by_status", "seeks")
    op.drop_table("seeks")
