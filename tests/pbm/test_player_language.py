"""Issue 24: each player's language ("en" or "ko"), set by the admin (CLI line, --lang, the
web form) and by the player's reply (LANG KO / LANG EN, 한국어로), shown in SETTINGS; one
table may mix languages."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy.engine import Engine

from pbm import db, games, player_settings
from pbm.admin.actions import CreateForm
from pbm.admin_input import InputError, parse_player, player_from_fields
from pbm.games import PlayerSpec
from pbm.replies import read_sms_reply
from tests.pbm.conftest import new_game


def test_a_player_line_may_end_with_the_players_language() -> None:
    spec = parse_player("민준 <minjun@example.kr> +82 10 1234 5678 ko", 1)

    assert spec == PlayerSpec("민준", email="minjun@example.kr", phone="+821012345678",
                              language="ko")
    assert parse_player("Ann <ann@example.org>", 2).language is None
    assert parse_player("Ann <ann@example.org>", 2, default_language="ko").language == "ko"
    assert parse_player("Ann <ann@example.org> en", 2, default_language="ko").language == "en"
    assert parse_player("Ko <ko@example.org>", 3).name == "Ko"  # a name, not a language


def test_an_unknown_or_doubled_language_is_refused() -> None:
    with pytest.raises(InputError, match="not two languages"):
        parse_player("Ann <ann@example.org> ko en", 1)
    with pytest.raises(InputError, match="unknown language 'fr'"):
        player_from_fields(1, "Ann", "ann@example.org", "", "", language="fr")


def test_the_web_form_reads_each_players_language() -> None:
    form = CreateForm.from_form({"name": "reef", "p0_name": "Ann", "p0_email": "a@example.org",
                                 "p1_name": "민준", "p1_email": "m@example.kr",
                                 "p1_lang": "ko"})

    assert [s.language for s in form.player_specs()] == [None, "ko"]


@pytest.mark.parametrize(("line", "arg"), [
    ("LANG KO", "LANG KO"), ("language en", "LANG en"), ("한국어로 바꿔 주세요", "LANG KO"),
    ("언어: 영어", "LANG EN"),
])
def test_lang_lines_read_as_the_lang_setting(line: str, arg: str) -> None:
    [meta] = read_sms_reply(line, None).meta

    assert (meta.name, meta.arg) == ("SET", arg)


def _apply(eng: Engine, game_id: int, seat: int, text: str, now: datetime) -> str:
    def work(session: object) -> str:
        _, player = games.seat_of(session, game_id, seat)  # type: ignore[arg-type]
        return player_settings.apply(session, player, text, now)  # type: ignore[arg-type]

    return str(db.run_transaction(work, eng))


def _language(eng: Engine, game_id: int, seat: int) -> str:
    with db.session_scope(eng, write=False) as session:
        return str(games.seat_of(session, game_id, seat)[1].language)


def test_lang_sets_the_players_language_and_settings_shows_it(eng: Engine,
                                                               now: datetime) -> None:
    game_id = new_game(eng, now, 3)
    assert _language(eng, game_id, 1) == "en"

    assert _apply(eng, game_id, 1, "LANG KO", now).startswith("LANG KO: ")
    assert [_language(eng, game_id, s) for s in range(3)] == ["en", "ko", "en"]  # mixed table
    assert _apply(eng, game_id, 1, "SETTINGS", now).endswith("; LANG KO.")
    assert _apply(eng, game_id, 0, "SETTINGS", now).endswith("CALENDAR OFF.")  # as before

    assert _apply(eng, game_id, 1, "LANG english", now) == (
        "LANG EN: your messages come in English from now on.")
    assert _language(eng, game_id, 1) == "en"
    with pytest.raises(player_settings.SettingError, match="LANG takes EN or KO"):
        _apply(eng, game_id, 1, "LANG FR", now)


def test_a_game_may_seat_players_of_both_languages(eng: Engine, now: datetime) -> None:
    specs = [PlayerSpec("Ann", email="ann@example.org"),
             PlayerSpec("민준", email="minjun@example.kr", language="ko")]
    game_id = db.run_transaction(lambda s: games.create_game(s, "mixed", specs, now=now).id, eng)

    assert [_language(eng, game_id, s) for s in range(2)] == ["en", "ko"]  # type: ignore[arg-type]


def test_pbm_play_lang_ko_seats_the_human_in_korean_and_the_simulated_players_in_english(
) -> None:
    from pbm.demo import make_table

    seats = make_table(4, human="민준", human_language="ko")

    assert [(s.name, s.language) for s in seats if s.language == "ko"] == [("민준", "ko")]
    assert sum(s.language == "en" for s in seats) == 3
    assert all(s.language == "en" for s in make_table(4, human="민준"))
