"""The typed message contract (``pbm.message_payloads``): one frozen payload per kind, a
field a kind does not carry refused, the renderer reading the fields; and the SMS forms a
language's traits choose (``language.toml``), so a new language needs no Python."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from pbm.i18n import languages, translate
from pbm.message_payloads import (
    PAYLOADS,
    Common,
    Paused,
    Reminder,
    Said,
    Status,
    TableTalk,
    split,
)
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import render
from pbm.render.sms_board import sms_card
from tests.fixtures.seatviews import scenario

CARD = {"top": ["CANNON"], "middle": ["BRITISH"], "bottom": ["SKULL"]}


def _context(payload: object, common: Common | None = None) -> MessageContext:
    view = scenario("turn")
    assert view is not None
    return MessageContext(payload=payload, common=common or Common(),  # type: ignore[arg-type]
                          game_id=7, game_name="Nassau", seat=view["seat"],
                          player_name=view["name"], seat_view=view)


def test_every_kind_has_its_own_payload_class_and_the_context_takes_its_kind_from_it() -> None:
    assert set(PAYLOADS) == set(MessageKind)
    assert len(set(PAYLOADS.values())) == len(MessageKind)
    for kind, cls in PAYLOADS.items():
        assert cls.KIND is kind
        assert _context(cls()).kind is kind  # every field has a default


def test_payloads_and_the_common_part_are_frozen() -> None:
    with pytest.raises(FrozenInstanceError):
        Paused(reason="lunch").reason = "dinner"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Common().reply_to = "play+x@example.org"  # type: ignore[misc]


def test_a_field_the_kind_does_not_carry_is_refused_not_ignored() -> None:
    payload, common = split(MessageKind.PAUSED, {"reason": "lunch", "reply_to": "a@b.c"})
    assert payload == Paused(reason="lunch") and common.reply_to == "a@b.c"
    with pytest.raises(TypeError):
        split(MessageKind.PAUSED, {"reasn": "lunch"})  # a typo
    with pytest.raises(TypeError):
        split(MessageKind.STATUS, {"players": ("Ann",)})  # only an invitation names them


def test_the_renderer_reads_the_typed_fields_in_every_channel() -> None:
    paused = _context(Paused(reason="the admin is at sea"))
    assert "the admin is at sea" in render(paused, Channel.EMAIL).text
    assert "the admin is at sea" in (render(paused, Channel.SMS).sms or "")
    talk = render(_context(TableTalk(speaker="Cleo", text="Trust me")), Channel.SMS).sms or ""
    assert "Cleo says:" in talk and "Trust me" in talk
    warned = render(_context(Reminder(if_silent_sms="VIEW 1 2", policy="default")),
                    Channel.SMS).sms or ""
    assert "No reply = VIEW 1 2." in warned
    folded = _context(Status(), Common(table_talk=(Said(name="Bo", text="ahoy mates"),)))
    assert "ahoy mates" in render(folded, Channel.EMAIL).text


def test_the_korean_sms_forms_come_from_its_traits() -> None:
    english, korean = languages.traits("en"), languages.traits("ko")
    assert (english.sms_card_mark, korean.sms_card_mark) == ("capitals", "brackets")
    assert not english.sms_menu_first and korean.sms_menu_first
    with translate.reading("en"):
        assert sms_card(CARD, mark="middle") == "Cannon/BRIT/Skull"
    with translate.reading("ko"):
        assert sms_card(CARD, mark="middle") == "대포/[영국]/해골"


@pytest.fixture
def third_language(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A language ``xx`` added as data only: an empty catalogue and its language.toml."""
    folder = tmp_path / "xx" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    with (folder / "messages.mo").open("wb") as mo:
        write_mo(mo, Catalog(locale="en"))
    (tmp_path / "xx" / "language.toml").write_text(
        'sms_card_mark = "brackets"\nsms_menu_first = true\n', encoding="utf-8")
    monkeypatch.setenv("LOCALE_PATH", str(tmp_path))
    languages.refresh()
    yield "xx"
    monkeypatch.delenv("LOCALE_PATH")
    languages.refresh()
    shutil.rmtree(tmp_path / "xx")


def test_a_new_language_chooses_its_sms_forms_in_its_language_toml(third_language: str) -> None:
    assert languages.traits(third_language).sms_menu_first
    assert not languages.traits(third_language).sms_terse_menus  # English's default
    with translate.reading(third_language) as lang:
        assert lang == third_language
        assert sms_card(CARD, mark="middle") == "Cannon/[Brit]/Skull"
