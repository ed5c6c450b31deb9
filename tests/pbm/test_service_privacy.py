"""End to end: no stored outbound message carries another seat's secrets.

Whole games are played through ``pbm.games`` as a real table would play them: create,
invite, join, start, then random legal answers chosen like ``engine.simulate`` (Atlantis
standing orders included), with table talk (SAY), STATUS requests, an admin pause / resume
and extension, one seat replaced mid-game, a "tell me everything" player, SMS players, and
travel in time so that ``pbm.sweep.sweep_deadlines`` sends reminders, final warnings and
plays timeout defaults. Then every ``OutboundMessage`` row of the game before its GAME_OVER
(subject, text, HTML and SMS body) is scanned against an independent replica of the game
(the engine fed the stored command log), at the state version(s) the row was written at:

1. private events: the text of a ``game_events`` row with an audience appears only in rows
   to seats of that audience (or to a seat that was told the same sentence itself);
2. loyalty: every loyalty statement in a row to seat A names A's own loyalty;
3. Vote hand: the hand table (text and HTML) is exactly A's hand; the SMS vote menu shows
   A's own cards;
4. peeks: "Event cards you know", the starred Event row and "N=Title" list exactly A's peeks;
5. each row goes to the seat's own player with the seat's own reply address; reply
   tokens, email addresses and phone numbers of other seats never appear;
6. the unmasking (who played which Vote card, ``pbm.games.unmasking``) appears in no row before
   GAME_OVER, and every email GAME_OVER tells every play;
7. the vote ledger of a prompt (``pbm.vote_ledger``: "you played ...") lists, for each
   vote, exactly the card(s) the reader's own seat played in it, never another seat's.

Every check also counts what it found, and the test asserts it found plenty (a check that
never matches anything proves nothing). ``TORTUGA_PRIVACY_GAMES=200`` plays more games.
"""

from __future__ import annotations

import html as htmllib
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, func, select

import engine
from engine.cards import EVENT_CARDS, VOTE_DECK, EventTitle, Loyalty
from engine.rules import may_order_atlantis
from engine.simulate import random_command
from pbm import db, games, render, sweep
from pbm.games import unmasking
from pbm.models import (
    CommandLog,
    Deadline,
    DeadlineStatus,
    Game,
    GameEvent,
    GameStatus,
    OutboundMessage,
)

#: (players, seed) of the games played by default: 2-9 players, ~2,000 messages, ~1 minute.
DEFAULT_GAMES = [(n, 1) for n in range(2, 10)] + [(n, 2) for n in range(3, 10)]
MORE = int(os.environ.get("TORTUGA_PRIVACY_GAMES", "0"))
STEP = timedelta(minutes=20)  # between two answers
TEAM = {Loyalty.BRITISH: "British", Loyalty.FRENCH: "French", Loyalty.DUTCH: "Dutch"}
#: The one sentence of each loyalty's winning condition (templates' loyalty text).
TEAM_SENTENCE = {Loyalty.BRITISH: "you win if the British holds",
                 Loyalty.FRENCH: "you win if the French holds",
                 Loyalty.DUTCH: "you win alone if the game ends in a tie"}
TITLES = sorted((t.label for t in EventTitle), key=len, reverse=True)
SYMBOL_WORD = r"(?:Cannon|Torch|Water|British|French|Skull|Helm)"
SECTION_OF_VOTE = {"Attack": "top", "Brawl": "middle", "Mutiny": "bottom"}


# ---------------------------------------------------------------- the engine's truth


@dataclass(frozen=True)
class Secrets:
    """What each seat may know at one state version (from the replica, not the service)."""

    hands: tuple[tuple[int, ...], ...]
    peeks: tuple[tuple[tuple[int, str], ...], ...]  # per seat: sorted (position, title label)

    @classmethod
    def of(cls, state: engine.GameState) -> Secrets:
        return cls(tuple(tuple(h) for h in state.hands),
                   tuple(tuple(sorted((p, EVENT_CARDS[c].label) for p, c in peeks.items()))
                         for peeks in state.peeks))

    def hand_rows(self, seat: int) -> list[tuple[int, str, str, str]]:
        """(number, top, middle, bottom) as a player reads them, e.g. "Cannon + Torch"."""
        def words(symbols: tuple[Any, ...]) -> str:
            return " + ".join(s.value.capitalize() for s in symbols)
        return [(i, words(VOTE_DECK[c].top), words(VOTE_DECK[c].middle),
                 words(VOTE_DECK[c].bottom)) for i, c in enumerate(self.hands[seat], start=1)]


