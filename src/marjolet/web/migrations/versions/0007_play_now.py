"""Several server processes (issue 24), the jobs left: the "Play now"
queue as rows of the database, which any process joins, answers and pairs
(its pairing run by the one owner of the ``pairing`` lease); and a note
with each lease, in which a job's owner tells the other processes how far
it is (a review's progress).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "note" not in {c["name"] for c in inspector.get_columns("leases")}:
        op.add_column("leases", sa.Column("note", sa.String(64)))
    if inspector.has_table("play_now"):
        return
    op.create_table(
        "play_now",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seen", sa.Float, nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("bot_after", sa.Float),
        sa.Column("seat_hash", sa.String(64), nullable=False),
        sa.Column("game_id", sa.Text),
        sa.Column("seat", sa.Integer),
        sa.Column("claimed", sa.Float),
    )
    op.create_index("play_now_by_game", "play_now", ["game_id"])


def downgrade() -> None:
    op.drop_column("leases", "note")
    op.drop_index("play_now_by_game", "play_now")
    op.drop_table("play_now")
