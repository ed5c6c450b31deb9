"""The question each outbound message asked (the game's stage and the seat), so that a reply
to an older message is known to answer a question that is already settled.

Revision ID: outbound_question
Revises: calendar
Create Date: 2026-12-02

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'outbound_question'
down_revision: str | Sequence[str] | None = 'calendar'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN (nullable, no default): instant on PostgreSQL, no SQLite batch copy
    op.add_column('outbound_messages', sa.Column('question', sa.String(length=40),
                                                 nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.drop_column('question')