@dataclass(frozen=True)
class Call:
    """One service call: the rows it wrote (ids up to ``last_row``), the state versions it
    went through, and the newest event when it ended."""

    last_row: int
    versions: tuple[int, ...]
    last_event: int


@dataclass
class Scan:
    """What the scan of some games found: leaks, and counts proving the checks bite."""

    games: int = 0
    messages: int = 0
    findings: list[str] = field(default_factory=list)
    seen: Counter[str] = field(default_factory=Counter)

    def add(self, other: Scan) -> None:
        self.games += other.games
        self.messages += other.messages
        self.findings += other.findings
        self.seen.update(other.seen)


# ---------------------------------------------------------------- playing one table


class Table:
    """One game played through ``pbm.games``, mirrored by an engine replica."""

    def __init__(self, eng: Engine, n: int, seed: int, now: datetime) -> None:
        self.eng, self.n, self.seed, self.now = eng, n, seed, now
        self.rng = random.Random(seed * 1000 + n)
        self.state = engine.new_game([f"Player {i + 1}" for i in range(n)], seed)
        self.secrets: dict[int, Secrets] = {self.state.version: Secrets.of(self.state)}
        self.calls: list[Call] = []
        self.log_seq = self.last_row = self.last_event = 0
        self.private: dict[int, set[str]] = {s: set() for s in range(n)}  # tokens, addresses
        self.game_id = 0
        tag = f"{n}x{seed}"
        self.specs = []
        for i in range(n):
            sms = self.rng.random() < 0.35
            self.specs.append(games.PlayerSpec(
                f"Player {i + 1}", email=f"p{i + 1}.{tag}@example.org",
                phone=f"+1555{n}{seed:03d}{i:03d}" if sms or self.rng.random() < 0.2 else None,
                channel="sms" if sms else None))

    def call(self, work: Callable[[Session], Any]) -> Any:
        """Run one service call in its own transaction and record what it wrote."""
        before = self.state.version
        result = db.run_transaction(work, self.eng)
        versions = [before]
        with db.session_scope(self.eng, write=False) as session:
            for entry in session.exec(select(CommandLog).where(
                    CommandLog.game_id == self.game_id, col(CommandLog.seq) > self.log_seq)
                    .order_by(col(CommandLog.seq))):
                self.state, _ = engine.apply(self.state, entry.seat,
                                             engine.parse_command(entry.command))
                assert self.state.version == entry.state_version
                self.secrets[self.state.version] = Secrets.of(self.state)
                versions.append(self.state.version)
                self.log_seq = entry.seq
            self.last_row = session.exec(select(func.max(OutboundMessage.id))).one() or 0
            self.last_event = session.exec(select(func.max(GameEvent.seq)).where(
                GameEvent.game_id == self.game_id)).one() or 0
        self.calls.append(Call(self.last_row, tuple(versions), self.last_event))
        return result

    def remember_private(self) -> None:
        """Every reply token and address each seat has had (other seats must never see)."""
        with db.session_scope(self.eng, write=False) as session:
            for seat, player in games.seats_of(session, self.game_id):
                self.private[seat.seat_index] |= {seat.reply_token, player.email or "",
                                                  player.phone or ""} - {""}

    def status(self) -> str:
        with db.session_scope(self.eng, write=False) as session:
            return str(session.get(Game, self.game_id).status)  # type: ignore[union-attr]

    def open_deadlines(self) -> list[Deadline]:
        with db.session_scope(self.eng, write=False) as session:
            return list(session.exec(select(Deadline).where(
                Deadline.game_id == self.game_id, Deadline.status == DeadlineStatus.OPEN)))

    def setup(self) -> None:
        specs, now = self.specs, self.now
        self.game_id = self.call(lambda s: games.create_game(
            s, f"Privacy {self.n}p #{self.seed}", specs, now=now, seed=self.seed).id)
        with db.session_scope(self.eng) as session:  # preferences a player may set
            for _, player in games.seats_of(session, self.game_id):
                player.tell_everything = self.rng.random() < 0.25
                player.sms_live_talk = self.rng.random() < 0.3
                session.add(player)
        self.remember_private()
        self.call(lambda s: games.invite(s, self.game_id, now=now))
        for seat in self.rng.sample(range(self.n), self.n):
            self.now += timedelta(minutes=7)
            self.call(lambda s, seat=seat: games.respond(s, self.game_id, seat, join=True,
                                                         now=self.now))
        assert self.status() == GameStatus.RUNNING

    def sweep_at(self, when: datetime) -> None:
        self.now = max(self.now, when)
        self.call(lambda s: sweep.sweep_deadlines(s, self.now))
        if self.status() == GameStatus.PAUSED:  # the stall guard stopped a silent table
            self.now += timedelta(hours=2)
            self.call(lambda s: games.resume(s, self.game_id, now=self.now))

    def step(self, replace_at: int, steps: int) -> None:
        """One thing a table does: mostly an answer, sometimes talk, time or the admin."""
        rng, gid = self.rng, self.game_id
        self.now += STEP
        roll = rng.random()
        if steps == replace_at:
            seat = rng.randrange(self.n)
            spec = games.PlayerSpec(f"Newcomer {seat + 1}",
                                    email=f"new{seat + 1}.{self.n}x{self.seed}@example.org",
                                    channel=None)
            self.call(lambda s: games.replace_seat(s, gid, seat, spec, now=self.now))
            self.remember_private()
        elif roll < 0.03:
            seat = rng.randrange(self.n)
            self.call(lambda s: games.say(s, gid, seat, f"Ahoy from seat {seat + 1}, "
                                          "trust me!", now=self.now))
        elif roll < 0.06:
            seat = rng.randrange(self.n)
            self.call(lambda s: games.status(s, gid, seat, now=self.now))
        elif roll < 0.10:  # nobody answers in time: past the deadline and its grace
            due = min((d.due_at for d in self.open_deadlines()), default=self.now)
            self.sweep_at(due + timedelta(hours=1, minutes=1))
        elif roll < 0.14:  # the next reminder (or final warning) falls due
            when = min((d.next_reminder_at for d in self.open_deadlines()
                        if d.next_reminder_at), default=self.now)
            self.sweep_at(when + timedelta(minutes=1))
        elif roll < 0.15:
            self.call(lambda s: games.pause(s, gid, "the admin needs a break", now=self.now))
            self.now += timedelta(hours=5)
            self.call(lambda s: games.resume(s, gid, now=self.now))
        elif roll < 0.16:
            self.call(lambda s: games.extend(s, gid, 12, now=self.now))
        else:
            owners = [s for s in range(self.n) if may_order_atlantis(self.state, s)]
            if owners and rng.random() < 0.05:
                seat, command = owners[0], engine.UseAtlantis()
            else:
                decision = rng.choice(engine.pending(self.state))
                seat, command = decision.seat, random_command(rng, decision)
            result = self.call(lambda s: games.submit(s, gid, seat, command, origin="test",
                                                      now=self.now))
            assert result.ok, result

    def play(self, limit: int = 3000) -> None:
        self.setup()
        replace_at = self.rng.randrange(3, 40)
        for steps in range(limit):
            if self.state.over:
                with db.session_scope(self.eng, write=False) as session:
                    game = session.get(Game, self.game_id)
                    assert game is not None and game.status == GameStatus.FINISHED
                    stored = games.load_state(game)
                assert stored.version == self.state.version  # the replica is faithful
                assert Secrets.of(stored) == Secrets.of(self.state)
                assert stored.loyalties == self.state.loyalties
                return
            self.step(replace_at, steps)
        raise AssertionError(f"game {self.n}p/{self.seed} did not end in {limit} steps")


