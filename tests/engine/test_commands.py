"""Canonical command text: printing, parsing, round trips and parse errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Accept,
    Attack,
    Board,
    Brawl,
    Choose,
    CommandParseError,
    Discard,
    Force,
    Fountain,
    Give,
    Hold,
    Land,
    Maroon,
    Marque,
    Mutiny,
    Place,
    Reveal,
    Row,
    Save,
    Shift,
    Ship,
    Shoot,
    Take,
    TakeNone,
    Timeout,
    UseAtlantis,
    UseMap,
    View,
    Vote,
    parse_command,
)

EXAMPLES = [
    (View((1, 4)), "VIEW 1 4"),
    (View((2,)), "VIEW 2"),
    (Reveal(3), "REVEAL 3"),
    (Force((1, 4), 2), "FORCE 1 4 3"),
    (Row(), "ROW"),
    (Row(Ship.FD), "ROW FD"),
    (Board(), "BOARD"),
    (Land(), "LAND"),
    (Attack(), "ATTACK"),
    (Mutiny(), "MUTINY"),
    (Brawl(), "BRAWL"),
    (Maroon(2), "MAROON 3"),
    (Shift(Hold.BRITISH), "SHIFT TO BRITISH"),
    (Marque(2, Ship.JR), "MARQUE 3 JR"),
    (UseMap(Hold.BRITISH), "MAP BRITISH"),
    (Save(), "SAVE"),
    (Vote((2,)), "VOTE 2"),
    (Vote((1, 3)), "VOTE 1 3"),
    (Choose(4), "CHOOSE 4"),
    (Shoot(2), "SHOOT 3"),
    (Give(2), "GIVE 3"),
    (Take(Hold.FRENCH), "TAKE TO FRENCH"),
    (Take(Hold.FRENCH, Hold.BRITISH), "TAKE BRITISH TO FRENCH"),
    (TakeNone(), "TAKE NONE"),
    (Discard(), "DISCARD"),
    (Timeout(), "TIMEOUT"),
    (Place(Hold.BRITISH), "PLACE BRITISH"),
    (Fountain(), "FOUNTAIN"),
    (Accept(), "ACCEPT"),
    (UseAtlantis(), "ATLANTIS"),
]


@pytest.mark.parametrize(("command", "text"), EXAMPLES, ids=[t for _, t in EXAMPLES])
def test_every_command_prints_its_canonical_text_and_parses_back(command: object,
                                                                  text: str) -> None:
    assert str(command) == text
    assert parse_command(text) == command


def test_seat_numbers_are_one_based_in_text_and_zero_based_in_data() -> None:
    assert parse_command("MAROON 1") == Maroon(0)
    assert str(Shoot(0)) == "SHOOT 1"


def test_parsing_ignores_case_and_extra_spaces() -> None:
    assert parse_command("  force 4  1 2 ") == Force((1, 4), 1)


def test_positions_and_card_numbers_are_unordered() -> None:
    assert parse_command("VIEW 4 1") == View((1, 4))
    assert parse_command("VOTE 3 1") == Vote((1, 3))
    assert str(Force((5, 2), 0)) == "FORCE 2 5 1"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "DANCE", "VIEW", "VIEW 1 2 3", "VIEW 0", "VIEW 6", "VIEW 2 2", "REVEAL x",
     "FORCE 1 2", "FORCE 1 1 3", "MAROON 0", "SHIFT BRITISH", "SHIFT TO GOLD", "ROW XX",
     "MARQUE 3", "MARQUE 3 HMS", "TAKE FRENCH", "TAKE TO", "TAKE B TO F X", "PLACE",
     "VOTE", "VOTE 0", "VOTE 1 1", "ATTACK NOW", "SAVE 1", "CHOOSE 9",
     # digits that str.isdigit() accepts and int() refuses, and a number int() refuses
     "REVEAL \u2463", "REVEAL \u2779", "CHOOSE \u136c", "VOTE " + "9" * 5000],
)
def test_malformed_text_raises_a_parse_error_that_echoes_it(text: str) -> None:
    with pytest.raises(CommandParseError) as caught:
        parse_command(text)
    assert caught.value.code == "command/unparseable"
    assert repr(text) in str(caught.value)


def test_decimal_digits_of_any_script_read_as_int_reads_them() -> None:
    assert parse_command("REVEAL \u0663") == Reveal(3)  # Arabic-Indic three


positions = st.integers(min_value=1, max_value=5)
seats = st.integers(min_value=0, max_value=8)
holds = st.sampled_from(list(Hold))
commands = st.one_of(
    st.lists(positions, min_size=1, max_size=2, unique=True).map(lambda p: View(tuple(p))),
    positions.map(Reveal),
    st.tuples(st.lists(positions, min_size=2, max_size=2, unique=True), seats).map(
        lambda a: Force((a[0][0], a[0][1]), a[1])),
    st.sampled_from([None, Ship.FD, Ship.JR]).map(Row),
    seats.map(Maroon),
    holds.map(Shift),
    st.tuples(seats, st.sampled_from(list(Ship))).map(lambda a: Marque(*a)),
    st.lists(st.integers(1, 5), min_size=1, max_size=2, unique=True).map(
        lambda c: Vote(tuple(c))),
    st.tuples(holds, st.one_of(st.none(), holds)).map(lambda a: Take(*a)),
    seats.map(Shoot),
    seats.map(Give),
    positions.map(Choose),
    holds.map(Place),
    holds.map(UseMap),
)


@given(commands)
def test_any_command_round_trips_through_its_text(command: object) -> None:
    assert parse_command(str(command)) == command
