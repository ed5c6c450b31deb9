"""Each player's language: "en" (every existing player) or "ko" (LANG KO).

Revision ID: player_language
Revises: outbound_question
Create Date: 2026-12-02

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'player_language'
down_revision: str | Sequence[str] | None = 'outbound_question'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a constant server default: PostgreSQL adds it without rewriting the table
    op.add_column('players', sa.Column('language', sa.String(length=8), nullable=False,
                                       server_default='en'))


def downgrade() -> None:
    with op.batch_alter_table('players', schema=None) as batch_op:
        batch_op.drop_column('language')
