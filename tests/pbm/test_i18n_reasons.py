"""Reasons are data: every reason code (the engine's, the reply reader's, the service's)
has its English template in the catalogue with a Korean translation; English readers get
the template filled in, byte for byte; a reason stored as a plain sentence is never parsed
back; the engine refuses a command only with a reason code."""

from __future__ import annotations

import ast
import json
import string
from pathlib import Path

import pytest

import engine
from engine import reasons as engine_reasons
from engine.reasons import TEMPLATES, Reason, as_reason
from pbm.i18n.translate import _, reading
from pbm.render import reasons as render_reasons
from pbm.render.reasons import UNKNOWN, say
from pbm.replies import reasons as R
from tests.pbm.test_render_korean import HANGUL

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _fields(template: str) -> list[str]:
    return sorted({name for _text, name, _spec, _conv in string.Formatter().parse(template)
                   if name})


def _sample(code: str) -> Reason:
    """A reason of ``code`` with every parameter filled (a nested reason for ``reason``)."""
    return Reason(code, {name: engine_reasons.GAME_OVER() if name == "reason" else "3"
                         for name in _fields(TEMPLATES[code])})


def test_the_codes_are_declared_where_the_renderer_reads_them() -> None:
    assert (engine_reasons, R) == render_reasons.DECLARING
    assert len(TEMPLATES) > 100


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_every_reason_code_is_in_the_catalogue_in_korean(code: str) -> None:
    template = TEMPLATES[code]
    with reading("ko"):
        korean = _(template)
        said = say(_sample(code))
    words = string.Formatter().parse(template)
    if any(c.isalpha() for text, *_rest in words for c in text):  # not "{cmd}: {reason}"
        assert korean != template, f"{code}: no Korean for {template!r} (./dev i18n)"
        assert HANGUL.search(korean), korean
    assert set(_fields(korean)) <= set(_fields(template)), (template, korean)
    assert said and said != _(UNKNOWN)


@pytest.mark.parametrize("code", sorted(TEMPLATES))
def test_english_is_the_template_filled_in(code: str) -> None:
    reason = _sample(code)
    assert say(reason) == str(reason) == TEMPLATES[code].format(**{
        k: str(v) for k, v in reason.params.items()})
    stored = json.loads(json.dumps(reason.to_dict()))  # as a reply's outcome keeps it
    assert as_reason(stored) == reason and as_reason(stored).code == code  # type: ignore[union-attr]
    assert say(stored) == str(reason)


def test_a_stored_sentence_is_shown_as_it_is_in_english_and_never_parsed_back() -> None:
    sentence = "there is no seat 7"  # what an outcome stored before reasons were data
    assert say(sentence) == sentence
    with reading("ko"):
        assert say(sentence) == _(UNKNOWN)
        assert say(engine_reasons.NO_SEAT(n=7)) != _(UNKNOWN)  # the same, as data


def test_a_nested_reason_is_said_in_the_readers_words() -> None:
    refused = engine_reasons.NOT_ALLOWED(cmd="REVEAL 3", reason=engine_reasons.NO_FACE_DOWN(n=3))
    assert str(refused) == ("REVEAL 3 is not allowed: there is no face-down Event card at "
                            "position 3")
    with reading("ko"):
        said = say(refused.to_dict())
        inner = say(engine_reasons.NO_FACE_DOWN(n=3))
    assert inner in said and HANGUL.search(said)


_REFUSALS = {"IllegalCommandError", "NotYourDecisionError", "GameOverError",
             "CommandParseError"}


def _is_sentence(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr | ast.BinOp) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str))


def test_the_engine_refuses_only_with_reason_codes() -> None:
    """A refusal written as an English sentence would reach a Korean reader as
    "that cannot be done now": each must be a code of ``engine.reasons``."""
    sentences = []
    for path in ("legal.py", "rules.py", "commands.py", "defaults.py"):
        tree = ast.parse((ENGINE / path).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and getattr(
                    node.exc.func, "id", "") in _REFUSALS:
                sentences += [(path, node.lineno) for a in node.exc.args[1:] or
                              node.exc.args if _is_sentence(a)]
            if isinstance(node, ast.FunctionDef) and node.name == "why_illegal":
                sentences += [(path, n.lineno) for n in ast.walk(node)
                              if isinstance(n, ast.Return) and n.value is not None
                              and _is_sentence(n.value)]
    assert sentences == []


def test_a_refusal_of_the_engine_carries_its_reason() -> None:
    state = engine.new_game(["Ann", "Bob", "Cleo"], seed=1)
    with pytest.raises(engine.EngineError) as refused:
        engine.apply(state, 0, engine.parse_command("VIEW 1 9"))
    why = refused.value.why
    assert why is not None and why.code == "command.unparseable"
    assert refused.value.message == (
        "cannot parse 'VIEW 1 9': an Event card position must be 1..5, got 9")
