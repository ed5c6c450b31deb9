"""A whole 5-player game by email and SMS, with nobody watching.

Real processes: the web app (uvicorn), a Celery worker and beat on Redis, PostgreSQL,
an SMTP server (aiosmtpd), dovecot for IMAP and the Twilio emulator. Five simulated players
read only their own messages and answer from the menu in them: two by mail that reaches the
service through IMAP, one through the raw-MIME webhook, one by signed SMS webhooks, and one
(Eve) who answers a couple of times and then goes silent, so the timeout policy (seconds,
for the test) plays for her and her last calls escalate to SMS. The game must end with a
winner. Prints the reply-to-next-prompt latency.
"""

from __future__ import annotations

import random
import re
import secrets
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import make_msgid

import httpx
import pytest
import sqlalchemy as sa

import engine
from pbm import db, games
from pbm.deadlines import DEFAULT_DECISION_HOURS, TimingPolicy
from pbm.models import CommandLog, Game, InboundMessage, OutboundMessage
from tests.services import drop_database, migrated_database
from tests.workers.conftest import E2E_REDIS_DB, redis_db
from tests.workers.servers import Dovecot, ReceivedMail, SentSms, post_signed
from tests.workers.stack import DOMAIN, Stack

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis]

DECISION_SECONDS = 5.0  # every decision's deadline in this game
GAME_TIMEOUT = 450.0
EVE_ANSWERS = 2  # Eve answers this many prompts, then goes silent

_EMAIL_OPTION = re.compile(r"^\s{1,6}(\d+) = (\S.*)$")
_SMS_OPTION = re.compile(r"(\d+)=(.+?)(?= \d+=| By | STATUS=|$)")


@pytest.fixture
def deployment(request: pytest.FixtureRequest) -> Iterator[tuple[Stack, Dovecot]]:
    imap = Dovecot()  # first: skips (fails under CI) without dovecot, before any server starts
    try:
        postgres_url: str = request.getfixturevalue("postgres_url")
        redis_url: str = request.getfixturevalue("redis_url")
    except BaseException:
        imap.stop()
        raise
    imap.start()
    database = migrated_database(postgres_url, "pbm_channels")
    stack = Stack(database, redis_db(redis_url, E2E_REDIS_DB), IMAP_HOST="127.0.0.1",
                  IMAP_PORT=str(imap.port), IMAP_SSL="false", IMAP_USERNAME=imap.user,
                  IMAP_PASSWORD=imap.password,
                  # a days-long game played in minutes: hours of messages arrive per minute
                  INBOUND_PER_SENDER_PER_HOUR="100000")
    stack.apply()
    try:
        stack.web()
        stack.worker()
        stack.beat()
        yield stack, imap
    finally:
        stack.stop()
        imap.stop()
        drop_database(postgres_url, database)


@dataclass
class Sim:
    """One simulated player: reads its own inbox, answers from the menu it was sent."""

    name: str
    via: str  # imap, webhook, sms
    email: str | None = None
    phone: str | None = None
    silent_after: int | None = None
    seen: int = 0
    answered: int = 0
    answered_since_prompt: bool = False
    sent: dict[str, float] = field(default_factory=dict)  # provider id -> time sent

    @property
    def silent(self) -> bool:
        return self.silent_after is not None and self.answered >= self.silent_after


