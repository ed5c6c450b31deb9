"""JSON form of the game state, and replay from seed + command log."""

from __future__ import annotations

import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Any

from engine.commands import Command
from engine.state import STAGE_TYPES, GameOptions, GameState

FORMAT = 1


_PLAIN = frozenset({str, int, float, bool, type(None)})


@functools.cache
def _layout(tp: type) -> tuple[tuple[str, ...], bool]:
    """A dataclass's field names, and whether it is a stage (written with its ``type``)."""
    return tuple(f.name for f in dataclasses.fields(tp)), tp.__name__ in STAGE_TYPES


def _encode(value: Any) -> Any:
    tp: Any = type(value)
    if tp in _PLAIN:
        return value
    if tp is list or tp is tuple:
        return [_encode(v) for v in value]
    if tp is dict:
        return {str(k): _encode(v) for k, v in value.items()}
    if tp is GameOptions:
        return value.to_dict()
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names, stage = _layout(tp)
        data = {name: _encode(getattr(value, name)) for name in names}
        if stage:
            data["type"] = tp.__name__
        return data
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


Decoder = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _decode(tp: Any, value: Any) -> Any:
    return _decoder(tp)(value)


@functools.cache
def _decoder(tp: Any) -> Decoder:
    """A function that turns JSON data into a value of type ``tp``, built once per type
    (the type's shape is read here, not on every value: states are loaded per reply)."""
    if tp is Any:
        return _same
    if tp is GameOptions:
        return GameOptions.from_dict
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        plain = _decoder(inner[0]) if len(inner) == 1 else None

        def union(value: Any) -> Any:
            if value is None:
                return None
            if isinstance(value, dict) and "type" in value:
                stage: Any = STAGE_TYPES[value["type"]]
                return _decoder(stage)(value)
            if plain is None:
                raise ValueError(f"cannot tell which of {tp} {value!r} is")
            return plain(value)
        return union
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda value: tuple(item(v) for v in value)
        items = tuple(_decoder(a) for a in args)
        return lambda value: tuple(d(v) for d, v in zip(items, value, strict=True))
    if origin is list:
        (inner_tp,) = typing.get_args(tp)
        item = _decoder(inner_tp)
        return lambda value: [item(v) for v in value]
    if origin is dict:
        key_tp, val_tp = typing.get_args(tp)
        key, val = _decoder(key_tp), _decoder(val_tp)
        return lambda value: {key(k): val(v) for k, v in value.items()}
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp
    if tp is int:
        return int
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_decoder(tp)
    return _same


def _dataclass_decoder(tp: type) -> Decoder:
    hints = typing.get_type_hints(tp)
    fields = tuple((f.name, hints[f.name]) for f in dataclasses.fields(tp))
    built: list[tuple[tuple[str, Decoder], ...]] = []

    def decode(value: Any) -> Any:
        if not built:  # field decoders on first use (a type may refer to itself), whole
            built.append(tuple((name, _decoder(hint)) for name, hint in fields))
        return tp(**{name: field(value[name]) for name, field in built[0] if name in value})
    return decode


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
