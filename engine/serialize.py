"""JSON form of the game state, and replay from seed + command log."""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any

from engine.commands import Command
from engine.state import STAGE_TYPES, GameOptions, GameState

FORMAT = 1


def _encode(value: Any) -> Any:
    if isinstance(value, GameOptions):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if type(value).__name__ in STAGE_TYPES:
            data["type"] = type(value).__name__
        return data
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


@functools.cache
def _type_hints(tp: type) -> dict[str, Any]:
    """A dataclass's resolved field types, computed once per class (loads are frequent)."""
    return typing.get_type_hints(tp)


def _decode(tp: Any, value: Any) -> Any:
    if tp is Any:
        return value
    if tp is GameOptions:
        return GameOptions.from_dict(value)
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        args = typing.get_args(tp)
        if value is None:
            return None
        if isinstance(value, dict) and "type" in value:
            return _decode(STAGE_TYPES[value["type"]], value)
        (inner,) = [a for a in args if a is not type(None)]
        return _decode(inner, value)
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        return tuple(_decode(a, v) for a, v in zip(args, value, strict=True))
    if origin is list:
        (inner,) = typing.get_args(tp)
        return [_decode(inner, v) for v in value]
    if origin is dict:
        key_tp, val_tp = typing.get_args(tp)
        return {_decode(key_tp, k): _decode(val_tp, v) for k, v in value.items()}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(value)
    if tp is int:
        return int(value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = _type_hints(tp)
        kwargs = {f.name: _decode(hints[f.name], value[f.name])
                  for f in dataclasses.fields(tp) if f.name in value}
        return tp(**kwargs)
    return value


def to_json(state: GameState) -> str:
    """The whole state as JSON text (includes secrets: store it, never show it)."""
    return json.dumps({"format": FORMAT, "state": _encode(state)}, sort_keys=True,
                      separators=(",", ":"))


def from_json(text: str) -> GameState:
    """Inverse of :func:`to_json`."""
    data = json.loads(text)
    if data.get("format") != FORMAT:
        raise ValueError(f"unknown state format {data.get('format')!r}")
    state = _decode(GameState, data["state"])
    assert isinstance(state, GameState)
    return state


def replay(
    names: Sequence[str],
    seed: int,
    options: GameOptions | None,
    log: Iterable[tuple[int, Command | str]],
) -> GameState:
    """Set up the game again and apply every ``(seat, command)`` of ``log``: the same seed
    and log always give the same state."""
    from engine.rules import apply
    from engine.setup import new_game

    state = new_game(names, seed, options)
    for seat, command in log:
        state, _ = apply(state, seat, command)
    return state
