"""A Korean reader's HELP, refusals, card effects and game history (issue 24): every HELP
topic by email and SMS in Korean (templates/help/ko/), within the Korean SMS budget; every
reason a reply is refused or not understood (the parser's, the engine's, the service's) said
in Korean; every Event card's effect in the catalogue; every engine event kind with a Korean
sentence in news and LOG. English readers get what they always got (test_render_golden)."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.cards import EVENT_CARD_TABLE
from engine.reasons import Reason
from pbm.i18n import glossary
from pbm.i18n.cards import CARD_EFFECTS
from pbm.i18n.translate import _, reading  # _: gettext's conventional public name
from pbm.inbound.applying import SETTLED
from pbm.messages import Channel, MessageKind
from pbm.render import SMS_MAX_KO_UNITS, event_lines, render, sms_segments, utf16_units
from pbm.render.gsm7 import KO_SMS_PARTS
from pbm.render.names import HELP_FILES, help_file
from pbm.render.news import card_line, voice
from pbm.render.reasons import UNKNOWN, say_reason
from pbm.replies import read_sms_reply
from pbm.replies import reasons as R
from pbm.replies.changes import final_action_reason
from pbm.replies.korean import to_english
from tests.fixtures.messages import context_for, simulated_states, with_fields
from tests.pbm.test_render_korean import HANGUL, english_words
from tests.pbm.test_render_sms import asked_seats

ROOT = Path(__file__).resolve().parents[2]
HELP = ROOT / "templates" / "help"
ENGINE = ROOT / "engine"
#: Setting commands keep their English words in Korean HELP (the settings parser reads
#: English only; a Korean player types ZONE Seoul): HELP SETTINGS / TALK name them.
SETTING_WORDS = re.compile(r"\b(?:SETTINGS|ZONE|QUIET|AWAY|BACK|VIA|DIGEST|TALK|CALENDAR|"
                           r"LANG|EMAIL|SMS|BOTH|ON|OFF|EN|KO|UTC|Asia/Seoul|Seoul|until Fri|"
                           r"days)\b")


def korean(ctx):  # type: ignore[no-untyped-def]
    return dataclasses.replace(ctx, language="ko", time_zone="Asia/Seoul")


def leaks(text: str, names: list[str] = ()) -> list[str]:  # type: ignore[assignment]
    return english_words(SETTING_WORDS.sub(" ", text), [*names, "Nassau"])


# ------------------------------------------------------------------ HELP files


def test_every_english_help_text_has_a_korean_one_for_email_and_sms() -> None:
    english = sorted(p.relative_to(HELP) for p in HELP.rglob("*.txt") if p.parts[
        len(HELP.parts)] != "ko")
    assert len(english) >= 11
    for path in english:
        assert (HELP / "ko" / path).is_file(), path
    for name in set(HELP_FILES.values()):
        assert help_file(name, lang="ko") == f"ko/{name}"
        assert help_file(name, lang="en") == name
        assert help_file(name, sms=True, lang="ko").startswith("ko/sms/")


@pytest.mark.parametrize("path", sorted((HELP / "ko").rglob("*.txt")), ids=str)
def test_a_korean_help_text_is_korean_and_names_no_english_game_word(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert HANGUL.search(text)
    assert leaks(text) == [], (path, leaks(text))
    assert "?" not in text and "\ufffd" not in text


#: Korean commands HELP teaches, and the English command each must be read as.
TAUGHT = [
    ("1번 4번 확인", "VIEW 1 4"), ("3번 공개", "REVEAL 3"), ("1 4 민준 지목", "FORCE 1 4 민준"),
    ("보트", "ROW"), ("보트 더치맨", "ROW FD"), ("보트 로저", "ROW JR"), ("승선", "BOARD"),
    ("상륙", "LAND"), ("공격", "ATTACK"), ("민준 고립", "MAROON 민준"), ("반란", "MUTINY"),
    ("보물 옮기기 영국으로", "SHIFT to BRITISH"), ("전투", "BRAWL"), ("투표 2", "VOTE 2"),
    ("선택 4", "CHOOSE 4"), ("민준 쏘기", "SHOOT 민준"), ("민준 주기", "GIVE 민준"),
    ("프랑스로 가져오기", "TAKE to FRENCH"), ("영국에 놓기", "PLACE BRITISH"),
    ("허가증 민준 더치맨", "MARQUE 민준 FD"), ("보관", "SAVE"), ("샘", "FOUNTAIN"),
    ("수락", "ACCEPT"), ("상태", "STATUS"), ("기록", "LOG"), ("투표 1 3", "VOTE 1 3"),
    ("도움말 투표", "HELP VOTE"), ("도움말 차례", "HELP TURN"), ("도움말 카드", "HELP CARDS"),
    ("도움말 설정", "HELP SETTINGS"), ("도움말 대화", "HELP TALK"), ("그만", "STOP"),
    ("재개", "START"), ("참가", "JOIN"), ("거절", "DECLINE"), ("말: 할 말", "SAY 할 말"),
    ("투표 도움말", "HELP VOTE"), ("설정 도움말", "HELP SETTINGS"), ("카드 설명", "HELP CARDS"),
    ("도움말 알바트로스", "HELP Albatross"), ("도움말 검은 딱지", "HELP Black Spot"),
    ("도움말", "HELP"), ("도움말 좀 주세요", "HELP"),
]


@pytest.mark.parametrize(("korean_words", "english"), TAUGHT)
def test_every_korean_command_help_teaches_is_understood(korean_words: str,
                                                         english: str) -> None:
    assert to_english(korean_words, ["민준", "서연"]) == english


def test_the_commands_help_teaches_are_the_ones_tested() -> None:
    texts = "\n".join(p.read_text(encoding="utf-8") for p in (HELP / "ko").rglob("*.txt"))
    for words in ("1번 4번 확인", "3번 공개", "1 4 민준 지목", "보트 더치맨", "승선", "상륙",
                  "민준 고립", "보물 옮기기 영국으로", "투표 2", "선택 4", "민준 쏘기",
                  "프랑스로 가져오기", "영국에 놓기", "허가증 민준 더치맨", "도움말 투표",
                  "도움말 차례", "도움말 카드", "도움말 설정", "상태", "기록", "투표 1 3"):
        assert words in texts, words


def _help_reply(topic: str, lang: str, state: Any = None, seat: int = 0):  # type: ignore[no-untyped-def]
    if state is None:
        state, seat = next(asked_seats(4, 2001, rename=False))
    ctx = context_for(MessageKind.REPLY, state, seat, [])
    ctx = with_fields(ctx, reply={"understood": [], "meta": [], "not_understood": [],
                                  "ignored": []}, done=[], rejected=[], help=topic, log=False)
    return dataclasses.replace(ctx, language=lang,
                               time_zone="Asia/Seoul" if lang == "ko" else ctx.time_zone), state


#: Every HELP topic: the general help, each topic word, all cards, each card by name.
TOPICS = ["", *sorted(HELP_FILES), "CARDS", "EVENTS", *(
    info.name.upper() for info in EVENT_CARD_TABLE if info.implemented), "BLACK SPOT",
    "albatros"]


@pytest.mark.parametrize("topic", TOPICS)
def test_help_by_sms_in_korean_is_korean_within_budget_and_as_many_texts(topic: str) -> None:
    ctx, state = _help_reply(topic, "ko")
    english, _state = _help_reply(topic, "en", state)
    sms = render(ctx, Channel.SMS)
    texts = [sms.sms, *sms.sms_more]
    english_sms = render(english, Channel.SMS)
    assert len(texts) == len([english_sms.sms, *english_sms.sms_more])
    for text in texts:
        assert text is not None and text.startswith("토르투가 Nassau: ")
        assert utf16_units(text) <= SMS_MAX_KO_UNITS, text
        assert sms_segments(text) <= KO_SMS_PARTS, text
        assert not text.endswith(("...", "…")), text  # nothing cut
        assert leaks(text, list(state.names)) == [], (leaks(text, list(state.names)), text)


def test_korean_sms_help_fits_with_the_longest_game_name() -> None:
    state, seat = next(asked_seats(4, 2001, rename=False))
    for topic in TOPICS:
        ctx, _state = _help_reply(topic, "ko", state, seat)
        ctx = dataclasses.replace(ctx, game_name="Twenty chars game na")
        sms = render(ctx, Channel.SMS)
        for text in (sms.sms, *sms.sms_more):
            assert text is not None and not text.endswith(("...", "…")), (topic, text)
            assert utf16_units(text) <= SMS_MAX_KO_UNITS, (topic, text)


@pytest.mark.parametrize("topic", TOPICS)
def test_help_by_email_in_korean_is_the_korean_text(topic: str) -> None:
    ctx, _state = _help_reply(topic, "ko")
    email = render(ctx, Channel.EMAIL)
    name = HELP_FILES.get(topic.upper(), "general")
    korean_text = (HELP / "ko" / f"{name}.txt").read_text(encoding="utf-8").strip()
    english_text = (HELP / f"{name}.txt").read_text(encoding="utf-8").strip()
    from pbm.render.model import help_cards

    with reading("ko"):
        cards = help_cards(topic)
    if len(cards) != 1:
        assert korean_text.splitlines()[0] in email.text
    assert english_text.splitlines()[0] not in email.text
    for line in cards:
        assert line in email.text.replace("\n    ", " ") and HANGUL.search(line)
        assert leaks(line) == [], line
    section = email.text.split("도움말", 1)[1]
    assert "HELP" not in section.split("\n\n", 1)[0] and "THE EVENT CARDS" not in section


# ------------------------------------------------------------------ refusals, explanations


def test_refusals_of_real_commands_are_said_in_korean() -> None:
    """Commands tried on real states of 2-9 player games: every engine refusal is a reason
    code (stored as the reply's outcome stores it), and the Korean answer names no English
    game word."""
    commands = ["VIEW 1 9", "VIEW 1", "REVEAL 6", "ATTACK", "MUTINY", "BRAWL", "ROW", "ROW FD",
                "ROW JR", "LAND", "BOARD", "VOTE 1", "VOTE 1 2", "VOTE 9", "SHIFT TO BRITISH",
                "MAROON 2", "FORCE 1 2 1", "FORCE 1 2 2", "CHOOSE 3", "TAKE TO FRENCH",
                "PLACE BRITISH", "SAVE", "MARQUE 2 FD", "ATLANTIS", "FOUNTAIN", "MAP BRITISH",
                "REVOTE 1", "SHOOT 1", "GIVE 2", "VIEW 2 2"]
    seen: set[str] = set()
    checked = 0
    for n in (2, 4, 9):
        for state, seat in list(asked_seats(n, 2300 + n, rename=False))[::9]:
            rejected = []
            for text in commands:
                try:
                    engine.apply(state, seat, engine.parse_command(text))
                except engine.EngineError as exc:
                    assert exc.why is not None, str(exc)
                    rejected.append({"command": text, "reason": exc.why.to_dict()})
                    inner = exc.why.params.get("reason")
                    seen.add(f"{exc.why.code} {getattr(inner, 'code', '')}")
            ctx = korean(context_for(MessageKind.REPLY, state, seat, []))
            ctx = with_fields(ctx, reply={"understood": [], "meta": [], "not_understood": [],
                                          "ignored": []}, done=[], rejected=rejected,
                              help=None, log=False)
            email = render(ctx, Channel.EMAIL)
            sms = render(ctx, Channel.SMS).sms or ""
            assert leaks(sms, list(state.names)) == [], (leaks(sms, list(state.names)), sms)
            shown = [line for line in email.text.splitlines() if line.startswith("  - ")]
            assert len(shown) >= len(rejected), email.text
            for line in shown:
                assert leaks(line, list(state.names)) == [], line
            with reading("ko"):
                assert all(say_reason(r["reason"]) != _(UNKNOWN) for r in rejected)
            checked += 1
    assert checked > 20 and len(seen) > 8, seen


#: Replies a Korean player sends that are refused or not understood, in Korean and English.
BAD_REPLIES = ["3번 공개했나?", "9번 공개", "배고파요 3번", "민준 고립", "7번 투표", "revael 3",
               "VOTE 9", "REVEAL", "FORCE 1 2", "MAROON", "ROW FD JR", "SAY", "STOP please now",
               "1 2 3 4 5 6", "이번엔 8번", "서연 지목", "공개 아니면 확인", "MARQUE", "TAKE",
               "ZONE", "QUIET maybe", "아니 잠깐 4번", "9", "hello there reveal 3 or 4"]


def test_parser_explanations_to_a_korean_player_are_korean() -> None:
    checked = 0
    for n in (3, 5):
        for state, seat in list(asked_seats(n, 2400 + n, rename=False))[::15]:
            state = state.copy()
            state.names = ("민준", "서연", "지호", "하은", "도윤")[: state.n]
            view = engine.view(state, seat).to_dict()
            for text in BAD_REPLIES:
                parsed = read_sms_reply(text, view)
                for bad in parsed.not_understood:
                    assert isinstance(bad.reason, Reason), bad.reason
                    assert bad.line == text or not HANGUL.search(bad.line) or \
                        bad.line in text, (bad.line, text)  # told back as written
                ctx = korean(context_for(MessageKind.REPLY, state, seat, []))
                ctx = with_fields(ctx, reply=parsed.to_dict(), done=[], rejected=[],
                                  help=None, log=False)
                sms = render(ctx, Channel.SMS).sms or ""
                names = [*state.names, text]
                assert leaks(sms, names) == [], (text, leaks(sms, names), sms)
                email = render(ctx, Channel.EMAIL).text
                for line in (x for x in email.splitlines() if x.startswith('  "')):
                    assert leaks(line.replace(text, " "), names) == [], (text, line)
                checked += 1
    assert checked > 100


def test_service_refusals_are_said_in_korean_and_english_is_unchanged() -> None:
    view = {"public": {"players": []}, "pending": []}
    # each as the service gives it (the English each stood for, before, in the comment)
    service = [SETTLED, R.NOT_STARTED(), R.NOT_TRIED(), R.TOOK_BACK(word="no wait"),
               final_action_reason("REVEAL 3", view),
               R.SAY_LIMIT(n=3, m=10), R.NO_PHONE(stop="STOP", start="START"),
               R.STOP_BY_EMAIL(stop="STOP", away="AWAY 3 days"), R.VOTE_CLOSED(),
               R.NOTHING_TO_CANCEL(stop="STOP"), R.TABLE_TALK_PICK(cmd="REVEAL 3"),
               R.NOTHING_CHANGED(reason=R.QUESTION_CLOSED()), R.LANG_TAKES(cmd="LANG"),
               R.VIA_TAKES(cmd="VIA", example="VIA SMS"),
               R.NOT_A_SETTING(value="FOO", example="SETTINGS")]
    assert str(R.SAY_LIMIT(n=3, m=10)) == (
        "not relayed: at most 3 SAY lines per reply and 10 per hour reach the table")
    from datetime import UTC, datetime

    from pbm import player_settings

    now = datetime(2026, 12, 2, 12, tzinfo=UTC)
    for call in (lambda: player_settings.resolve_zone("Seol", now),
                 lambda: player_settings.resolve_zone(""),
                 lambda: player_settings.resolve_zone("UTC+19"),
                 lambda: player_settings.parse_quiet("25"),
                 lambda: player_settings.parse_quiet("23-23"),
                 lambda: player_settings.parse_away("100 days", "UTC", now),
                 lambda: player_settings.parse_away("whenever", "UTC", now),
                 lambda: player_settings.parse_on_off("maybe", "DIGEST")):
        with pytest.raises(player_settings.SettingError) as error:
            call()
        service.append(error.value.reason)
    for reason in service:
        assert say_reason(reason) == reason  # English: byte for byte
        with reading("ko"):
            said = say_reason(reason)
        assert said != _(UNKNOWN) and HANGUL.search(said) and leaks(said) == [], said


# ------------------------------------------------------------------ Event card effects


@pytest.mark.parametrize("info", EVENT_CARD_TABLE, ids=lambda i: i.title.value)
def test_every_event_card_effect_is_in_the_catalogue_in_korean(info: Any) -> None:
    assert CARD_EFFECTS[info.title.value] == info.summary  # the engine's sentence is the id
    with reading("ko"):
        effect = _(info.summary)
        line = card_line(info.title.value)
    assert effect != info.summary and HANGUL.search(effect)
    assert leaks(effect) == [], effect
    assert line.startswith(glossary.event_name(info.title.value, "ko") + ": ")
    assert card_line(info.title.value).startswith(info.name + ": ")  # English as before


def test_the_card_table_here_is_the_engines() -> None:
    assert set(CARD_EFFECTS) == {info.title.value for info in EVENT_CARD_TABLE}


# ------------------------------------------------------------------ news and LOG


def _engine_kinds() -> dict[str, set[str]]:
    """Every event kind the engine writes (``say(ev, "kind", ...)``, ``Event("kind", ...)``)
    with the data keys it gives."""
    kinds: dict[str, set[str]] = {}
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", "")
            args = node.args
            if name == "say" and len(args) >= 2 and isinstance(args[1], ast.Constant):
                kinds.setdefault(args[1].value, set()).update(
                    k.arg for k in node.keywords if k.arg and k.arg != "audience")
            elif name == "Event" and args and isinstance(args[0], ast.Constant):
                kinds.setdefault(args[0].value, set())
    return kinds


def test_every_engine_event_kind_has_its_own_korean_sentence() -> None:
    kinds = _engine_kinds()
    assert len(kinds) >= 39, sorted(kinds)
    with reading("ko"):
        fallback = _("Something happened in the game.")
        for kind, keys in kinds.items():
            data = {k: 0 for k in keys}
            line = event_lines.line({"kind": kind, "data": data, "text": "English"}, 0,
                                    {0: "민준", 1: "서연"}).text
            assert line != fallback and HANGUL.search(line), kind
            assert "English" not in line


def test_news_and_log_of_real_games_read_in_korean() -> None:
    """Every event of random 2-9 player games, told to every seat: a Korean sentence with
    no English game word; the reader's own moves in the second person (당신)."""
    names = ("민준", "서연", "지호", "하은", "도윤", "수아", "예준", "시우", "지우")
    kinds: set[str] = set()
    second_person = 0
    with reading("ko"):
        fallback = _("Something happened in the game.")
        for n in (2, 4, 6, 9):
            for step in simulated_states(n, 5):
                seats = {i: names[i] for i in range(n)}
                for event in step.events:
                    data = event.to_dict()
                    kinds.add(data["kind"])
                    for reader in range(n):
                        if not event.visible_to(reader):
                            continue
                        line = event_lines.line(data, reader, seats).text
                        assert line != fallback and HANGUL.search(line), data
                        assert leaks(line, list(names)) == [], (line, data)
                        assert "None" not in line and "{" not in line, (line, data)
                        said = voice(data, reader, seats,
                                             [e.to_dict() for e in step.events])
                        if said is not None:
                            assert said[1] == line or said[1], data
                        if data["data"].get("seat") == reader and line.startswith("당신"):
                            second_person += 1
    assert len(kinds) >= 30 and second_person > 100, (len(kinds), second_person)


def test_log_in_korean_by_email_and_sms() -> None:
    steps = list(simulated_states(4, 3))
    state = steps[40].state
    events = [e for step in steps[:41] for e in step.events]
    ctx = korean(context_for(MessageKind.REPLY, state, 1, events))
    ctx = with_fields(ctx, reply={"understood": [], "meta": [], "not_understood": [],
                                  "ignored": []}, done=[], rejected=[], help=None, log=True)
    sms = render(ctx, Channel.SMS)
    texts = [t for t in (sms.sms, *sms.sms_more) if t]
    assert any("기록" in t for t in texts)
    for text in texts:
        assert utf16_units(text) <= SMS_MAX_KO_UNITS, text
        assert leaks(text, list(state.names)) == [], (leaks(text, list(state.names)), text)
    email = render(ctx, Channel.EMAIL).text
    english = render(dataclasses.replace(ctx, language="en"), Channel.EMAIL).text
    public = [e for e in ctx.events if e.get("audience") is None]
    assert public and all(e["text"] not in email for e in public if len(e["text"]) > 20)
    assert any(e["text"] in english for e in public)


def test_a_changed_vote_is_told_in_korean() -> None:
    from pbm.render.reasons import say_done
    from pbm.replies.changes import vote_change

    view = {"cast_vote": {"hand": [{"number": 3, "text": "Cannon / British / Skull"},
                                   {"number": 1, "text": "2 Torch / 2 French / 2 Skull"}]},
            "pending": []}
    change = vote_change("VOTE 3 1", view)
    assert change is not None
    assert say_done(change[1]) == change[1]  # English as it was
    with reading("ko"):
        said = say_done(change[1])
        assert say_done("REVEAL 3") == "REVEAL 3"  # a command: the templates say it
    assert said.startswith("이제 당신의 투표: 3번 카드 (대포 / 영국 국기 / 해골)"), said
    assert leaks(said) == [], said
