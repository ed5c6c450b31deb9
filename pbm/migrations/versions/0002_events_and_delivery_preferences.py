"""Delivery preferences (tell me everything, live table talk by SMS) and reply addresses.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29

"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0002'
down_revision: str | Sequence[str] | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

assert sqlmodel  # autogenerate may refer to sqlmodel.sql.sqltypes


def upgrade() -> None:
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
