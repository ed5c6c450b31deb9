"""A board picture per game version and language (issue 24: a Korean reader's picture is
labelled in Korean); every existing picture is English.

Revision ID: board_image_language
Revises: player_language
Create Date: 2026-12-02

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'board_image_language'
down_revision: str | Sequence[str] | None = 'player_language'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('board_images', schema=None) as batch_op:
        # a constant server default: PostgreSQL adds it without rewriting the table
        batch_op.add_column(sa.Column('language', sa.String(length=8), nullable=False,
                                      server_default='en'))
        batch_op.drop_constraint('uq_board_images_game_version', type_='unique')
        batch_op.create_unique_constraint('uq_board_images_game_version_language',
                                          ['game_id', 'version', 'language'])


def downgrade() -> None:
    op.execute("DELETE FROM board_images WHERE language <> 'en'")
    with op.batch_alter_table('board_images', schema=None) as batch_op:
        batch_op.drop_constraint('uq_board_images_game_version_language', type_='unique')
        batch_op.create_unique_constraint('uq_board_images_game_version',
                                          ['game_id', 'version'])
        batch_op.drop_column('language')
