"""The cheap MIME path (``email_bytes``) writes exactly what ``build_email`` builds."""

from __future__ import annotations

import email.contentmanager
import random
import re
from email import message_from_bytes, policy

import pytest

from pbm.config import Settings
from pbm.transports import Attachment, InlineImage, OutgoingMessage, mail
from pbm.transports.mail import base64_lines, build_email, email_bytes

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 9
CALENDAR = ("BEGIN:VCALENDAR\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nSUMMARY:Tortuga – "
            "your move in «Blue»\r\nDESCRIPTION:" + "x" * 60 + "\r\n  continued\r\n"
            "END:VEVENT\r\nEND:VCALENDAR\r\n").encode()
SETTINGS = Settings(mail_domain="tortuga.test")


def normalised(data: bytes) -> bytes:
    """Boundaries numbered by first appearance, the Date header blanked."""
    names: dict[bytes, bytes] = {}

    def rename(match: re.Match[bytes]) -> bytes:
        return names.setdefault(match.group(0), b"BOUNDARY-%d" % len(names))

    data = re.sub(rb"={15}\d{19}==", rename, data)
    return re.sub(rb"\nDate: [^\n]*\n", b"\nDate: -\n", data)


def message(**extra: object) -> OutgoingMessage:
    values: dict[str, object] = dict(
        channel="email", to="ann@example.org", subject="[Tortuga: Test] your game",
        text="Your turn.\nREVEAL 3\n", html='<p>Your turn.</p><img src="cid:board-1-7@t">',
        reply_to="play+tok123@tortuga.test", message_id="<m2@tortuga.test>",
        in_reply_to="<root@tortuga.test>", references=("<root@tortuga.test>",),
        images=(InlineImage("board-1-7@t", PNG),), key="42")
    values.update(extra)
    return OutgoingMessage(**values)  # type: ignore[arg-type]


LONG = "A line of the board that goes on " * 4
CASES = {
    "text, html and picture": {},
    "text only": {"html": None, "images": ()},
    "html without the picture": {"html": "<p>No picture</p>"},
    "picture not shown": {"html": "<p>no cid</p>"},
    "no html, calendar": {"html": None, "images": (),
                          "attachments": (Attachment("text/calendar; method=REQUEST",
                                                     "deadline.ics", CALENDAR),)},
    "everything": {"attachments": (Attachment("text/calendar; method=REQUEST",
                                              "deadline.ics", CALENDAR),)},
    "accents and long lines": {"text": f"Zoë joue.\n{LONG}\n" * 12,
                               "html": f"<p>Zoë</p><p>{LONG}</p>" * 3
                                       + '<img src="cid:board-1-7@t">'},
    "long ascii lines, few": {"text": LONG + "\n" + LONG},
    "cyrillic": {"text": "Ход игрока Ёжик\n" * 3, "subject": "Тортуга: ваш ход"},
    "accented subject and name": {"subject": "[Tortuga: Île] à vous — «go»",
                                  "to": "Zoë Ä <zoe@example.org>"},
    "long subject": {"subject": "[Tortuga: A very long game name indeed] " * 3},
    "quoted display name": {"to": '"Smith, Ann" <ann@example.org>'},
    "plain name": {"to": "Ann Smith <ann.smith+tortuga@mail.example.org>"},
    "dotted address": {"to": "ann.b.smith@mail.example.org", "reply_to": "play+x.y@t.test"},
    "odd address": {"to": "ann..smith@example.org"},
    "no reply-to, no thread": {"reply_to": None, "in_reply_to": None, "references": (),
                               "key": ""},
    "many references": {"references": tuple(f"<ref-{i}-abcdefghij@tortuga.test>"
                                            for i in range(6))},
    "empty text": {"text": ""},
    "html in base64 (quoted bytes in its first lines)":
        {"html": '<div style="color: #fff;">Zoë \u034f&zwnj;</div>' * 40
                 + '<img src="cid:board-1-7@t">'},
    "html in quoted-printable, over ten lines": {"html": f"<p>{LONG}é</p>\n" * 14},
    "a picture of one line and of none": {"images": (InlineImage("board-1-7@t", PNG[:57]),
                                                     InlineImage("chart-1@t", b"")),
                                          "html": '<img src="cid:board-1-7@t">'
                                                  '<img src="cid:chart-1@t">'},
    "two pictures": {"images": (InlineImage("board-1-7@t", PNG),
                                InlineImage("chart-1@t", PNG[:100])),
                     "html": '<img src="cid:board-1-7@t"><img src="cid:chart-1@t">'},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_cheap_path_writes_the_bytes_of_the_email_package(case: str) -> None:
    outgoing = message(**CASES[case])
    before = bytes(build_email(outgoing, SETTINGS))
    after, message_id = email_bytes(outgoing, SETTINGS)

    assert normalised(after) == normalised(before)
    assert message_id == outgoing.message_id


def test_the_smtp_form_ends_lines_with_crlf_as_the_smtp_generator_does() -> None:
    outgoing = message(**CASES["everything"])
    before = build_email(outgoing, SETTINGS).as_bytes(policy=policy.default.clone(linesep="\r\n"))
    after, _ = email_bytes(outgoing, SETTINGS, linesep="\r\n")

    assert normalised(after.replace(b"\r\n", b"\n")) == normalised(before.replace(b"\r\n", b"\n"))
    assert b"\n" not in after.replace(b"\r\n", b"")


def test_a_message_without_message_id_gets_one_and_says_which() -> None:
    after, message_id = email_bytes(message(message_id=None), SETTINGS)

    parsed = message_from_bytes(after, policy=policy.default)
    assert parsed["Message-ID"] == message_id
    assert message_id.endswith("@tortuga.test>")


def test_base64_lines_are_the_email_packages_lines_at_every_length() -> None:
    data = bytes(random.Random(26).randrange(256) for _ in range(1200))
    for size in [*range(0, 240), 1140, 1199, 1200]:
        # the oracle is the email package's own encoder, which has no public name
        assert base64_lines(data[:size]) == email.contentmanager._encode_base64(  # type: ignore[attr-defined]
            data[:size], 78), size


def test_the_transfer_encoding_is_the_one_the_email_package_chooses() -> None:
    """Over random texts of every kind the heuristic meets: short and long lines, ASCII,
    accents, ``=``, few and many lines (7bit, 8bit, quoted-printable and base64)."""
    chosen = set()
    pieces = ["a", "word ", "=", "é", "Ёж", "\u034f&zwnj;", '<p style="x: y;">', "\t", " "]
    rng = random.Random(26)
    for _ in range(400):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.choice([3, 20, 60, 150])))
                 for _ in range(rng.choice([1, 5, 10, 11, 30]))]
        text = "\n".join(lines) + rng.choice(["", "\n"])
        # the oracle is the email package's own choice, which has no public name
        expected = email.contentmanager._encode_text(  # type: ignore[attr-defined]
            text, "utf-8", None, policy.default)
        assert mail.encode_text(text) == expected, text
        chosen.add(expected[0])
    assert chosen == {"7bit", "8bit", "quoted-printable", "base64"}


