"""From raw mail / SMS to the player's own new text; reply tokens."""

from __future__ import annotations

from email.message import EmailMessage

from pbm.replies import REPLY_MARKER, find_reply_token, reply_address, reply_token_from_address
from pbm.replies.extract import email_new_text, html_to_text, message_text, sms_text, strip_quoted


def mail(body: str, subtype: str = "plain", **headers: str) -> bytes:
    msg = EmailMessage()
    msg["From"] = headers.get("sender", "Ann <ann@example.org>")
    msg["To"] = "play+abcd1234@tortuga.example"
    msg["Subject"] = "Re: [Tortuga: Nassau] Tortuga 1667 by mail"
    msg.set_content(body, subtype=subtype)
    return bytes(msg)


def test_it_keeps_only_the_text_above_a_gmail_style_quote() -> None:
    body = "REVEAL 3\n\nOn Tue, 4 Mar 2025, Tortuga <play+x@t.example> wrote:\n> VIEW 1 2\n"
    assert email_new_text(mail(body)) == "REVEAL 3"


def test_it_keeps_bottom_posted_text_below_the_quote() -> None:
    body = "On 04/03/2025 10:02, Tortuga wrote:\n> 1 = VIEW _ _\n> 2 = REVEAL _\n\nREVEAL 3\n"
    assert email_new_text(mail(body)) == "REVEAL 3"


def test_an_attribution_wrapped_over_two_lines_is_still_found() -> None:
    body = ("ROW\n\nOn Tue, 4 Mar 2025 at 10:02, Tortuga by Mail\n<play+x@t.example> wrote:\n\n"
            "> ATTACK\n")
    assert strip_quoted(body) == "ROW"


def test_quote_headers_in_german_french_spanish_and_italian_are_cut() -> None:
    for header in ("Am Di., 4. März 2025 um 10:02 Uhr schrieb Tortuga <p@t.example>:",
                   "Le mar. 4 mars 2025 à 10:02, Tortuga <p@t.example> a écrit :",
                   "El mar, 4 mar 2025 a las 10:02, Tortuga (<p@t.example>) escribió:",
                   "Il giorno mar 4 mar 2025 alle ore 10:02 Tortuga <p@t.example> ha scritto:"):
        assert strip_quoted(f"VOTE 2\n\n{header}\n\nATTACK\nMUTINY\n") == "VOTE 2", header


def test_outlook_header_blocks_in_several_languages_end_the_reply() -> None:
    for block in ("From: Tortuga\nSent: Tuesday\nTo: Ann\nSubject: x",
                  "Von: Tortuga\nGesendet: Dienstag\nAn: Ann\nBetreff: x",
                  "De : Tortuga\nEnvoyé : mardi\nÀ : Ann\nObjet : x",
                  "De: Tortuga\nEnviado: martes\nPara: Ann\nAsunto: x"):
        text = f"LAND\n\n________________________________\n{block}\n\nBOARD\n"
        assert strip_quoted(text) == "LAND", block


def test_our_reply_marker_ends_the_reply_even_unquoted() -> None:
    assert strip_quoted(f"VOTE 1\n\n{REPLY_MARKER}\nYour turn\n1 = VIEW _ _\n") == "VOTE 1"


def test_signatures_and_phone_footers_are_dropped() -> None:
    for footer in ("-- \nAnn Bonny\n+1 555 0100", "Sent from my iPhone",
                   "Von meinem iPhone gesendet", "Envoyé de mon iPhone",
                   "Enviado desde mi iPhone", "Get Outlook for Android"):
        assert strip_quoted(f"ATTACK\n\n{footer}\n") == "ATTACK", footer


def test_forwarded_and_original_message_blocks_are_dropped() -> None:
    for sep in ("---------- Forwarded message ---------", "-----Original Message-----",
                "Begin forwarded message:", "-----Ursprüngliche Nachricht-----"):
        assert strip_quoted(f"REVEAL 2\n\n{sep}\nFrom: x\n\nVIEW 1 2\n") == "REVEAL 2", sep


def test_html_only_mail_becomes_text_without_its_quoted_blocks() -> None:
    html = ('<div dir="ltr">maroon <b>Cleo</b><br>thanks</div><div class="gmail_quote">'
            '<div class="gmail_attr">On Tue ... wrote:</div><blockquote>1 = VIEW _ _'
            '</blockquote></div>')
    assert email_new_text(mail(html, "html")) == "maroon Cleo\nthanks"
    outlook = ('<p>SAVE</p><div id="appendonsend"></div><hr><div id="divRplyFwdMsg">'
               '<b>From:</b> Tortuga</div><p>REVEAL 1</p>')
    assert email_new_text(mail(outlook, "html")) == "SAVE"
    apple = ('<body>Vote 2<br><br><blockquote type="cite">On 4 Mar, Tortuga wrote:'
             '<br></blockquote><blockquote type="cite">VOTE 3</blockquote></body>')
    assert email_new_text(mail(apple, "html")) == "Vote 2"


def test_html_entities_scripts_and_styles_are_handled() -> None:
    text = html_to_text("<style>p{x:y}</style><script>VOTE 1</script><p>SAY a &amp; b&nbsp;!</p>")
    assert text.strip() == "SAY a & b !"


