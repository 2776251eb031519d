"""The browser of each "Play now" place (a random id the page keeps), so
two places of one browser (a guest's two tabs, or a page that queued
again) are never paired together.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "browser" not in {c["name"] for c in inspector.get_columns("play_now")}:
        op.add_column("play_now", sa.Column("browser", sa.String(64)))


def downgrade() -> None:
    op.drop_column("play_now", "browser")