# ---------------------------------------------------------------- reading a message


def squash(text: str) -> str:
    return " ".join(text.split())


def html_text(markup: str) -> str:
    """What a reader sees of an HTML body, whitespace squashed."""
    return squash(htmllib.unescape(re.sub(r"<[^>]+>", " ", markup)))


def bare_html(markup: str) -> str:
    """HTML without the inlined styles (the structure the templates wrote)."""
    return re.sub(r'\s+style="[^"]*"', "", markup)


def symbol_cells(line: str) -> list[str]:
    """``"Water + Water    British + British Helm"`` -> the three cells (a wide cell may
    leave only one space before the next, so cells are cut at symbols not joined by +)."""
    cells: list[list[str]] = []
    joined = False
    for token in line.split():
        if token == "+":
            joined = True
        elif joined and cells:
            cells[-1].append(token)
            joined = False
        else:
            cells.append([token])
    return [" + ".join(cell) for cell in cells]


def text_hand(text: str) -> list[tuple[int, str, str, str]] | None:
    """The Vote-card table of the plain text, or None if the message shows no hand."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip().startswith("Vote cards"):
            if "none left" in line:
                return []
            hand = []
            for row in lines[i + 2:]:
                match = re.match(r"^\s+(\d+)  (.+)$", row)
                if not match:
                    break
                cells = symbol_cells(match.group(2))
                assert len(cells) == 3, row
                hand.append((int(match.group(1)), cells[0], cells[1], cells[2]))
            return hand
    return None


def html_hand(markup: str) -> list[tuple[int, str, str, str]] | None:
    bare = bare_html(markup)
    start = bare.find('<div class="secret">')
    if start < 0:
        return None
    secret = bare[start:bare.find("</div>", start)]
    if "Vote cards: none left" in secret:
        return []
    return [(int(a), b, c, d) for a, b, c, d in re.findall(
        r'<tr><td><span class="num">(\d+)</span></td><td>(.*?)</td><td>(.*?)</td>'
        r"<td>(.*?)</td></tr>", secret)]


def known_cards(line: str, pair: str) -> list[tuple[int, str]] | None:
    """``Event cards you know: 1 = Pistol, 3 = Atlantis`` -> [(1, "Pistol"), ...]."""
    if "none in the row" in line:
        return []
    return [(int(p), t.strip()) for p, t in re.findall(pair, line)]


def text_peeks(text: str) -> list[tuple[int, str]] | None:
    match = re.search(r"Event cards you know: (.*)", text)
    return None if match is None else known_cards(match.group(1), r"(\d) = ([^,]+)")


def html_peeks(markup: str) -> list[tuple[int, str]] | None:
    match = re.search(r"Event cards you know: (.*?)</p>", bare_html(markup))
    return None if match is None else known_cards(match.group(1), r"<b>(\d)</b> = ([^,<]+)")


TITLE_PAIR = re.compile(r"\b([1-5])=(" + "|".join(re.escape(t) for t in TITLES) + r")\b")


def loyalty_claims(row: OutboundMessage) -> list[str]:
    """Every team a message says its reader belongs to."""
    claims = re.findall(r"Loyalty: (British|French|Dutch):", row.text)
    claims += [TEAM[Loyalty(x)] for x in re.findall(
        r'<span class="team (BRITISH|FRENCH|DUTCH)">(?:British|French|Dutch)</span>',
        bare_html(row.html or ""))]
    claims += re.findall(r"\b[Yy]ou are (British|French|Dutch)\b", row.sms_body or "")
    return claims


def sms_vote_cards(sms: str) -> tuple[str, list[tuple[int, str]]] | None:
    """The vote and the (card number, symbols) offered by an SMS vote prompt."""
    match = re.search(r"called an? (Attack|Mutiny|Brawl) \([^)]*\)\. Play a card: (.*)", sms)
    if match is None:
        return None
    section = SECTION_OF_VOTE[match.group(1)]
    index = ("top", "middle", "bottom").index(section)
    offered = []
    # each whole card, top/middle/bottom, the counted part in capitals: 1=Torch/Brit/HELM
    for k, whole in re.findall(r"\b(\d+)=(\S+/\S+/\S+?)(?=\s|$)", match.group(2)):
        part = whole.split("/")[index]
        double = re.fullmatch(r"(\d)(\w+)", part)
        words = [double.group(2)] * int(double.group(1)) if double else part.split("+")
        full = {"Brit": "British", "Fren": "French"}
        offered.append((int(k), "+".join(full.get(w.capitalize(), w.capitalize())
                                         for w in words)))
    return section, offered


# ---------------------------------------------------------------- scanning one table


def scan_table(table: Table) -> Scan:
    """Check every message of a finished table for other seats' secrets."""
    scan = Scan(games=1)
    with db.session_scope(table.eng, write=False) as session:
        rows = list(session.exec(select(OutboundMessage).where(
            OutboundMessage.game_id == table.game_id).order_by(col(OutboundMessage.id))))
        events = list(session.exec(select(GameEvent).where(
            GameEvent.game_id == table.game_id).order_by(col(GameEvent.seq))))
    over = [r.id for r in rows if r.kind == "game_over"]
    assert len(over) == table.n, "every seat is told the game is over"
    told: dict[str, list[tuple[int, frozenset[int] | None]]] = {}
    for e in events:
        told.setdefault(squash(e.text), []).append((e.seq, e.audience_seats()))
    private = {squash(e.text) for e in events if e.audience is not None}
    scan.seen["private events"] += sum(e.audience is not None for e in events)
    with db.session_scope(table.eng, write=False) as session:
        story = unmasking.story(session, table.game_id)
        seat_names = {p.display_name: s.seat_index
                      for s, p in games.seats_of(session, table.game_id)}
    plays = {squash(p) for v in story["votes"] for p in v["plays"]}  # "Ann played ..."
    scan.seen["unmasked plays"] += len(plays)
    own_plays: dict[tuple[int, int, str], list[str]] = {}  # (seat, turn, vote) -> cards
    for v in story["votes"]:
        for play in v["plays"]:
            name, _, cards = play.partition(" played ")
            own_plays.setdefault((seat_names[name], v["turn"], v["vote"]), []).append(cards)
    calls = iter(table.calls)
    call = next(calls)
    for row in rows:
        if row.kind == "game_over" and row.channel == "email":
            told_all = all(p in squash(row.text) for p in plays)
            scan.seen["unmasking told at the end"] += told_all and bool(plays)
            if not told_all:
                scan.findings.append(f"game {table.n}p#{table.seed} row {row.id}: the game-over "
                                     "message does not tell every vote")
        if row.seat is not None and row.kind != "game_over":
            for play in plays:  # 6. the unmasking appears only once the game is over
                if play in squash(row.text) or play in html_text(row.html or ""):
                    scan.findings.append(f"game {table.n}p#{table.seed} row {row.id} "
                                         f"({row.kind}) unmasks before the end: {play!r}")
        if row.seat is not None and row.kind != "game_over":  # 7. the ledger: own plays only
            scan.findings += [f"game {table.n}p#{table.seed} row {row.id} ({row.kind}) to "
                              f"seat {row.seat + 1}: {problem}"
                              for problem in check_ledger(row, own_plays, scan.seen)]
        if row.seat is None or row.kind == "game_over":
            continue  # the admin's alerts; the end, where every loyalty is revealed
        assert row.id is not None and row.id < min(over)
        while row.id > call.last_row:
            call = next(calls)
        scan.messages += 1
        scan.seen[f"{row.channel} {row.kind}"] += 1
        scan.findings += [f"game {table.n}p#{table.seed} row {row.id} ({row.kind}, "
                          f"{row.channel}) to seat {row.seat + 1}: {problem}"
                          for problem in check_row(table, row, call, told, private, scan.seen)]
    return scan


