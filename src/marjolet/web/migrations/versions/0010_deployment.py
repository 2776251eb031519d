"""One deployment, one set of settings: the settings that every process
sharing the database must share (the broker's identity, the rules of
claims and abandonment, the rate limit, the proxy), one row each, written
by the first process and checked by every later one at its start
(see marjolet.web.deployment).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if sa.inspect(op.get_bind()).has_table("deployment"):
        return
    op.create_table(
        "deployment",
        sa.Column("setting", sa.String(40), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("changed", sa.Float, nullable=False),
        sa.Column("changed_by", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deployment")