class Table:
    """The five players and the ways their replies reach the service."""

    def __init__(self, stack: Stack, imap: Dovecot, seed: int) -> None:
        self.stack = stack
        self.imap = imap
        self.rng = random.Random(seed)
        tag = secrets.token_hex(2)
        self.sims = [
            Sim("Ann", "imap", email=f"ann.{tag}@example.org"),
            Sim("Bob", "webhook", email=f"bob.{tag}@example.org"),
            Sim("Cleo", "sms", phone="+1555900" + str(self.rng.randrange(1000, 9999))),
            Sim("Dirk", "imap", email=f"dirk.{tag}@example.org"),
            Sim("Eve", "imap", email=f"eve.{tag}@example.org",
                phone="+1555800" + str(self.rng.randrange(1000, 9999)),
                silent_after=EVE_ANSWERS + 1),  # + the JOIN
        ]

    def specs(self) -> list[games.PlayerSpec]:
        return [games.PlayerSpec(s.name, email=s.email, phone=s.phone,
                                 channel="sms" if s.via == "sms" else "email")
                for s in self.sims]

    # ---------------------------------------------------------------- reading

    def inbox(self, sim: Sim) -> list[ReceivedMail] | list[SentSms]:
        if sim.via == "sms":
            return self.stack.twilio.to(sim.phone or "")
        return self.stack.smtp.to(sim.email or "")

    def step(self) -> int:
        """Let every player read what is new and answer; how many replies were sent."""
        replies = 0
        for sim in self.sims:
            messages = self.inbox(sim)
            for message in messages[sim.seen:]:
                sim.seen += 1
                if sim.silent:
                    continue
                answer = self.decide(sim, message)
                if answer:
                    self.reply(sim, message, answer)
                    sim.answered += 1
                    replies += 1
        return replies

    def decide(self, sim: Sim, message: ReceivedMail | SentSms) -> str | None:
        """What this player answers to one message (None: nothing)."""
        if isinstance(message, SentSms):
            text = message.body
            options = [o.strip() for _, o in _SMS_OPTION.findall(text)]
            invited = "JOIN" in text and not options
        else:
            text = message.text()
            options = [m.group(2).strip() for line in text.splitlines()
                       if (m := _EMAIL_OPTION.match(line))]
            invited = "invited" in text[:400] and "JOIN" in text and not options
        if invited:
            return "JOIN"
        reminder = re.search(r"reminder|last call", text[:160], re.IGNORECASE) is not None
        if reminder and sim.answered_since_prompt:
            return None  # already answered the question this reminds about
        complete = [c for c in (self.fill(o, text) for o in options) if c]
        if not reminder:
            sim.answered_since_prompt = bool(complete)
        if not complete:
            return None
        sim.answered_since_prompt = True
        # A player who wants the game to move on: revealing Event cards brings the Armada.
        boost = {"REVEAL": 8, "FORCE": 2}
        weights = [boost.get(c.split()[0].upper(), 1) for c in complete]
        return self.rng.choices(complete, weights)[0]

    def fill(self, option: str, text: str) -> str | None:
        """A menu option as the player would type it, blanks filled from the prompt."""
        command, _, rest = option.partition("  ")
        command = command.strip()
        if "_" not in command:
            return command
        row = re.search(r"Event row:(.*)", text)
        face_down = re.findall(r"\[(\d): \?\]", row.group(1)) if row else []
        if not row:  # an SMS has no board: any position, the reply tells if it was wrong
            face_down = [str(n) for n in range(1, 6)]
        verb = command.split()[0].upper()
        if verb == "REVEAL" and face_down:
            return f"REVEAL {self.rng.choice(face_down)}"
        if verb == "VIEW" and face_down:
            picked = self.rng.sample(face_down, min(2, len(face_down)))
            return "VIEW " + " ".join(picked)
        example = re.search(r"\(e\.g\. ([^)]+)\)", option + rest)
        return example.group(1).strip() if example else None


    # ---------------------------------------------------------------- answering

    def reply(self, sim: Sim, message: ReceivedMail | SentSms, answer: str) -> None:
        if sim.via == "sms":
            self.reply_sms(sim, answer)
            return
        assert isinstance(message, ReceivedMail)
        prompt = message.message
        quoted = "\r\n".join("> " + line for line in message.text().splitlines()[:40])
        message_id = make_msgid(domain="example.org")
        raw = (f"From: {sim.name} <{sim.email}>\r\nTo: {prompt['Reply-To']}\r\n"
               f"Subject: Re: {prompt['Subject']}\r\nMessage-ID: {message_id}\r\n"
               f"In-Reply-To: {prompt['Message-ID']}\r\nReferences: {prompt['Message-ID']}\r\n"
               "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
               f"{answer}\r\n\r\nOn Mon, Tortuga by Mail <play@{DOMAIN}> wrote:\r\n{quoted}\r\n"
               ).encode()
        sim.sent[message_id] = time.time()
        if sim.via == "imap":
            self.imap.append(raw)
        else:
            secret = self.stack.values["INBOUND_EMAIL_SECRET"]
            response = httpx.post(self.stack.web_url + "/webhooks/email", content=raw,
                                  headers={"Authorization": f"Bearer {secret}"}, timeout=30)
            assert response.status_code == 200, response.text

    def reply_sms(self, sim: Sim, answer: str) -> None:
        sid = "SM" + secrets.token_hex(16)
        form = {"MessageSid": sid, "SmsSid": sid, "AccountSid": self.stack.twilio.account_sid,
                "From": sim.phone or "", "To": self.stack.twilio.from_number,
                "Body": answer.lower(), "NumSegments": "1", "NumMedia": "0"}
        path = "/webhooks/twilio/sms"
        sim.sent[sid] = time.time()
        status = post_signed(self.stack.web_url + path, self.stack.values["PUBLIC_BASE_URL"] + path,
                             form, self.stack.twilio.auth_token)
        assert status == 200


def fast_policy() -> TimingPolicy:
    hours = DECISION_SECONDS / 3600
    return TimingPolicy(decision_hours={k: hours for k in DEFAULT_DECISION_HOURS},
                        invitation_hours=1, reminder_fractions=(0.5,),
                        final_warning_hours=hours / 3, grace_hours=0,
                        quiet_start=0, quiet_end=0, on_timeout="default", auto_start=True)


def invite(specs: list[games.PlayerSpec]) -> int:
    now = time.time()
    from datetime import UTC, datetime

    def work(session: object) -> int:
        at = datetime.fromtimestamp(now, UTC)
        game = games.create_game(session, f"e2e-{secrets.token_hex(3)}", specs, now=at,
                                 seed=20261129, timing_policy=fast_policy())
        games.invite(session, game.id, now=at)
        return int(game.id)

    return int(db.run_transaction(work))


def game_row(game_id: int) -> Game:
    with db.session_scope(write=False) as session:
        return session.get(Game, game_id)  # type: ignore[return-value]


