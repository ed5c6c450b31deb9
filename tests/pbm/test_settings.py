"""Players' settings: how a line is read, and what applying it changes (SQLite and
PostgreSQL); the end-to-end runs through the webhooks are in tests/workers."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.engine import Engine
from sqlmodel import select

from pbm import db, games, player_settings
from pbm.admin.queries import game_detail
from pbm.models import Deadline, DeadlineStatus, GameEvent, OutboundMessage
from pbm.replies import read_sms_reply
from pbm.replies.parse import NotUnderstood
from tests.pbm.conftest import new_game, rows


@pytest.mark.parametrize(("line", "arg"), [
    ("ZONE Europe/Paris", "ZONE Europe/Paris"), ("time zone: London", "ZONE London"),
    ("AWAY until Fri", "AWAY until Fri"), ("I'm away 3 days", "AWAY 3 days"),
    ("back", "BACK"), ("I'm back!", "BACK"), ("via sms", "VIA sms"), ("talk on", "TALK ON"),
    ("Digest off", "DIGEST OFF"), ("CALENDAR ON", "CALENDAR ON"), ("settings", "SETTINGS"),
    ("quiet 23-07", "QUIET 23-07"),
])
def test_a_settings_line_reads_as_its_setting(line: str, arg: str) -> None:
    [meta] = read_sms_reply(line, None).meta

    assert (meta.name, meta.arg) == ("SET", arg)


@pytest.mark.parametrize("line", ["talk to you soon, good luck all", "back to the JR",
                                  "I was away from my desk all day"])
def test_chatter_that_starts_with_a_setting_word_changes_nothing(line: str) -> None:
    result = read_sms_reply(line, None)

    assert not [m for m in result.meta if m.name == "SET"]


@pytest.mark.parametrize("line", ["ZONE Paris; QUIET 23-07", "ZONE Paris, QUIET 23-07",
                                  "zone paris and quiet 23-07"])
def test_two_settings_on_one_line_are_two_settings(line: str) -> None:
    result = read_sms_reply(line, None)

    assert [(m.name, m.arg.casefold()) for m in result.meta] == [
        ("SET", "zone paris"), ("SET", "quiet 23-07")]
    assert not result.not_understood


def test_a_comma_inside_one_setting_does_not_split_it() -> None:
    [meta] = read_sms_reply("AWAY until Fri, 18:00", None).meta

    assert meta.arg == "AWAY until Fri, 18:00"


def test_a_switch_without_on_or_off_is_not_understood_with_the_right_form() -> None:
    [wrong] = read_sms_reply("TALK", None).not_understood

    assert isinstance(wrong, NotUnderstood) and wrong.suggestion == "TALK ON"


@pytest.mark.parametrize(("text", "zone"), [
    ("Europe/Paris", "Europe/Paris"), ("paris", "Europe/Paris"), ("New York", "America/New_York"),
    ("UTC+2", "Etc/GMT-2"), ("gmt-5", "Etc/GMT+5"), ("UTC", "UTC"),
])
def test_a_zone_is_a_zone_name_a_city_or_a_utc_offset(text: str, zone: str) -> None:
    assert player_settings.resolve_zone(text) == zone


def test_a_half_hour_offset_finds_a_real_zone_with_that_offset_all_year() -> None:
    zone = ZoneInfo(player_settings.resolve_zone("+05:30"))

    for month in (1, 7):
        assert zone.utcoffset(datetime(2026, month, 1)) == timedelta(hours=5, minutes=30)


def test_an_unknown_zone_says_which_zone_was_probably_meant() -> None:
    with pytest.raises(player_settings.SettingError, match="Did you mean ZONE Europe/London"):
        player_settings.resolve_zone("Londn")


def test_away_until_a_weekday_means_the_start_of_that_day_in_the_players_zone(
        now: datetime) -> None:
    back = player_settings.parse_away("until Fri", "Europe/Paris", now)  # now: Monday noon UTC

    assert back.isoformat() == "2026-03-05T23:00:00+00:00"  # Friday 00:00 in Paris
    assert player_settings.parse_away("3 days", "UTC", now) == now + timedelta(days=3)


def _seat_deadline(eng: Engine, game_id: int, seat: int) -> Deadline:
    [deadline] = rows(eng, Deadline, game_id=game_id, seat=seat, status=DeadlineStatus.OPEN)
    return deadline


def _apply(eng: Engine, game_id: int, seat: int, text: str, now: datetime) -> str:
    def work(session: object) -> str:
        _, player = games.seat_of(session, game_id, seat)  # type: ignore[arg-type]
        return player_settings.apply(session, player, text, now)  # type: ignore[arg-type]

    return str(db.run_transaction(work, eng))


def test_away_holds_the_seats_deadline_within_the_allowance_and_back_gives_time_back(
        eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 4)
    seat = games.engine.pending(_state(eng, game_id))[0].seat
    due = _seat_deadline(eng, game_id, seat).due_at

    answer = _apply(eng, game_id, seat, "AWAY 5 days", now)

    assert "the most this game allows: 3 days" in answer
    assert _seat_deadline(eng, game_id, seat).due_at == due + timedelta(days=3)
    [event] = rows(eng, GameEvent, game_id=game_id, kind="seat.away")
    assert "is away until" in event.text and event.audience is None
    told = [m for m in rows(eng, OutboundMessage, game_id=game_id) if "is away until" in m.text]
    assert sorted({m.seat for m in told}) == sorted(set(range(4)) - {seat})
    with db.session_scope(eng, write=False) as session:
        [away] = [s for s in game_detail(session, game_id, now, None).seats  # type: ignore[union-attr]
                  if s.away_until is not None]
    assert away.index == seat

    _apply(eng, game_id, seat, "BACK", now + timedelta(days=1))

    assert _seat_deadline(eng, game_id, seat).due_at == due + timedelta(days=1)
    again = _apply(eng, game_id, seat, "AWAY 5 days", now + timedelta(days=1))
    assert "the most this game allows" in again  # 1 day used, 2 left
    assert _seat_deadline(eng, game_id, seat).due_at == due + timedelta(days=3)


def test_settings_lists_every_setting_of_the_player(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 2)
    for line in ("ZONE Tokyo", "QUIET 22-06", "DIGEST ON", "TALK ON", "CALENDAR ON"):
        _apply(eng, game_id, 1, line, now)

    answer = _apply(eng, game_id, 1, "SETTINGS", now)

    assert answer == ("SETTINGS: ZONE Asia/Tokyo (Mon 21:00 JST); QUIET 22-06; AWAY no; "
                      "VIA EMAIL; DIGEST ON; TALK ON; CALENDAR ON.")


def test_via_sms_needs_a_phone_number(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 2)

    with pytest.raises(player_settings.SettingError, match="no phone number"):
        _apply(eng, game_id, 0, "VIA SMS", now)


def test_the_invitation_tells_the_away_allowance(eng: Engine, now: datetime) -> None:
    game_id = new_game(eng, now, 3, start=False)

    [invitation, *_] = rows(eng, OutboundMessage, game_id=game_id, kind="invitation")

    assert "your deadlines wait, up to 3 days in this game" in invitation.text


def test_a_setting_with_a_game_command_reads_as_both(now: datetime) -> None:
    result = read_sms_reply("ZONE Paris\nSTATUS", None)

    assert [(m.name, m.arg) for m in result.meta] == [("SET", "ZONE Paris"), ("STATUS", "")]


def _state(eng: Engine, game_id: int) -> games.engine.GameState:
    from pbm.models import Game

    with db.session_scope(eng, write=False) as session:
        return games.load_state(session.exec(select(Game).where(Game.id == game_id)).one())
