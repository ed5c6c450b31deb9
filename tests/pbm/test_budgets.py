"""Budgets: what one valid reply may cost the database, and how much each per-process
cache may keep. Each budget is a named constant here; a change that needs more must raise
it on purpose (benchmarks/README.md has the figures measured against them)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.engine import Engine

from pbm import db, inbound, outbox_pictures
from pbm.board_image import BANDS_KEPT
from pbm.board_image.paint import INKS_KEPT
from pbm.models import OutboundMessage
from pbm.render import shared
from pbm.transports import mail
from tests.pbm.conftest import new_game, rows
from tests.pbm.test_txcache import Statements, reply_to_the_open_decision
from tests.pbm.test_txcache import service as service  # the fixture, for the test below

#: SQL statements the worker runs to process one valid reply (BEGIN aside), by dialect.
#: On PostgreSQL the sender's hourly count comes with the locked inbound row and the
#: command log's INSERT with the events'; the seats told, and a prompt's recap and vote
#: ledger events, are one statement each.
REPLY_STATEMENTS = {"postgresql": 16, "sqlite": 18}
#: commits per valid reply: the claim, then everything else in one transaction
REPLY_COMMITS = 2

#: per-process caches of a worker: their bounds (entries, or bytes for the board bands)
CACHE_BUDGETS = {
    "board bands (bytes)": (BANDS_KEPT, 8 << 20),
    "drawn lines of text": (INKS_KEPT, 512),
    "board pictures": (outbox_pictures.PICTURES_KEPT, 32),
    "encoded picture parts": (mail.PICTURE_PARTS_KEPT, 64),
    "shared public renders": (shared.KEPT, 64),
    "folded mail headers": (mail.FOLDED_KEPT, 256),
}


def test_a_valid_reply_stays_within_its_statement_budget(service: Engine, now: datetime
                                                          ) -> None:
    game_id = new_game(service, now)
    later = now + timedelta(minutes=5)
    stored = db.run_transaction(lambda s: inbound.store_email(
        s, reply_to_the_open_decision(service, game_id, later), later), service)

    with Statements(service) as seen:
        assert str(inbound.process(stored.id, later)) == "done"

    assert seen.commits == REPLY_COMMITS
    # each thing read once: the reply's seat (plain columns, to route it and check its
    # sender), then the game's seats with their players under the game's lock (another
    # transaction may change them before it)
    assert seen.count("FROM seats") == 2 and seen.count("FROM seats, players") == 1
    assert seen.count("FROM deadlines") == 1
    assert seen.count("FROM games") == 1, "the game is read (and locked) once"
    assert seen.count("max(") <= 2 and seen.count("FROM board_images") == 0
    assert seen.count("SELECT outbound_messages.id") == 0, "no check before an INSERT"
    assert len(seen.sql) <= REPLY_STATEMENTS[service.dialect.name], seen.sql
    written = rows(service, OutboundMessage, game_id=game_id, created_at=later)
    assert written and {r.kind for r in written} >= {"prompt"}


def test_each_cache_is_bounded_within_its_budget() -> None:
    over = {name: bound for name, (bound, budget) in CACHE_BUDGETS.items() if bound > budget}
    assert not over, over
