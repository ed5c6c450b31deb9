"""The glossary (pbm/i18n/glossary.toml): every game term in English and Korean, its Event
card names the engine's, its Korean words the rulebook's where the rulebook gives one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cards import EVENT_CARD_TABLE, EventTitle, Hold, Loyalty, Ship, Symbol
from pbm.i18n.glossary import all_words, event_name, section, term, terms

RULEBOOK = Path("/work/shared/seeds/003_6ab775a98694ce46.txt")


def test_every_event_card_is_named_as_in_the_engine() -> None:
    events = section("events")
    assert set(events) == {t.value for t in EventTitle}
    for info in EVENT_CARD_TABLE:
        assert event_name(info.title.value) == info.name
        assert event_name(info.title.value, "ko")


def test_ships_teams_and_vote_symbols_cover_the_engine() -> None:
    assert {s.value for s in Ship} <= set(section("ships"))
    assert {h.value for h in Hold} <= set(section("teams"))
    assert {lo.value for lo in Loyalty} <= set(section("teams"))
    assert {s.value for s in Symbol} <= set(section("symbols"))


@pytest.mark.parametrize(("sec", "key", "ko"), [
    ("ships", "FD", "플라잉 더치맨"), ("ships", "JR", "졸리 로저"), ("ranks", "CAPTAIN", "선장"),
    ("ranks", "FIRST_MATE", "일등 항해사"), ("ranks", "CABIN_BOY", "초보선원"),
    ("ranks", "GOVERNOR", "토르투가 총독"), ("ships", "GALLEON", "스페인 갈레온"),
    ("teams", "BRITISH", "영국"), ("teams", "FRENCH", "프랑스"), ("teams", "DUTCH", "네덜란드"),
    ("actions", "ATTACK", "공격"), ("actions", "MUTINY", "반란"), ("actions", "BRAWL", "전투"),
    ("actions", "MAROON", "고립"), ("things", "EVENT_CARD", "이벤트 카드"),
    ("things", "VOTE_CARD", "투표 카드"), ("things", "LOYALTY_CARD", "충성심 카드"),
    ("symbols", "CANNON", "대포"), ("symbols", "TORCH", "횃불"), ("symbols", "WATER", "물"),
    ("symbols", "SKULL", "해골"), ("symbols", "HELM", "키"),
    ("events", "SPANISH_ARMADA", "스페인 무적 함대"), ("events", "ALBATROSS", "알바트로스"),
    ("events", "FACADE", "허울"), ("events", "CABIN_FEVER", "밀실 공포증"),
])
def test_the_rulebook_words(sec: str, key: str, ko: str) -> None:
    assert term(sec, key, "ko") == ko
    assert terms()[(sec, key)].source == "rulebook"


def test_every_term_marked_rulebook_is_in_the_korean_rulebook() -> None:
    if not RULEBOOK.exists():
        pytest.skip("the Korean rulebook is not on this machine")
    text = RULEBOOK.read_text(encoding="utf-8").replace(" ", "")
    for t in terms().values():
        assert t.source in ("rulebook", "chosen"), t
        if t.source == "rulebook":
            assert t.word("ko").replace(" ", "") in text, t


def test_every_term_has_both_languages_and_missing_ones_fall_back_to_english() -> None:
    assert all(t.words.get("en") and t.words.get("ko") for t in terms().values())
    assert term("ranks", "CAPTAIN", "fr") == "Captain"
    assert len(all_words("ko")) == len(terms())
