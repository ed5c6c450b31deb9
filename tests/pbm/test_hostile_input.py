"""Hostile input without a database: text hygiene, MIME limits, numbers, bounded parsing,
Authentication-Results, and the API docs switch."""

from __future__ import annotations

import time
from email import message_from_bytes, policy

import pytest

import engine
from pbm.config import Settings
from pbm.hygiene import clean_line, clean_text, has_line_longer_than, mime_problem
from pbm.inbound import parse_email, sender_authenticated
from pbm.replies import bounded_lines, read_email_reply, read_sms_reply
from pbm.replies.words import number_of, read_int
from tests.fixtures.hostile import UNICODE_DIGITS, nested_multipart, reply_mail

SETTINGS = Settings(_env_file=None)  # type: ignore[call-arg]


def reply(body: str, **extra: str) -> bytes:
    return reply_mail("ann@example.org", "play+tok12345@tortuga.test", body,
                  headers=[f"{k}: {v}" for k, v in extra.items()])


def deep(depth: int) -> bytes:
    head = b"From: <ann@example.org>\r\nTo: play+tok12345@tortuga.test\r\nMIME-Version: 1.0\r\n"
    return head + nested_multipart(depth, b"Content-Type: text/plain\r\n\r\nREVEAL 3\r\n")


def test_clean_text_drops_nul_controls_surrogates_and_bidi_overrides_but_keeps_lines() -> None:
    assert clean_text("a\x00b\x1b[31mc\x7f\x85d\udcff\u202ee\u2066f\ng\th") == "ab[31mcdef\ng\th"
    assert clean_line(" Ann\x00\r\n <a@b>\t") == "Ann  <a@b>"


def test_a_multipart_nested_a_thousand_deep_is_refused_and_never_raises() -> None:
    raw = deep(1000)

    message = parse_email(raw)

    assert "ann@example.org" in str(message["From"])  # its headers are still read
    assert "more than" in (mime_problem(raw, SETTINGS) or "")


@pytest.mark.parametrize(("raw", "problem"), [
    (deep(12), "nested more than 12 deep"),
    (b"From: a@b.c\r\nContent-Type: multipart/mixed; boundary=w\r\n\r\n"
     + b"--w\r\nContent-Type: text/plain\r\n\r\nx\r\n" * 150 + b"--w--\r\n", "more than 100 MIME"),
    (reply("REVEAL 3", **{f"X-H{i}": "1" for i in range(400)}), "header fields"),
    (reply("REVEAL 3\r\n" + "x" * 300_000), "a line longer than"),
])
def test_mime_beyond_the_limits_is_refused_with_the_reason(raw: bytes, problem: str) -> None:
    assert problem in (mime_problem(raw, SETTINGS) or "")


def test_an_ordinary_reply_is_within_the_limits() -> None:
    assert mime_problem(reply("REVEAL 3"), SETTINGS) is None
    assert mime_problem(deep(11), SETTINGS) is None  # 11 containers and the text: 12 deep


def test_the_long_line_check_agrees_with_splitting_lines() -> None:
    import random

    rng = random.Random(5)
    for _ in range(300):
        raw = bytes(rng.choice(b"ab\n") for _ in range(rng.randint(0, 200)))
        limit = rng.randint(1, 40)
        assert has_line_longer_than(raw, limit) == any(
            len(line) > limit for line in raw.split(b"\n")), (raw, limit)


def test_numbers_are_read_exactly_as_int_reads_them() -> None:
    for char in map(chr, range(0x30, 0x1FBFA)):
        if not char.isdigit():
            continue
        try:
            expected: int | None = int(char)
        except ValueError:
            expected = None
        assert read_int(char) == expected
    assert read_int("④") is None and number_of("፬") is None and number_of("٣") == 3


def seat_views() -> list[dict[str, object]]:
    views = []
    for seed in (1, 2, 3):
        state = engine.new_game(["Ann", "Bob", "Cleo", "Dirk"], seed)
        views += [engine.view(state, seat).to_dict() for seat in range(4)]
    return views


