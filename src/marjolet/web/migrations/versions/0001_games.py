"""The games, deals and actions of every game (the schema of marjolet's
hand-made version 2, which older files are stamped as).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Text, primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
        sa.Column("mode", sa.Text, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("first_dealer", sa.Integer, nullable=False),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("token_hashes", sa.Text, nullable=False),
        sa.Column("invite_hash", sa.Text),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("totals", sa.Text, nullable=False),
        sa.Column("winner", sa.Integer),
        sa.Column("deal_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("action_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("forfeit", sa.Text),
    )
    op.create_index("games_by_update", "games", ["updated"])
    op.create_table(
        "deals",
        sa.Column("game_id", sa.Text, sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("deck", sa.Text, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("deal", sa.Integer, primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.ForeignKeyConstraint(["game_id", "deal"], ["deals.game_id", "deals.idx"]),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("deals")
    op.drop_index("games_by_update", "games")
    op.drop_table("games")