def latencies(table: Table) -> dict[str, list[float]]:
    """Seconds from each applied reply leaving its player to each prompt it caused reaching
    the SMTP server, by the path the reply took."""
    sent_at = {pid: (sim.via, at) for sim in table.sims for pid, at in sim.sent.items()}
    arrived = {m.message["Message-ID"]: m.at for m in table.stack.smtp.messages}
    result: dict[str, list[float]] = {}
    with db.session_scope(write=False) as session:
        replies = session.execute(sa.select(InboundMessage).where(
            InboundMessage.status == "done")).scalars().all()
        for reply in replies:
            if reply.provider_message_id not in sent_at:
                continue
            via, at = sent_at[reply.provider_message_id]
            prompts = session.execute(sa.select(OutboundMessage.message_id).where(
                OutboundMessage.kind == "prompt", OutboundMessage.channel == "email",
                OutboundMessage.created_at == reply.processed_at)).scalars().all()
            for message_id in prompts:
                if message_id in arrived:
                    result.setdefault(via, []).append(arrived[message_id] - at)
    return result


def diagnose(game_id: int) -> str:
    """What the game looked like when it failed to end."""
    lines = []
    with db.session_scope(write=False) as session:
        game = session.get(Game, game_id)
        lines.append(f"status {game.status}, state version {game.state_version}")
        log = session.execute(sa.select(CommandLog).where(CommandLog.game_id == game_id)
                              .order_by(CommandLog.seq)).scalars().all()
        lines.append(f"{len(log)} commands; last: "
                     + "; ".join(f"{r.seat}:{r.command}:{r.origin}" for r in log[-15:]))
        if game.state_json:
            state = engine.from_json(game.state_json)
            lines.append("pending: " + "; ".join(f"{d.seat}:{d.kind.value}"
                                                 for d in engine.pending(state)))
        counts = session.execute(sa.select(InboundMessage.status, sa.func.count())
                                 .group_by(InboundMessage.status)).all()
        lines.append(f"inbound: {counts}")
        errors = session.execute(sa.select(InboundMessage.error, sa.func.count())
                                 .group_by(InboundMessage.error)).all()
        lines.append(f"inbound errors: {errors}")
        kinds = session.execute(sa.select(OutboundMessage.kind, OutboundMessage.status,
                                          sa.func.count())
                                .group_by(OutboundMessage.kind, OutboundMessage.status)).all()
        lines.append(f"outbound: {kinds}")
        replies = session.execute(sa.select(OutboundMessage.text).where(
            OutboundMessage.kind == "reply").order_by(OutboundMessage.id.desc()).limit(3)
        ).scalars().all()
        lines += ["last reply:", *(r[:800] for r in replies)]
    return "\n".join(lines)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


@pytest.mark.slow
def test_a_five_player_game_runs_to_a_winner_by_mail_and_sms_alone(
        deployment: tuple[Stack, Dovecot]) -> None:
    stack, imap = deployment
    table = Table(stack, imap, seed=1667)
    game_id = invite(table.specs())

    started = time.monotonic()
    while game_row(game_id).status not in ("finished", "aborted"):
        if time.monotonic() - started > GAME_TIMEOUT:
            pytest.fail(f"the game did not end within {GAME_TIMEOUT:.0f}s\n"
                        f"{diagnose(game_id)}\n{stack.logs()}")
        if not table.step():
            time.sleep(0.05)
    elapsed = time.monotonic() - started

    game = game_row(game_id)
    assert game.status == "finished", stack.logs()
    state = engine.from_json(game.state_json)
    score = engine.score(state)
    assert score.over and score.winner is not None
    with db.session_scope(write=False) as session:
        log = session.execute(sa.select(CommandLog).where(CommandLog.game_id == game_id)
                              ).scalars().all()
        assert games.replay_matches(session, game_id)
        quarantined = session.execute(sa.select(InboundMessage.id, InboundMessage.error).where(
            InboundMessage.status == "quarantined")).all()
    eve = 4
    assert any(row.seat == eve and row.origin == "timeout" for row in log), \
        "the silent player was never timed out"
    assert {row.origin.split(":")[0] for row in log if row.seat != eve} >= {"inbound"}
    assert [tuple(row) for row in quarantined] == []
    assert stack.twilio.to(table.sims[eve].phone or ""), "Eve's last calls never went by SMS"
    for sim in table.sims[:4]:
        assert sim.answered > 1, f"{sim.name} never played"

    measured = latencies(table)
    everything = [x for values in measured.values() for x in values]
    assert everything, "no reply was followed by a prompt"
    print(f"\nfull game: {len(log)} commands in {elapsed:.0f}s, winner {score.winner.value}, "
          f"{sum(1 for r in log if r.origin == 'timeout')} played by the timeout policy")
    print(f"reply -> next prompt at the SMTP server: median "
          f"{statistics.median(everything):.2f}s, p95 {p95(everything):.2f}s "
          f"(n={len(everything)})")
    for via, values in sorted(measured.items()):
        print(f"  via {via}: median {statistics.median(values):.2f}s, p95 {p95(values):.2f}s "
              f"(n={len(values)})")