def test_unicode_digits_in_any_command_never_raise() -> None:
    weird = [c for c in map(chr, range(0x30, 0x1FBFA)) if c.isdigit() and not c.isdecimal()]
    verbs = ["", "reveal", "view", "maroon", "vote", "option", "shoot", "give", "force",
             "choose", "save", "take", "say"]
    for view in seat_views():
        for verb in verbs:
            for digit in [*UNICODE_DIGITS, *weird[::7]]:
                for text in (f"{verb} {digit}", f"{verb} 1 {digit}{digit}", f"{verb} {digit}th"):
                    read_sms_reply(text, view)  # must not raise


def test_a_five_megabyte_reply_is_read_in_well_under_a_second() -> None:
    view = seat_views()[0]
    prose = "I think we should row to the Jolly Roger and reveal the chest, mate.\r\n"
    raw = reply("STATUS\r\n" + prose * 75_000)
    assert len(raw) > 5_000_000

    started = time.perf_counter()
    result = read_email_reply(raw, view)
    took = time.perf_counter() - started

    # A guard against the old 60 s parse (12 ms a line), not a speed measurement: a bounded
    # reader takes about 0.1 s here; benchmarks measure speed.
    assert took < 5, f"{took:.2f}s"
    assert [m.name for m in result.meta] == ["STATUS"]


def test_only_the_first_lines_and_bytes_of_the_new_text_are_read() -> None:
    text = "\n".join(f"line {i}" for i in range(200))

    assert bounded_lines(text, max_lines=50)[-1] == "line 49"
    assert len("\n".join(bounded_lines("é" * 30_000, max_bytes=20_000)).encode()) <= 20_000


@pytest.mark.parametrize(("results", "authserv", "ok"), [
    ("mx.ours; dkim=pass header.d=example.org header.s=s1", "mx.ours", True),
    ("mx.ours; spf=pass smtp.mailfrom=ann@mail.example.org", "mx.ours", True),
    ("mx.ours; dmarc=pass (p=reject) header.from=example.org", "mx.ours", True),
    ("mx.ours; dkim=pass header.d=mail.example.org", "mx.ours", True),
    ("mx.ours; dkim=fail header.d=example.org; spf=softfail", "mx.ours", False),
    ("mx.ours; dkim=pass header.d=evil.example", "mx.ours", False),
    ("mx.evil; dkim=pass header.d=example.org", "mx.ours", False),
    ("mx.ours 1; dkim=pass header.d=example.org", "mx.ours", True),
    # a public suffix is nobody's organisational domain: not aligned with example.org
    ("mx.ours; dkim=pass header.d=org", "mx.ours", False),
    ("mx.ours; spf=pass smtp.mailfrom=x@org", "mx.ours", False),
    ("mx.ours; dkim=pass header.d=example.org.evil.example", "mx.ours", False),
    # without the receiving server's id, a header proves nothing (the sender can write one)
    ("mx.ours; dkim=pass header.d=example.org", None, False),
])
def test_authentication_results_must_pass_for_the_from_domain(
        results: str, authserv: str | None, ok: bool) -> None:
    message = message_from_bytes(reply("REVEAL 3", **{"Authentication-Results": results}),
                                 policy=policy.default)
    settings = Settings(_env_file=None, inbound_authserv_id=authserv)  # type: ignore[call-arg]

    assert sender_authenticated(message, "ann@example.org", settings) is ok


def test_a_passing_header_below_our_servers_own_one_is_the_senders_and_proves_nothing() -> None:
    # The receiving server adds its header on top; the one below came with the message.
    raw = (b"Authentication-Results: mx.ours; dkim=none; spf=none\r\n"
           b"Authentication-Results: mx.ours; dkim=pass header.d=example.org\r\n"
           + reply("REVEAL 3"))
    message = message_from_bytes(raw, policy=policy.default)
    settings = Settings(_env_file=None, inbound_authserv_id="mx.ours")  # type: ignore[call-arg]

    assert len(message.get_all("Authentication-Results")) == 2
    assert sender_authenticated(message, "ann@example.org", settings) is False


def test_the_api_docs_exist_only_when_the_setting_turns_them_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pbm.config import reset_settings
    from pbm.web import api_docs

    assert set(api_docs().values()) == {None}
    monkeypatch.setenv("API_DOCS", "1")
    reset_settings()
    try:
        assert api_docs()["openapi_url"] == "/openapi.json"
    finally:
        monkeypatch.delenv("API_DOCS")
        reset_settings()
