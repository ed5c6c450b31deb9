"""What a player's email carries beyond the board, on SQLite and PostgreSQL: the seat's own
vote ledger in its prompts (``pbm.vote_ledger``, email only, the last 5 votes), and at the
game's end the treasure chart as an inline ``cid:`` image part of the HTML (not a data:
URI), checked on the MIME message the worker builds for the transport."""

from __future__ import annotations

import random
import re
from datetime import datetime
from email import message_from_bytes, policy

import pytest
from sqlalchemy.engine import Engine

from pbm import db, games, render
from pbm.config import get_settings
from pbm.games import unmasking
from pbm.models import OutboundMessage, OutboundPart
from pbm.transports.mail import build_email
from tests.pbm.conftest import new_game, play_until, rows, state_of
from workers.delivery import outgoing

VOTES = ("ATTACK", "MUTINY", "BRAWL")


@pytest.fixture
def fast_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip drawing board PNGs (public, not what these tests are about)."""
    monkeypatch.setattr(render, "board_png", lambda public_view: b"\x89PNG test")


def own_plays(eng: Engine, game_id: int) -> dict[int, list[tuple[int, str, str]]]:
    """Seat -> (turn, vote, cards) of every vote it played in, from the replayed log."""
    with db.session_scope(eng, write=False) as session:
        story = unmasking.story(session, game_id)
        seats = {p.display_name: s.seat_index for s, p in games.seats_of(session, game_id)}
    plays: dict[int, list[tuple[int, str, str]]] = {seat: [] for seat in seats.values()}
    for v in story["votes"]:
        for play in v["plays"]:
            name, _, cards = play.partition(" played ")
            plays[seats[name]].append((v["turn"], v["vote"], cards))
    return plays


def test_a_status_lists_the_seats_own_last_five_votes_by_email_and_none_by_sms(
        eng: Engine, now: datetime, fast_boards: None) -> None:
    game_id = new_game(eng, now, 4, sms_seats=(3,))
    rng = random.Random(3)

    def voted_enough(state: object) -> bool:
        return min(len(p) for p in own_plays(eng, game_id).values()) >= 6

    now, _ = play_until(eng, game_id, now, rng, voted_enough,
                        prefer=lambda c: str(c).split()[0] in VOTES)
    for seat in range(4):
        db.run_transaction(lambda s, seat=seat: games.status(s, game_id, seat, now=now,
                                                             dedupe="ledger"), eng)

    plays = own_plays(eng, game_id)
    for seat in range(3):
        [row] = [r for r in rows(eng, OutboundMessage, game_id=game_id, seat=seat,
                                 kind="status")]
        ledger = re.findall(r"^  Turn (\d+), (\w+): you played (.+?)\.$", row.text, re.M)
        assert len(ledger) == 5  # bounded: the last five
        played = [(int(t), v, c) for t, v, c in ledger if c != "no card yet"]  # a vote on
        assert len(played) >= 4 and played == plays[seat][-len(played):]  # may be open
        assert "Your votes so far" in (row.html or "") and "The vote showed" in row.html
        shown = re.findall(r"^    The vote showed (.+?): (.+)\.$", row.text, re.M)
        assert len(shown) == 5 and all(s and o for s, o in shown)
    texts = rows(eng, OutboundMessage, game_id=game_id, seat=3, kind="status")  # 1 or 2 SMS
    assert 1 <= len(texts) <= 2
    assert all(t.channel == "sms" and "you played" not in (t.sms_body or "") for t in texts)
    assert state_of(eng, game_id).over is False


def test_the_game_over_chart_is_an_inline_image_part_named_by_its_content_id(
        eng: Engine, now: datetime, fast_boards: None) -> None:
    game_id = new_game(eng, now, 3)
    play_until(eng, game_id, now, random.Random(8))
    [row, *_] = [r for r in rows(eng, OutboundMessage, game_id=game_id, kind="game_over")
                 if r.channel == "email"]
    cid = unmasking.chart_cid(game_id)

    assert f'src="cid:{cid}"' in (row.html or "") and "data:image" not in (row.html or "")
    [part] = [p for p in rows(eng, OutboundPart, outbox_id=row.id) if p.content_id]
    assert (part.content_id, part.content_type) == (cid, "image/png")
    assert part.content.startswith(b"\x89PNG\r\n")
    with db.session_scope(eng, write=False) as session:
        message = outgoing(session, row, get_settings())
    mail = message_from_bytes(bytes(build_email(message, get_settings())),
                              policy=policy.default)
    related = [p for p in mail.walk() if p.get_content_type() == "multipart/related"]
    assert len(related) == 1
    pictures = {str(p["Content-ID"]): p for p in related[0].iter_parts()
                if p.get_content_type() == "image/png"}
    assert f"<{cid}>" in pictures
    assert pictures[f"<{cid}>"].get_content() == part.content
    html = related[0].get_body(preferencelist=("html",))
    assert html is not None and f"cid:{cid}" in html.get_content()
