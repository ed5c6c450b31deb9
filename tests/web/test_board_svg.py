"""The board picture of the admin page: well-formed SVG of the public view, never a secret."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import engine
from engine.simulate import random_game
from pbm.admin.board_svg import board_svg, short_name

SVG = "{http://www.w3.org/2000/svg}"


def snapshots(players: int, seed: int) -> list[engine.GameState]:
    states: list[engine.GameState] = []
    random_game(players, seed, observe=lambda _b, _s, _c, after, _e: states.append(after))
    return states


@pytest.mark.parametrize("players", [2, 5, 9])
def test_every_pawn_is_drawn_once_in_every_position_of_a_game(players: int) -> None:
    states = snapshots(players, seed=players)
    for state in [*states[:: max(1, len(states) // 15)], states[-1]]:
        view = engine.public_view(state).to_dict()
        root = ET.fromstring(board_svg(view))
        pawns = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g")  # type: ignore[union-attr]
                 if g.get("class") == "pawn"]
        assert len(pawns) == players, pawns
        for p in view["players"]:
            assert any(f"Seat {p['seat'] + 1}: {p['name']}" in t for t in pawns)  # type: ignore[operator]


def test_two_games_that_differ_only_in_secrets_look_the_same() -> None:
    names = ["Ann", "Bob", "Cy", "Dee"]
    b, f = engine.Loyalty.BRITISH, engine.Loyalty.FRENCH
    one = engine.new_game(names, 3, engine.GameOptions(loyalties=(b, f, b, f)))
    two = engine.new_game(names, 3, engine.GameOptions(loyalties=(f, b, f, b)))
    assert one.loyalties != two.loyalties
    assert board_svg(engine.public_view(one).to_dict()) == board_svg(
        engine.public_view(two).to_dict())


def test_the_end_of_a_game_names_the_winner() -> None:
    final = engine.public_view(snapshots(5, seed=11)[-1]).to_dict()
    assert f"Game over: {(final['winner'] or 'nobody').title()} win" in board_svg(final)


def test_names_are_escaped_and_shortened() -> None:
    state = engine.new_game(["<script>alert(1)</script>", "Bartholomew Roberts"], seed=1)
    svg = board_svg(engine.public_view(state).to_dict())
    assert "<script>" not in svg
    ET.fromstring(svg)
    assert short_name("Bartholomew Roberts") == "Barthol…"
    assert short_name("Anne Bonny") == "Anne"
    assert short_name("Ann") == "Ann"
