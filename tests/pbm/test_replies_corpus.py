"""The reply corpus: real-looking raw replies from many mail clients, languages and phones,
each with the commands it must produce (tests/fixtures/replies/manifest.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pbm.replies import ReplyResult, email_new_text, read_email_reply, read_sms_reply
from pbm.replies.autoreply import automatic_phrasing
from pbm.replies.extract import parse_mime
from tests.fixtures.reply_expectations import expectation_mismatches
from tests.fixtures.seatviews import scenario

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "replies"
MANIFEST: dict[str, dict[str, Any]] = json.loads(
    (CORPUS / "manifest.json").read_text(encoding="utf-8"))


def parse_fixture(name: str) -> ReplyResult:
    spec = MANIFEST[name]
    view = scenario(spec["scenario"])
    invited = spec["scenario"] == "invited"
    path = CORPUS / name
    if name.endswith(".eml"):
        return read_email_reply(path.read_bytes(), view, invited=invited)
    return read_sms_reply(path.read_text(encoding="utf-8"), view, invited=invited)


def mismatches(name: str, result: ReplyResult) -> list[str]:
    """What differs between the parse of ``name`` and its expectation (empty: all good)."""
    spec = MANIFEST[name]
    problems = []
    if spec.get("automatic") is not None and name.endswith(".eml"):
        raw = (CORPUS / name).read_bytes()
        why = automatic_phrasing(str(parse_mime(raw)["Subject"] or ""), email_new_text(raw))
        if bool(why) != spec["automatic"]:
            problems.append(f"automatic reply recognised: {why!r}")
        if spec["automatic"]:
            return problems  # the service never parses a robot's mail
    return problems + expectation_mismatches(spec, result)


def test_the_corpus_has_over_five_hundred_replies_from_email_and_sms() -> None:
    emails = [n for n in MANIFEST if n.endswith(".eml")]
    sms = [n for n in MANIFEST if n.endswith(".txt")]
    assert len(MANIFEST) >= 510  # ./dev corpus writes 125 of them (tools/never_a_guess_corpus.py)
    assert len([n for n in MANIFEST if "_guess_" in n]) >= 115
    assert len(emails) >= 160 and len(sms) >= 90
    on_disk = {p.name for p in CORPUS.iterdir() if p.suffix in (".eml", ".txt")}
    assert on_disk == set(MANIFEST)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_reply_in_the_corpus_parses_as_expected(name: str) -> None:
    result = parse_fixture(name)
    assert mismatches(name, result) == []


def test_the_whole_corpus_parses_with_full_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    failed = {name: problems for name in sorted(MANIFEST)
              if (problems := mismatches(name, parse_fixture(name)))}
    accuracy = 100.0 * (len(MANIFEST) - len(failed)) / len(MANIFEST)
    kinds: dict[str, list[bool]] = {}
    for name in MANIFEST:
        kinds.setdefault(name.split("_")[0], []).append(name not in failed)
    with capsys.disabled():
        print(f"\nreply corpus: {len(MANIFEST) - len(failed)}/{len(MANIFEST)} parsed as "
              f"expected ({accuracy:.1f}%); by kind: " + ", ".join(
                  f"{kind} {sum(ok)}/{len(ok)}" for kind, ok in sorted(kinds.items())))
    assert failed == {}


def test_no_quoted_prompt_line_is_ever_read_as_a_command() -> None:
    # Every email quotes a real prompt (with its numbered menu); none of it may leak.
    for name in (n for n in MANIFEST if n.endswith(".eml")):
        result = parse_fixture(name)
        for line in [u.line for u in result.understood] + [m.line for m in result.meta]:
            assert "=" not in line and "Reply above" not in line, (name, line)
