"""Deadlines in the player's calendar (the event's due time and SEQUENCE per deadline) and
the extra MIME parts of outbound emails (calendar events, inline pictures).

Revision ID: calendar
Revises: player_settings
Create Date: 2026-12-01

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'calendar'
down_revision: str | Sequence[str] | None = 'player_settings'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ADD COLUMN: a SQLite batch copy could lose 0004's partial indexes on deadlines
    op.add_column('deadlines', sa.Column('calendar_due_at', sa.DateTime(timezone=True),
                                         nullable=True))
    op.add_column('deadlines', sa.Column('calendar_sequence', sa.Integer(), nullable=False,
                                         server_default='0'))
    op.create_table(
        'outbound_parts',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('outbox_id', sa.Integer(), nullable=False),
        sa.Column('content_type', sa.String(length=100), nullable=False),
        sa.Column('filename', sa.String(length=100), nullable=False),
        sa.Column('content_id', sa.String(length=100), nullable=True),
        sa.Column('content', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['outbox_id'], ['outbound_messages.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index(op.f('ix_outbound_parts_outbox_id'), 'outbound_parts', ['outbox_id'],
                    unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_outbound_parts_outbox_id'), table_name='outbound_parts')
    op.drop_table('outbound_parts')
    with op.batch_alter_table('deadlines', schema=None) as batch_op:
        batch_op.drop_column('calendar_sequence')
        batch_op.drop_column('calendar_due_at')
