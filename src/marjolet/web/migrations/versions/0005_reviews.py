"""The reviews computed by the server (a table that marjolet's review
service used to create on its own: kept as it is where it exists).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("reviews"):
        return
    op.create_table(
        "reviews",
        sa.Column("game_id", sa.Text, primary_key=True),
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("view", sa.String(10), primary_key=True),
        sa.Column("budget", sa.Float, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reviews")