LEDGER_TEXT = re.compile(r"^  Turn (\d+), (Attack|Brawl|Mutiny): you played (.+?)\.$", re.M)
LEDGER_HTML = re.compile(r"<tr><td>(\d+)</td><td>(Attack|Brawl|Mutiny)</td><td>([^<]+)</td>")


def check_ledger(row: OutboundMessage, own_plays: dict[tuple[int, int, str], list[str]],
                 seen: Counter[str]) -> Iterator[str]:
    """Every "you played" of the row's vote ledger is a play of the reader's own seat."""
    seat = row.seat
    assert seat is not None
    entries = [("text", m) for m in LEDGER_TEXT.findall(row.text)] + [
        ("html", m) for m in LEDGER_HTML.findall(bare_html(row.html or ""))]
    if "YOUR VOTES SO FAR" in row.text:
        seen["ledgers"] += 1
    for where, (turn, vote, played) in entries:
        if played == "no card yet":
            continue
        mine = own_plays.get((seat, int(turn), vote), [])
        if played in mine:
            seen[f"{where} ledger plays checked"] += 1
        else:
            yield f"its ledger says you played {played!r} in the {vote} of turn {turn}, " \
                  f"but this seat played {mine or 'nothing'} there"


def check_row(table: Table, row: OutboundMessage, call: Call,
              told: dict[str, list[tuple[int, frozenset[int] | None]]], private: set[str],
              seen: Counter[str]) -> Iterator[str]:
    """The leaks in one message (see the module docstring)."""
    seat = row.seat
    assert seat is not None
    parts = {"subject": squash(row.subject), "text": squash(row.text),
             "html": html_text(row.html or ""), "sms": squash(row.sms_body or "")}
    # 1. private events only reach their audience
    for sentence in private:
        where = [name for name, part in parts.items() if sentence in part]
        if not where:
            continue
        audiences = [aud for seq, aud in told[sentence] if seq <= call.last_event]
        if any(aud is None or seat in aud for aud in audiences):
            seen["private event shown to its audience"] += 1
        else:
            yield f"private event {sentence!r} (for {audiences}) in its {', '.join(where)}"
    # 2. loyalty: only the reader's own
    mine = table.state.loyalties[seat]
    claims = loyalty_claims(row)
    seen["loyalty statements"] += len(claims)
    for claim in claims:
        if claim != TEAM[mine]:
            yield f"says the reader is {claim}, but seat {seat + 1} is {TEAM[mine]}"
    for team, sentence in TEAM_SENTENCE.items():
        if team != mine and any(sentence in p for p in parts.values()):
            yield f"shows the {TEAM[team]} winning condition to a {TEAM[mine]} seat"
    # 3. and 4. hand and peeks: exactly the seat's own at a version this call went through
    versions = call.versions
    if row.board_image_key:  # email with a board: rendered at exactly that version
        version = int(row.board_image_key.rsplit("-", 1)[1])
        if version not in versions:
            yield f"board of version {version}, outside this call's {versions}"
        versions = (version,)
    hands = {"text": text_hand(row.text), "html": html_hand(row.html or "")}
    peeks = {"text": text_peeks(row.text), "html": html_peeks(row.html or "")}
    starred = [(int(p), t) for p, t in re.findall(r"\[(\d): ([^\]*?]+)\*\]", row.text)]
    pairs = {(int(p), t) for part in parts.values() for p, t in TITLE_PAIR.findall(part)}
    vote = sms_vote_cards(row.sms_body or "")
    fits: dict[str, set[int]] = {}
    for v in versions:
        truth = table.secrets[v]
        own_hand, own_peeks = truth.hand_rows(seat), list(truth.peeks[seat])
        for name, hand in hands.items():
            if hand is not None and hand == own_hand:
                fits.setdefault(f"{name} hand", set()).add(v)
        for name, known in peeks.items():
            if known is not None and known == own_peeks:
                fits.setdefault(f"{name} peeks", set()).add(v)
        if set(starred) <= set(own_peeks):
            fits.setdefault("starred row", set()).add(v)
        if pairs <= set(own_peeks):
            fits.setdefault("N=Title", set()).add(v)
        if vote is not None:
            section, offered = vote
            cards = {n: "+".join(s.value.capitalize() for s in getattr(VOTE_DECK[c], section))
                     for n, c in enumerate(truth.hands[seat], start=1)}
            if all(k in cards and cards[k].startswith(sym) for k, sym in offered):
                fits.setdefault("SMS vote cards", set()).add(v)
    shown = [f"{name} hand" for name, h in hands.items() if h is not None]
    shown += [f"{name} peeks" for name, p in peeks.items() if p is not None]
    shown += ["starred row"] * bool(starred) + ["N=Title"] * bool(pairs)
    shown += ["SMS vote cards"] * (vote is not None and bool(vote[1]))
    for name in shown:
        seen[name] += 1
        if name not in fits:
            yield f"{name} is not seat {seat + 1}'s at versions {versions}: " + {
                "text hand": str(hands["text"]), "html hand": str(hands["html"]),
                "text peeks": str(peeks["text"]), "html peeks": str(peeks["html"]),
                "starred row": str(starred), "N=Title": str(sorted(pairs)),
                "SMS vote cards": str(vote)}[name]
    if shown and all(name in fits for name in shown) and not set.intersection(
            *(fits[name] for name in shown)):
        yield f"hand and peeks match no single version of {versions}"
    seen["nonempty hands"] += bool(hands["text"])
    seen["nonempty peeks"] += bool(peeks["text"])
    # 5. addressed to this seat's player, with this seat's reply token; nobody else's
    if row.to_address not in table.private[seat]:
        yield f"addressed to {row.to_address}, not to seat {seat + 1}'s player"
    if row.reply_to and row.reply_to.split("@")[0].removeprefix("play+") not in \
            table.private[seat]:
        yield f"reply address {row.reply_to} is not seat {seat + 1}'s"
    seen["digests"] += ":digest:" in row.dedupe_key
    for other, secrets in table.private.items():
        if other == seat:
            continue
        for secret in secrets:
            if any(secret in p for p in parts.values()) or secret in (row.reply_to or ""):
                yield f"contains seat {other + 1}'s token or address {secret!r}"