@pytest.mark.parametrize("cid", ["board-1-7@board.tortuga", "chart-12@board.tortuga",
                                 "board-123456789-987654321-5@board.tortuga",
                                 "b" * 40 + "@" + "t" * 19, "b" * 41 + "@" + "t" * 30,
                                 "Board_1.x@t", "board-1@t-x.org", "a b@t", "ünï@t"])
def test_a_pictures_headers_are_the_ones_the_policy_folds(cid: str) -> None:
    names = ("Content-Disposition", "Content-ID")
    for subtype in ("png", "svg+xml"):
        name = f"{cid.split('@')[0]}.{subtype}"
        expected = (mail.folded_header(names[0], f'inline; filename="{name}"')
                    + mail.folded_header(names[1], f"<{cid}>"))
        assert mail.picture_headers(cid, subtype) == expected


@pytest.mark.parametrize("field", ["subject", "to", "reply_to", "in_reply_to", "key"])
@pytest.mark.parametrize("brk", ["\r\n", "\n", "\r"])
def test_a_header_value_with_a_line_break_is_refused_on_both_paths(field: str,
                                                                   brk: str) -> None:
    value = {"subject": "[Tortuga: x]", "to": "ann@example.org", "reply_to": "p@t.test",
             "in_reply_to": "<r@t>", "key": "42"}[field] + brk + "Bcc: eve@evil.example"
    bad = message(**{field: value})
    with pytest.raises(ValueError):
        email_bytes(bad, SETTINGS)
    with pytest.raises(ValueError):
        build_email(bad, SETTINGS).as_bytes()


def test_the_smtp_transport_refuses_such_an_email_for_good_and_sends_nothing() -> None:
    from pbm.transports import TransportError

    transport = mail.SmtpTransport(Settings(mail_domain="tortuga.test", smtp_port=1))
    with pytest.raises(TransportError) as refused:
        transport.send(message(subject="x\r\nBcc: eve@evil.example"))
    assert refused.value.permanent
    assert "line break" in str(refused.value)
