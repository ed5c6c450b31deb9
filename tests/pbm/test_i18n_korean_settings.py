"""A Korean player's answers to settings, and the AWAY / BACK notice to a Korean table, in
Korean: every setting applied for a Korean player (``pbm.player_settings`` answers with reasons,
code and parameters; ``pbm.render.setting_words`` says them at render time), rendered by
email and by SMS with no English word left besides the setting commands, zone and game
names and zone abbreviations. English is unchanged (test_settings, test_render_golden)."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.engine import Engine

from pbm import db, games, player_settings
from pbm.i18n.translate import reading
from pbm.messages import Channel, MessageKind
from pbm.models import OutboundMessage
from pbm.render import render
from pbm.render.setting_words import say_answer, say_notice
from pbm.replies import reasons as R
from tests.fixtures.messages import context_for, simulated_states, with_fields
from tests.pbm.conftest import new_game, rows

HANGUL = re.compile(r"[\uac00-\ud7a3]")
#: Latin a Korean answer may keep: the setting commands as the player types them, zone
#: names, zone abbreviations, the game's and players' names, the reply marker's English half.
ALLOWED = re.compile(
    r"(?<![A-Za-z])(?:SETTINGS|ZONE|QUIET|AWAY|BACK|VIA|DIGEST|TALK|CALENDAR|LANG|EMAIL|SMS|"
    r"BOTH|ON|OFF|EN|KO|UTC|KST|GMT|Ref|FD|JR)(?![A-Za-z])|\b[A-Z][A-Za-z_]+/[A-Za-z_/]+\b|"
    r"Reply above this line|"
    r"Test game|Nassau|Player \d|(?:mailto:|https?://)\S+|[\w.+-]+@[\w.-]+")

#: Every setting, in the order a player might send them.
LINES = ["LANG KO", "ZONE Seoul", "QUIET 23-07", "QUIET OFF", "AWAY 3 days", "BACK", "BACK",
         "VIA SMS", "VIA EMAIL", "VIA BOTH", "DIGEST ON", "DIGEST OFF", "TALK ON", "TALK OFF",
         "CALENDAR ON", "CALENDAR OFF", "AWAY 5 days", "SETTINGS", "AWAY 40 days", "BACK"]


def english(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{3,}", ALLOWED.sub(" ", text))


def _apply(eng: Engine, game_id: int, seat: int, text: str, now: datetime) -> str:
    def work(session: object) -> str:
        _, player = games.seat_of(session, game_id, seat)  # type: ignore[arg-type]
        return player_settings.apply(session, player, text, now)  # type: ignore[arg-type]

    return db.run_transaction(work, eng)  # a reason: its English, its code and parameters


def _answers(eng: Engine, now: datetime) -> tuple[int, list[str]]:
    game_id = new_game(eng, now, 3, sms_seats=(1,))
    for seat in (0, 2):
        _apply(eng, game_id, seat, "LANG KO", now)
    answers = []
    for i, line in enumerate(LINES):
        answers.append(_apply(eng, game_id, 1, line, now + timedelta(minutes=i)))
    return game_id, answers


def test_every_answer_to_a_setting_is_korean_by_email_and_sms(eng: Engine,
                                                              now: datetime) -> None:
    _game_id, answers = _answers(eng, now)
    state = next(simulated_states(3, 5)).state
    base = dataclasses.replace(
        context_for(MessageKind.REPLY, state, 1, []), language="ko", time_zone="Asia/Seoul")
    for line, answer in zip(LINES, answers, strict=True):
        ctx = with_fields(base, reply={}, rejected=[], done=[], help=None, log=False,
                          answers=(answer,))
        email = render(ctx, Channel.EMAIL)
        sms = render(ctx, Channel.SMS).sms or ""
        with reading("ko"):
            said = say_answer(answer)
        assert HANGUL.search(said) and english(said) == [], (line, answer, said)
        assert said in email.text, (line, said, email.text)
        for text in (email.text, sms):
            assert english(text) == [], (line, english(text), text)
        assert "\ufffd" not in email.text + sms and "??" not in email.text + sms
        assert "…" not in sms and "..." not in sms, (line, sms)  # whole, within the Korean budget
        assert not re.search(r"[.,]까지", email.text + sms), email.text
        assert say_answer(answer) == answer  # English: byte for byte
    away = answers[LINES.index("AWAY 3 days")]
    with reading("ko"):
        said = say_answer(away)
    assert re.search(r"\d+월 \d+일 \([월화수목금토일]\) 오[전후] \d+:\d\d KST", said), said
    with reading("ko"):
        summary = say_answer(answers[LINES.index("SETTINGS")])
    assert "ZONE Asia/Seoul" in summary and "LANG KO" in summary and "요일" in summary


def test_the_away_and_back_notice_reaches_a_korean_table_in_korean(eng: Engine,
                                                                   now: datetime) -> None:
    game_id, _said = _answers(eng, now)
    notices = [m for m in rows(eng, OutboundMessage, game_id=game_id, kind="notice")
               if m.seat in (0, 2)]
    assert len(notices) >= 4 * 2  # AWAY, BACK, AWAY, AWAY again, BACK: each to 2 seats
    for message in notices:
        for text in (message.text, message.sms_body or ""):
            assert english(text) == [], (english(text), text)
            assert not re.search(r"[.,]까지", text), text  # the moment without the full stop
        assert HANGUL.search(message.text)
    texts = "\n".join(m.text for m in notices)
    assert "Player 2 님은" in texts and "Player 2 님이 돌아왔습니다" in texts
    assert "Player 2 님이 자리를 비웠습니다" in texts  # the news line names the player
    seoul = ZoneInfo("Asia/Seoul")
    away, back = datetime(2025, 3, 3, 14, tzinfo=seoul), datetime(2025, 3, 6, 14, tzinfo=seoul)
    until = {"until": "Mon 03 Mar 14:00 KST", "until_at": R.moment(away, "Asia/Seoul")}
    for sentence in (R.AWAY_NOTICE_CAPPED(name="Player 9", **until, end="Thu 06 Mar 14:00 KST",
                                          end_at=R.moment(back, "Asia/Seoul"), span="3 days",
                                          span_seconds=3 * 86400),
                     R.AWAY_NOTICE_USED_UP(name="Player 9", **until),
                     R.BACK_NOTICE(name="Player 9")):
        assert str(sentence) in ("Player 9 is away until Mon 03 Mar 14:00 KST: their deadlines "
                                 "wait until Thu 06 Mar 14:00 KST (the most this game allows: "
                                 "3 days).", "Player 9 is away until Mon 03 Mar 14:00 KST; their "
                                 "away allowance is used up, so their deadlines run as usual.",
                                 "Player 9 is back; their deadlines run again.")
        assert say_notice(sentence) == sentence
        with reading("ko"):
            said = say_notice(sentence)
        assert said and HANGUL.search(said) and english(said) == [], said
        assert ".." not in said, said
        assert "3월 3일 (월) 오후 2:00 KST" in said or "back" in sentence, said


def test_more_time_and_a_seat_taken_over_reach_korean_seats_in_korean(eng: Engine,
                                                                      now: datetime) -> None:
    """The service's own notices (more time, your seat taken over, a seat replaced at the
    table) as the Korean seats receive them, by email and SMS: no English sentence."""
    game_id = new_game(eng, now, 3, sms_seats=(1,))
    for seat in range(3):
        _apply(eng, game_id, seat, "LANG KO", now)
    db.run_transaction(lambda s: games.extend(s, game_id, 24, now=now), eng)
    db.run_transaction(lambda s: games.replace_seat(
        s, game_id, 2, games.PlayerSpec("Player 8", email="p8@example.org"), now=now), eng)
    notices = [m for m in rows(eng, OutboundMessage, game_id=game_id, kind="notice")
               if m.created_at >= now]
    assert {m.seat for m in notices} >= {0, 1, 2}
    for message in notices:
        for text in (message.text, message.sms_body or ""):
            assert english(text.replace("Player 8", "")) == [], (english(text), text)
        assert HANGUL.search(message.text), message.text
    with reading("ko"):
        digest = say_notice(R.DIGEST_NOTICE(game="Nassau").to_dict())
        started = say_notice(R.LEFT_OUT(game="Nassau", names="Player 1, Player 2").to_dict())
    for said in (digest, started):
        assert said and HANGUL.search(said) and english(said) == [], said
        assert ".." not in said, said
