"""Game events (recaps, briefings), delivery preferences, reply addresses.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0002'
down_revision: str | Sequence[str] | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None



def upgrade() -> None:
    op.create_table('game_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('command_seq', sa.Integer(), nullable=True),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('audience', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('data_json', sa.Text(), nullable=False),
    sa.Column('state_version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], name=op.f('fk_game_events_game_id_games')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_events')),
    sa.UniqueConstraint('game_id', 'seq', name='uq_game_events_game_seq')
    )
    with op.batch_alter_table('game_events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_game_events_game_id'), ['game_id'], unique=False)

    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.add_column(sa.Column('tell_everything', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(sa.Column('sms_live_talk', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reply_to', sqlmodel.sql.sqltypes.AutoString(length=320),
                                      nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbound_messages', schema=None) as batch_op:
        batch_op.drop_column('reply_to')
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('sms_live_talk')
        batch_op.drop_column('tell_everything')
    with op.batch_alter_table('game_events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_game_events_game_id'))
    op.drop_table('game_events')