# ---------------------------------------------------------------- the tests


@pytest.fixture
def sqlite_eng(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A migrated SQLite database (the fast default of this test)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('privacy') / 'pbm.db'}"
    db.upgrade(url)
    yield db.get_engine(url)
    db.dispose_engines()


@pytest.fixture
def no_board_pictures(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip drawing board PNGs (public view only, never scanned; ~40 ms each)."""
    monkeypatch.setattr(render, "board_png", lambda public_view: b"\x89PNG test")


def play_and_scan(eng: Engine, plan: list[tuple[int, int]], now: datetime) -> Scan:
    total = Scan()
    for n, seed in plan:
        table = Table(eng, n, seed, now)
        table.play()
        total.add(scan_table(table))
    return total


def assert_clean(scan: Scan, started: float) -> None:
    print(f"\nprivacy scan: {scan.games} games, {scan.messages} messages in "
          f"{time.monotonic() - started:.1f} s; " + ", ".join(
              f"{k}: {v}" for k, v in sorted(scan.seen.items())
              if not k.startswith(("email ", "sms "))))
    assert not scan.findings, f"{len(scan.findings)} leaks:\n" + "\n".join(scan.findings[:20])


@pytest.mark.slow  # about a minute: 15 whole games through the service
def test_no_message_of_thousands_carries_another_seats_secrets(
        sqlite_eng: Engine, now: datetime, no_board_pictures: None) -> None:
    started = time.monotonic()
    plan = DEFAULT_GAMES + [(2 + k % 8, 100 + k) for k in range(MORE)]
    scan = play_and_scan(sqlite_eng, plan, now)
    assert_clean(scan, started)
    assert scan.games == len(plan) and scan.messages >= 2000
    seen = scan.seen
    for kind in ("prompt", "notice", "status", "reminder", "final_warning", "timed_out",
                 "vote_result", "table_talk", "seat_replaced", "paused", "resumed",
                 "game_started"):
        assert seen[f"email {kind}"] + seen[f"sms {kind}"] > 0, f"no {kind} message scanned"
    assert seen["sms prompt"] >= 100
    for what in ("text hand", "html hand", "text peeks", "html peeks", "starred row",
                 "N=Title", "SMS vote cards"):
        assert seen[what] >= 30, (what, seen[what])
    assert seen["nonempty hands"] >= 500 and seen["nonempty peeks"] >= 100
    assert seen["loyalty statements"] >= 1000
    assert seen["private event shown to its audience"] >= 150
    assert seen["digests"] > 0
    assert seen["unmasked plays"] >= 50 and seen["unmasking told at the end"] >= 5
    assert seen["ledgers"] >= 100
    assert seen["text ledger plays checked"] >= 100 and seen["html ledger plays checked"] >= 100


@pytest.mark.postgres
def test_no_message_carries_another_seats_secrets_on_postgresql(
        pg_db_url: str, now: datetime, no_board_pictures: None) -> None:
    started = time.monotonic()
    eng = db.get_engine(pg_db_url)
    scan = play_and_scan(eng, [(5, 11), (3, 12)], now)
    assert_clean(scan, started)
    assert scan.messages >= 200 and scan.seen["nonempty hands"] >= 50
    assert scan.seen["text ledger plays checked"] > 0
