"""Players' own settings by reply (quiet hours, away, calendar) and seats' away allowance.

Revision ID: player_settings
Revises: 0003
Create Date: 2026-12-01

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'player_settings'
down_revision: str | Sequence[str] | None = 'hot_path_indexes'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN on both databases: a batch (copy-and-move) on SQLite would drop the
    # expression index ix_players_email_lower, which SQLite reflection does not see.
    op.add_column('players', sa.Column('quiet_start', sa.Integer(), nullable=True))
    op.add_column('players', sa.Column('quiet_end', sa.Integer(), nullable=True))
    op.add_column('players', sa.Column('away_until', sa.DateTime(timezone=True), nullable=True))
    op.add_column('players', sa.Column('calendar', sa.Boolean(), nullable=False,
                                       server_default=sa.false()))
    op.add_column('seats', sa.Column('away_until', sa.DateTime(timezone=True), nullable=True))
    op.add_column('seats', sa.Column('away_used_seconds', sa.Integer(), nullable=False,
                                     server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_column('away_used_seconds')
        batch_op.drop_column('away_until')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('calendar')
        batch_op.drop_column('away_until')
        batch_op.drop_column('quiet_end')
        batch_op.drop_column('quiet_start')
    # the SQLite batch above rebuilt players without its expression index: put it back
    op.create_index('ix_players_email_lower', 'players', [sa.text('lower(email)')],
                    if_not_exists=True)
