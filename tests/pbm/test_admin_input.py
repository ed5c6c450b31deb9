"""What the admin types: players in any common notation, refused when not understood,
with the player's position and name; game names as short slugs."""

from __future__ import annotations

import pytest

from pbm.admin_input import (
    InputError,
    check_game_name,
    parse_player,
    player_from_fields,
    suggest_game_name,
)
from pbm.games import PlayerSpec


@pytest.mark.parametrize(("typed", "spec"), [
    ("Ann (+44) 7700 900123", PlayerSpec("Ann", phone="+447700900123")),
    ("Ann Bonny <Ann@Example.ORG> Europe/Paris",
     PlayerSpec("Ann Bonny", email="Ann@example.org", time_zone="Europe/Paris")),
    ("Bob +1 (555) 123-4567", PlayerSpec("Bob", phone="+15551234567")),
    ("Cy cy@example.org +49 151 1234 5678", PlayerSpec("Cy", "cy@example.org", "+4915112345678")),
    ("Jean-Luc O'Hara <jl@example.org>", PlayerSpec("Jean-Luc O'Hara", "jl@example.org")),
])
def test_players_are_read_in_common_notations(typed: str, spec: PlayerSpec) -> None:
    assert parse_player(typed, 1) == spec


def test_a_national_number_needs_the_phone_region() -> None:
    with pytest.raises(InputError, match=r"player 4 \(Dee\): '07700 900123' has no \+country"):
        parse_player("Dee 07700 900123", 4)
    assert parse_player("Dee 07700 900123", 4, region="gb").phone == "+447700900123"


@pytest.mark.parametrize(("typed", "error"), [
    ("Ann (", r"^player 2 \(Ann\): did not understand '\('"),
    ("Ann <ann@example.org> ;-)", r"^player 2 \(Ann\): did not understand ';-\)'"),
    ("Ann tel:+447700900123", r"did not understand 'tel:\+447700900123'"),
    ("Ann +44 7700 900123 Bea +1 555 123 4567", r"give one phone number"),
    ("Ann <a@example.org> <b@example.org>", r"not two email addresses"),
    ("Ann <ann@example.org> Mars/Base", r"^player 2 \(Ann\): unknown time zone 'Mars/Base'"),
    ("Ann <ann@example.org> Europe/Paris Asia/Tokyo", r"not two time zones"),
])
def test_what_is_not_understood_is_refused_naming_the_player(typed: str, error: str) -> None:
    with pytest.raises(InputError, match=error):
        parse_player(typed, 2)


def test_the_web_form_fields_are_checked_the_same_way() -> None:
    assert player_from_fields(3, "Mary", "", "+44 7700 900003", "", default_zone="Asia/Tokyo",
                              prefer_sms=True) == PlayerSpec(
        "Mary", phone="+447700900003", time_zone="Asia/Tokyo", channel="sms")
    with pytest.raises(InputError, match=r"^player 3 \(Mary\): 'mary@' is not an email"):
        player_from_fields(3, "Mary", "mary@", "", "")


@pytest.mark.parametrize("name", ["harbour", "reef-2", "7-seas", "a"])
def test_short_slugs_are_game_names(name: str) -> None:
    assert check_game_name(name) == name


@pytest.mark.parametrize(("name", "example"), [
    ("bad name!", "bad-name"), ("Harbour", "harbour"), ("Île de la Tortue", "ile-de-la-tortue"),
    ("-x-", "x"), ("!!!", "harbour"), ("a" * 41, "a" * 40),
])
def test_other_game_names_are_refused_with_an_example(name: str, example: str) -> None:
    assert suggest_game_name(name) == example
    with pytest.raises(InputError, match=f"e.g. {example}$"):
        check_game_name(name)
