"""A board picture is drawn once per process for what it shows (``pbm.outbox``)."""

from __future__ import annotations

import random

import engine
from engine.simulate import random_command
from pbm import outbox_pictures
from pbm.render import board_png


def test_the_picture_never_reads_the_fields_its_reuse_ignores() -> None:
    state = engine.new_game(["Ann", "Bob", "Cyd", "Dee", "Eve"], seed=11)
    rng = random.Random(11)
    for _ in range(25):
        decision = rng.choice(engine.pending(state))
        state, _ = engine.apply(state, decision.seat, random_command(rng, decision))
    public = engine.public_view(state).to_dict()
    shown = {k: v for k, v in public.items() if k not in outbox_pictures.NOT_DRAWN}

    assert board_png(shown) == board_png(public)


def test_a_version_that_changes_nothing_drawn_reuses_the_picture() -> None:
    public = engine.public_view(engine.new_game(["Ann", "Bob", "Cyd"], seed=3)).to_dict()
    first = outbox_pictures.board_picture(public)
    later = outbox_pictures.board_picture({**public, "version": public["version"] + 1})

    assert later is first
    assert outbox_pictures.board_picture({**public, "turn_number": 9}) != first


def test_a_korean_reader_s_picture_is_drawn_once_per_version_beside_the_english_one() -> None:
    public = engine.public_view(engine.new_game(["민준", "Bob", "서연"], seed=3)).to_dict()
    english = outbox_pictures.board_picture(public)
    korean = outbox_pictures.board_picture(public, "ko")

    assert korean != english and english == board_png(public)
    assert korean == board_png(public, "ko")
    later = {**public, "version": public["version"] + 1}
    assert outbox_pictures.board_picture(later, "ko") is korean
