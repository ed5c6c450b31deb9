"""Korean simulated players (issue 24): they read their Korean messages - SMS and email -
and answer in Korean, at one table with English players, to the end of a game.

Messages are rendered by the real service for a real game on SQLite; replies go through
the real inbound path (``pbm.inbound``), processed in this process as in
test_simplayer.py (the worker-backed ``pbm demo --lang ko`` run is in test_demo_cli.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from pbm.demo import DemoError, Table, make_table
from pbm.demo.mailroom import Delivered, Posted
from pbm.demo.reading import english_words, read_email, read_sms
from pbm.demo.simplayer import SimPlayer, korean_command
from pbm.replies.korean import has_hangul, to_english
from tests.demo.conftest import process_inline

NAMES = ["민준", "서연", "Bart"]
#: Every verb a Korean player writes in words (the others it answers by option number).
COMMANDS = [
    "REVEAL 3", "VIEW 1 3", "FORCE 1 2 민준", "FORCE 2 4 Bart", "VOTE 2", "VOTE 1 3",
    "CHOOSE 2", "MAROON Bart", "MAROON 서연", "SHOOT 민준", "GIVE Bart", "MARQUE Bart FD",
    "ATTACK", "MUTINY", "BRAWL", "ROW", "BOARD", "LAND", "PLACE BRITISH", "TAKE FRENCH",
    "SAVE", "ACCEPT",
]
ENGLISH_COMMAND = re.compile(r"\b(?:REVEAL|VIEW|VOTE|JOIN|MAROON|FORCE|STATUS|ATTACK|"
                             r"CHOOSE|SHOOT|GIVE)\b", re.IGNORECASE)


def test_every_korean_command_it_writes_reads_back_as_the_command_it_chose() -> None:
    rng = random.Random(3)
    for command in COMMANDS:
        for attempt in range(40):
            written = korean_command(command, rng, careful=attempt == 0)
            assert has_hangul(written) and not ENGLISH_COMMAND.search(written), written
            assert to_english(written, NAMES).upper() == command.upper(), (command, written)


def test_it_reads_a_korean_menu_in_the_glossary_s_command_words() -> None:
    assert english_words("지목 _ _ 이름") == "FORCE _ _ name"
    assert english_words("보트 이동") == "ROW"
    assert english_words("놓기 영국") == "PLACE BRITISH"
    # a verb after the first word begins the option's label: it is no argument
    assert english_words("공격 고립 이름") == "ATTACK 고립 name"


def test_a_korean_invitation_is_read_as_one_in_either_language() -> None:
    player = SimPlayer("민준", "sms", 1, language="ko")
    korean = player.receive(None, "토르투가 harbour: Anne님이 초대합니다. "
                                  "참가 또는 거절로 답장하세요.")
    english = player.receive(None, "Tortuga harbour: Anne invites you. "
                                   "Reply JOIN to play or DECLINE.")
    assert korean.invitation and english.invitation
    assert not player.receive(None, "토르투가 harbour: 참가자 5명. 게임 시작!").invitation
    _, reply = player.next_reply()  # type: ignore[misc]
    assert to_english(reply, invited=True) in ("yes", "JOIN")


def test_the_tables_of_korean_and_mixed_demos() -> None:
    mixed = make_table(5, language="mixed")
    korean = [s for s in mixed if s.language == "ko"]
    assert {s.channel for s in korean} == {"email", "sms"}  # a Korean SMS and email seat
    assert all(has_hangul(s.name) for s in korean)
    assert [s.name for s in mixed if s.language == "en"] == ["Bart", "Dirk"]
    assert all(s.language == "ko" and has_hangul(s.name) for s in make_table(4, language="ko"))
    assert all(s.language == "en" for s in make_table(4))
    with pytest.raises(DemoError):
        make_table(4, language="fr")


class RecordingTable(Table):
    """A demo table that keeps every reply its players sent: (seat, text)."""

    sent: list[tuple[int, str]]

    def post(self, seat: int, message: Delivered, text: str) -> Posted:
        self.sent.append((seat, text))
        return super().post(seat, message, text)


@pytest.fixture
def mixed_table(demo_folder: Path) -> Iterator[RecordingTable]:
    table = RecordingTable(demo_folder, 11, make_table(5, language="mixed"))
    table.sent = []
    table.prepare()
    yield table
    table.close()


@pytest.mark.slow
def test_korean_sms_and_email_players_play_a_whole_game_from_their_korean_texts(
        mixed_table: RecordingTable) -> None:
    table = mixed_table
    progress = table.run(tick=process_inline)
    assert progress.over

    from pbm.db import get_engine

    with get_engine().connect() as conn:
        status = conn.execute(sa.text("SELECT status FROM games")).scalar()
        log = conn.execute(sa.text(
            "SELECT seat, command, origin, inbound_message_id FROM command_log")).all()
        inbound = {r.id: r for r in conn.execute(sa.text(
            "SELECT id, channel, status FROM inbound_messages")).all()}
        outbox = conn.execute(sa.text(
            "SELECT seat, channel, kind, text, sms_body FROM outbound_messages")).all()
    assert status == "finished"
    assert all(row.origin.startswith("inbound:") for row in log)  # every decision a reply
    assert {row.status for row in inbound.values()} == {"done"}

    korean = [s for s in table.specs if s.language == "ko"]
    assert {s.channel for s in korean} == {"email", "sms"}
    for spec in korean:
        # what it read: Korean prompts on its own channel, down to the game's end
        prompts = [m for m in outbox if m.seat == spec.index and m.kind == "prompt"]
        assert prompts and {m.channel for m in prompts} == {spec.channel}
        assert all(has_hangul(m.sms_body or m.text) for m in prompts)
        assert any(m.kind == "game_over" for m in outbox if m.seat == spec.index)
        # what it decided: several decisions, each from a reply on that channel
        decided = [row for row in log if row.seat == spec.index]
        assert len(decided) >= 3, spec
        assert {inbound[row.inbound_message_id].channel for row in decided} == {spec.channel}
        # what it wrote: Korean or an option number, never an English command
        written = [text for seat, text in table.sent if seat == spec.index]
        assert all(not ENGLISH_COMMAND.search(text) for text in written), written
        assert all(has_hangul(text) or text.strip().isdigit() for text in written), written
        assert sum(has_hangul(text) for text in written) >= len(written) // 2, written
    # one picture per (version, language): Korean email readers get theirs, the English
    # readers the English one, found by the worker and sent inline
    with get_engine().connect() as conn:
        pictures = conn.execute(sa.text(
            "SELECT version, language FROM board_images")).all()
        keys = conn.execute(sa.text(
            "SELECT seat, board_image_key FROM outbound_messages WHERE channel = 'email' "
            "AND board_image_key IS NOT NULL")).all()
    assert {language for _, language in pictures} == {"en", "ko"}
    assert len(pictures) == len(set(pictures))
    korean_seats = {s.index for s in korean}
    for seat, key in keys:
        assert key.endswith("-ko") == (seat in korean_seats), (seat, key)
    korean_mail = [p.read_text(errors="replace")
                   for p in (table.folder / "outbox" / "email").glob("*.eml")]
    korean_mail = [m for m in korean_mail if "Content-ID: <board-" in m and
                   re.search(r"Content-ID: <board-\d+-\d+-ko@board.tortuga>", m)]
    assert korean_mail and all("image/png" in m for m in korean_mail)

    for seat, text in table.sent:  # the English players wrote English (a name aside)
        if table.specs[seat].language == "en":
            for spec in korean:
                text = text.replace(spec.name, "")
            assert not has_hangul(text), text

def test_a_korean_email_prompt_is_read_by_its_numbered_menu(mixed_table: RecordingTable
                                                            ) -> None:
    table = mixed_table
    table.run(tick=process_inline, until=lambda p: p.decisions >= 6)
    from pbm import games
    from pbm.db import session_scope
    from pbm.messages import Channel
    from pbm.replies import build_menu

    checked = 0
    with session_scope(write=False) as session:
        for spec in table.specs:
            if spec.language != "ko":
                continue
            ctx, rendered = games.preview(session, table.game_id, spec.index, Channel.EMAIL)
            menu = build_menu(ctx.seat_view)
            reading = read_email(rendered.text, [s.name for s in table.specs], "ko")
            assert [o.number for o in reading.options] == [m.number for m in menu]
            assert [o.verb for o in reading.options] == [m.verb for m in menu]
            ctx, rendered = games.preview(session, table.game_id, spec.index, Channel.SMS)
            sms = read_sms(rendered.sms or "", [s.name for s in table.specs], "ko")
            if menu:
                assert sms.options, rendered.sms
            checked += bool(menu)
    assert checked


def test_a_refused_sms_player_answers_again_with_the_command_the_refusal_offers() -> None:
    # a Korean SMS prompt with no room for the face-down cards: the player guesses, is
    # refused by a text without a menu, and answers the same question again
    player = SimPlayer("지우", "sms", 1, language="ko")
    player.receive("prompt", "토르투가 demo-2: 당신 차례, 토르투가 총독. 답장 1=확인 _ _ "
                             "2=공개 _ 3=지목 _ _ 이름 4=보트 이동 JR 5=전투 기록/상태=더 보기")
    assert player.next_reply() is not None
    player.receive("refusal", "토르투가 demo-2: 안 됨: 확인 2 3: 3번 카드는 뒷면이 아닙니다. "
                              "가능: 확인 2 5. 선택지는 '상태'로 답장하세요.")
    answered, text = player.next_reply()  # type: ignore[misc]
    assert answered == "refusal" and to_english(text) == "VIEW 2 5", text
    assert player.next_reply() is None  # nothing new: nothing to answer
