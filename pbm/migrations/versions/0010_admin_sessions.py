"""Admin sessions kept on the server: signing out or a changed password ends them.

Revision ID: admin_sessions
Revises: board_image_language
Create Date: 2026-12-07

"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'admin_sessions'
down_revision: str | Sequence[str] | None = 'board_image_language'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'admin_sessions',
        sa.Column('id', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('user', sqlmodel.sql.sqltypes.AutoString(length=60), nullable=False),
        sa.Column('password_tag', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_admin_sessions')),
    )
    op.create_index(op.f('ix_admin_sessions_user'), 'admin_sessions', ['user'])
    op.create_index(op.f('ix_admin_sessions_expires_at'), 'admin_sessions', ['expires_at'])


def downgrade() -> None:
    op.drop_index(op.f('ix_admin_sessions_expires_at'), table_name='admin_sessions')
    op.drop_index(op.f('ix_admin_sessions_user'), table_name='admin_sessions')
    op.drop_table('admin_sessions')
