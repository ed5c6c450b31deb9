"""Indexes for every hot-path query, and ``seats.thread_started`` instead of a lookup.

A decision used to look up ``outbound_messages.message_id`` (no index) to learn whether a
seat's email thread had started: a full scan of the outbox per email, growing with history.
``seats.thread_started`` answers it from the seat row already loaded (backfilled here).

Partial indexes cover the queries that filter on a status (open deadlines, unsent outbox
rows, unfinished inbound rows, players who asked for digests), so they stay as small as the
work waiting, not as large as the history. ``tests/pbm/test_query_plans.py`` checks on
PostgreSQL that no hot-path query plans a sequential scan.

Revision ID: hot_path_indexes
Revises: 0003
Create Date: 2026-11-30 10:00:00

"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = 'hot_path_indexes'
down_revision: str | Sequence[str] | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("status = 'open'")
UNSENT = sa.text("status IN ('pending', 'sending')")
UNFINISHED = sa.text("status IN ('new', 'processing')")

#: (name, table, columns, partial WHERE or None)
INDEXES: list[tuple[str, str, list[object], sa.TextClause | None]] = [
    # the sweep: reminders and expired deadlines by time; a game's open deadlines
    ('ix_deadlines_open_next_reminder_at', 'deadlines', ['next_reminder_at'], OPEN),
    ('ix_deadlines_open_due_at', 'deadlines', ['due_at'], OPEN),
    ('ix_deadlines_open_game_id', 'deadlines', ['game_id', 'seat'], OPEN),
    # outbox: relay and pending rows; threads (In-Reply-To routing); Twilio status reports
    ('ix_outbound_messages_unsent', 'outbound_messages', ['id'], UNSENT),
    ('ix_outbound_messages_message_id', 'outbound_messages', ['message_id'],
     sa.text('message_id IS NOT NULL')),
    ('ix_outbound_messages_provider_id', 'outbound_messages', ['provider_id'],
     sa.text('provider_id IS NOT NULL')),
    # inbound: relay of unfinished rows; the per-sender hourly rate limit
    ('ix_inbound_messages_unfinished', 'inbound_messages', ['id'], UNFINISHED),
    ('ix_inbound_messages_sender_received_at', 'inbound_messages',
     ['sender', 'channel', 'received_at'], None),
    # digests: the few players who asked for "tell me everything"
    ('ix_players_tell_everything', 'players', ['id'], sa.text('tell_everything IS true')),
    # email routing by sender when a reply has no token
    ('ix_players_email_lower', 'players', [sa.text('lower(email)')], None),
]


def upgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.add_column(sa.Column('thread_started', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    for name, table, columns, where in INDEXES:
        op.create_index(name, table, columns, unique=False,  # type: ignore[arg-type]
                        postgresql_where=where, sqlite_where=where)
    # A thread has started when an outbox row carries its root Message-ID.
    op.execute(
        "UPDATE seats SET thread_started = true WHERE thread_message_id IS NOT NULL AND "
        "EXISTS (SELECT 1 FROM outbound_messages o "
        "WHERE o.message_id = seats.thread_message_id)")


def downgrade() -> None:
    for name, table, _columns, _where in reversed(INDEXES):
        op.drop_index(name, table_name=table)
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_column('thread_started')