def test_charsets_and_transfer_encodings_are_decoded() -> None:
    msg = EmailMessage()
    msg.set_content("give Émile\n", charset="iso-8859-1", cte="quoted-printable")
    assert message_text(bytes(msg)).strip() == "give Émile"
    msg = EmailMessage()
    msg.set_content("VOTE 1 — ok\n", cte="base64")
    assert message_text(bytes(msg)).strip() == "VOTE 1 — ok"


def test_broken_input_never_raises() -> None:
    for raw in (b"", b"\xff\xfe\x00garbage", "no headers at all\n\nREVEAL 3", b"Content-Type: "
                b"multipart/mixed; boundary=x\n\n--x\nContent-Type: text/plain; charset=nope\n\n"
                b"ROW\n--x--\n", b"Content-Type: image/png\n\n\x89PNG"):
        email_new_text(raw)
    assert email_new_text(b"Content-Type: text/plain; charset=nope\n\nROW\n") == "ROW"


def test_sms_text_is_normalised() -> None:
    assert sms_text("\ufeff Reveal\u00a03 \r\n") == "Reveal 3"


def test_reply_tokens_come_from_play_plus_addresses_only() -> None:
    assert reply_token_from_address("play+Zq7tK2mB9x@tortuga.example") == "Zq7tK2mB9x"
    assert reply_token_from_address('"Tortuga" <PLAY+abc_123-x@t.example>') == "abc_123-x"
    assert reply_token_from_address("ann@example.org") is None
    assert reply_token_from_address("play@t.example") is None
    assert reply_token_from_address("other+abcd1234@t.example") is None
    assert reply_token_from_address("play+a b@t.example") is None
    assert reply_token_from_address("") is None
    assert find_reply_token(["ann@x.org", "Ann <ann@x.org>, play+tok3n99@t.example"]) == "tok3n99"
    assert reply_address("tok3n99", "t.example") == "play+tok3n99@t.example"


def test_no_line_of_any_message_we_send_is_read_as_an_inline_answer() -> None:
    # Outlook leaves our message unquoted under its header block; nothing of ours may pass
    # for an answer typed inline.
    from pathlib import Path

    from pbm.replies.extract import inline_candidates
    from pbm.replies.parse import ParseContext, parse_lines
    from tests.fixtures.seatviews import scenario

    golden = Path(__file__).resolve().parent.parent / "golden" / "messages"
    header = ("See below\n\nFrom: Tortuga by Mail <play+x@t.example>\nSent: Tuesday\n"
              "To: Ann\nSubject: [Tortuga] x\n\n")
    for path in sorted(golden.glob("*.txt")):
        ours = path.read_text(encoding="utf-8").split("\n---- SMS ----")[0]
        candidates = inline_candidates(header + ours)
        for name in ("turn", "vote", "governor", "shoot", "rowboat"):
            result = parse_lines(candidates, ParseContext.from_seat_view(scenario(name)))
            assert not result.understood and not result.meta, (path.name, candidates)


def test_format_flowed_soft_breaks_are_joined_and_delsp_drops_their_space() -> None:
    from pbm.replies.extract import unflow

    assert unflow("SAY a long \nline here\n> quoted \n> more", delsp=False) == \
        "SAY a long line here\n> quoted more"
    assert unflow("SAY split  \nword", delsp=True) == "SAY split word"
    assert unflow("-- \nsig", delsp=False) == "-- \nsig"


def test_attribution_lines_in_every_client_language_end_the_reply() -> None:
    for header in (
            "вт, 4 мар. 2025 г. в 10:02, Tortuga <p@t.example>:",
            "2025年3月4日(火) 10:02 Tortuga <p@t.example>:",
            "Tortuga <p@t.example> 于2025年3月4日周二 10:02写道：",
            "2025년 3월 4일 (화) 오전 10:02, Tortuga <p@t.example>님이 작성:",
            "Στις Τρί 4 Μαρ 2025 στις 10:02, ο/η Tortuga <p@t.example> έγραψε:",
            "Tortuga <p@t.example> ezt írta (időpont: 2025. márc. 4., K, 10:02):",
            "Pe mar., 4 mar. 2025 la 10:02, Tortuga <p@t.example> a scris:",
            "Tortuga <p@t.example>, 4 Mar 2025 Sal, 10:02 tarihinde şunu yazdı:",
            "Op 04-03-2025 om 10:02 schreef Tortuga by Mail:",
            "Tortuga by Mail kirjoitti 4.3.2025 klo 10.02:"):
        assert strip_quoted(f"VOTE 2\n\n{header}\n\nATTACK\nMUTINY\n") == "VOTE 2", header


def test_banners_above_and_contact_lines_below_leave_only_the_command() -> None:
    body = ("CAUTION: This email originated from outside of the organization. Do not click\n"
            "links unless you recognize the sender.\n\nREVEAL 3\n\nJohn Carter\n"
            "Mobile: +1 (555) 123-4567 | www.acme.example\n\nThis e-mail is confidential and "
            "intended solely for the addressee.\n")
    assert strip_quoted(body) == "REVEAL 3\n\nJohn Carter"
