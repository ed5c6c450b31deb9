"""A whole game seen from the players' seats: every email's pictures, every SMS's letters.

The real service plays a whole demo game on SQLite (replies through ``pbm.inbound``,
processed in this process); one seat, with a Cyrillic name, plays by SMS only and decides
from its texts alone (``pbm.demo.simplayer`` never touches the database). Then every sent
``.eml`` is parsed as a mail client would, and four kinds of HTML email are opened in
Debian's Chromium: the board picture must decode, and screenshots at 1200 px and 390 px
are written to the test's output folder.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbm.demo import SeatSpec, Table
from tests.demo.conftest import process_inline

NAMES = ("Anne", "Łukasz", "Дмитрий", "Zoë", "Esme")
SMS_SEAT = 2
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "player-side"


def seats() -> list[SeatSpec]:
    return [SeatSpec(index=i, name=name, channel="sms" if i == SMS_SEAT else "email",
                     email=None if i == SMS_SEAT else f"player{i + 1}@example.org",
                     phone=f"+1555010{i + 1:04d}") for i, name in enumerate(NAMES)]


@pytest.fixture(scope="module")
def finished_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A whole game, played to its end; the demo folder it left."""
    import os

    import workers.app
    from pbm.config import reset_settings
    from pbm.db import dispose_engines
    from pbm.demo import demo_environment, fresh_folder

    folder = fresh_folder(tmp_path_factory.mktemp("player-side") / "demo")
    names = list(demo_environment(folder))
    saved = {name: os.environ.get(name) for name in names}
    transport = workers.app.app.conf.broker_transport
    table = Table(folder, 5, seats())
    try:
        table.prepare()
        progress = table.run(tick=process_inline)
        assert progress.over and progress.status == "finished", progress
    finally:
        table.close()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        reset_settings()
        dispose_engines()
        workers.app.app.conf.broker_transport = transport
        workers.app.reconfigure()
    return folder


def emails(folder: Path) -> list[tuple[Path, EmailMessage]]:
    return [(path, message_from_bytes(path.read_bytes(), policy=policy.default))  # type: ignore[misc]
            for path in sorted((folder / "outbox" / "email").glob("*.eml"))]


def html_of(mail: EmailMessage) -> str:
    part = mail.get_body(preferencelist=("html",))
    return part.get_content() if part is not None else ""  # type: ignore[union-attr]


def test_every_email_shows_each_picture_it_carries_and_carries_each_it_shows(
        finished_game: Path) -> None:
    shown_board = 0
    for path, mail in emails(finished_game):
        html = html_of(mail)
        referenced = set(re.findall(r'src="cid:([^"]+)"', html))
        parts = {str(p["Content-ID"]).strip("<>"): p for p in mail.walk()
                 if p.get_content_maintype() == "image"}
        assert referenced == set(parts), (path.name, referenced, set(parts))
        for part in parts.values():
            assert part.get_payload(decode=True).startswith(b"\x89PNG")
            assert part.get_content_disposition() == "inline"
        text = mail.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        if text.lstrip().startswith(("Done:", "You saw", "Nothing was changed")):
            assert not parts, f"an acknowledgement carries a picture: {path.name}"
        shown_board += bool(parts)
    assert shown_board >= 20


def test_the_sms_only_player_reached_the_end_and_never_read_a_question_mark(
        finished_game: Path) -> None:
    phone = seats()[SMS_SEAT].phone
    lines = [json.loads(line) for line in
             (finished_game / "outbox" / "sms.jsonl").read_text().splitlines()]
    mine = [line["body"] for line in lines if line["to"] == phone]
    assert len(mine) >= 10 and any("Game over" in t for t in mine)
    for text in mine:  # a question ends a sentence; a "?" inside a word replaced a letter
        assert not re.search(r"\?[\w?]", text), text
    assert any("Lukasz" in t for t in mine) and not any("ukasz" in t and "Lukasz" not in t
                                                         for t in mine)
    replies = [json.loads(line)["Body"] for line in
               (finished_game / "inbox" / "sms.jsonl").read_text().splitlines()]
    assert len(replies) >= 5  # it played its own decisions, from its texts alone


def _events(folder: Path) -> list[dict[str, object]]:
    import sqlite3

    db = sqlite3.connect(folder / "tortuga.db")
    return [{"seq": seq, "kind": kind, "text": text, "audience": audience,
             "data": json.loads(data)} for seq, kind, text, audience, data in db.execute(
        "select seq, kind, text, audience, data_json from game_events order by seq")]


def test_the_sms_only_player_learned_from_its_texts_what_happened_to_it(
        finished_game: Path) -> None:
    """Issue 23: from its texts alone, the SMS seat learned every card it revealed (and
    its effect), every vote result it took part in, every change that happened to it, and
    at the end every player's loyalty."""
    from pbm.render.gsm7 import to_gsm7
    from pbm.render.news import CARDS, card_line

    phone = seats()[SMS_SEAT].phone
    texts = [json.loads(line)["body"] for line in
             (finished_game / "outbox" / "sms.jsonl").read_text().splitlines()
             if json.loads(line)["to"] == phone]
    everything = " ".join(texts)
    me = SMS_SEAT
    learned = {"revealed": 0, "votes": 0, "changes": 0}
    participants: list[int] = []
    for event in _events(finished_game):
        data = event["data"]
        assert isinstance(data, dict)
        kind = event["kind"]
        if kind == "vote.called":
            participants = [*(data.get("participants") or []), data.get("caller")]
        if kind == "event.revealed" and data.get("seat") == me:
            name = CARDS[str(data["title"])][0]
            assert f"You revealed {name}" in everything, name
            assert to_gsm7(card_line(str(data["title"]))) in everything, name
            learned["revealed"] += 1
        if kind == "vote.result" and me in participants:
            outcome = str(event["text"]).rsplit(":", 1)[1].strip()
            assert outcome in everything, outcome
            learned["votes"] += 1
        if kind == "pawn.marooned" and data.get("seat") == me:
            assert "You were marooned" in everything
            learned["changes"] += 1
        if kind == "card.given" and data.get("target") == me and data.get("seat") != me:
            assert "gave you the" in everything
            learned["changes"] += 1
        if kind == "vote_card.lost" and data.get("seat") == me and event["audience"]:
            assert str(event["text"]) in everything
            learned["changes"] += 1
        if kind == "pawn.moved" and data.get("seat") == me and data.get("by") not in (
                "ROW", "BOARD", "LAND"):
            assert "You were moved" in everything or "You moved" in everything
            learned["changes"] += 1
    assert learned["revealed"] >= 1 and learned["votes"] >= 1, learned
    over = next(t for t in texts if "Game over" in t)
    teams = re.search(r"Teams: (.*?)\.", over)
    assert teams is not None, over
    for name in NAMES:  # every loyalty unmasked, by name
        assert re.search(re.escape(to_gsm7(name)) + r" (British|French|Dutch)",
                         teams.group(1)), (name, over)
    assert "Winners:" in over, over


def image_server(images: dict[str, bytes]):  # type: ignore[no-untyped-def]
    """A Playwright route handler answering ``/cid/<Content-ID>`` with that image part."""
    def serve(route, request):  # type: ignore[no-untyped-def]
        cid = request.url.split("/cid/", 1)[1]
        route.fulfill(status=200, content_type="image/png", body=images[cid])
    return serve


def html_server(body: str):  # type: ignore[no-untyped-def]
    """A Playwright route handler answering with the email's HTML."""
    def serve(route, request):  # type: ignore[no-untyped-def]
        route.fulfill(status=200, content_type="text/html; charset=utf-8", body=body)
    return serve


@pytest.mark.browser
@pytest.mark.slow
def test_prompt_vote_notice_and_game_over_emails_show_the_board_in_chromium(
        finished_game: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    wanted = {"prompt": "Your turn", "vote": "play a Vote card", "notice": None,
              "game_over": "Game over"}
    picked: dict[str, EmailMessage] = {}
    for _, mail in emails(finished_game):
        kind = str(mail["X-Tortuga-Outbox"] or "")
        text = mail.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        has_image = any(p.get_content_maintype() == "image" for p in mail.walk())
        for name, needle in wanted.items():
            if name in picked or not has_image or not kind:
                continue
            first = text.lstrip().splitlines()[0]
            if name == "notice":
                if "Reply above this line" not in text and not first.startswith(
                        ("Game over", "Done:", "You saw")):
                    picked[name] = mail
            elif needle and needle in first:
                picked[name] = mail
    assert set(picked) == set(wanted), set(picked)
    out = ARTIFACTS
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for name, mail in picked.items():
                html = html_of(mail)
                images = {str(p["Content-ID"]).strip("<>"): p.get_payload(decode=True)
                          for p in mail.walk() if p.get_content_maintype() == "image"}
                for width in (1200, 390):
                    page = browser.new_page(viewport={"width": width, "height": 900})

                    page.route("http://mail.test/cid/**", image_server(images))
                    page.route("http://mail.test/message", html_server(
                        html.replace('src="cid:', 'src="http://mail.test/cid/')))
                    page.goto("http://mail.test/message")
                    page.wait_for_load_state("load")
                    natural = page.eval_on_selector(".picture img", "img => img.naturalWidth")
                    assert natural > 0, (name, width)
                    shown = page.eval_on_selector(".picture img",
                                                  "img => img.getBoundingClientRect().width")
                    assert 0 < shown <= width
                    # nothing sticks out: a reader never scrolls sideways, and a one-tap
                    # button stays inside the menu's box however long the name in it
                    assert page.evaluate("document.documentElement.scrollWidth") <= width
                    outside = page.eval_on_selector_all(
                        "table.menu a.tap", """taps => taps.filter(a => {
                        const cell = a.closest('table').parentElement.getBoundingClientRect();
                        const box = a.getBoundingClientRect();
                        return box.left < cell.left - 1 || box.right > cell.right + 1;
                    }).map(a => a.textContent)""")
                    assert outside == [], (name, width, outside)
                    if name == "game_over":  # the chart's labels read on a phone
                        from pbm.games.unmasking import CHART_LABEL_PX

                        natural, shown = page.eval_on_selector(
                            'img[alt^="Treasure per team"]',
                            "img => [img.naturalWidth, img.getBoundingClientRect().width]")
                        assert natural > 0
                        assert CHART_LABEL_PX * shown / natural >= 11, (width, shown)
                    page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)
                    page.close()
        finally:
            browser.close()
    for name in wanted:
        for width in (1200, 390):
            assert (out / f"{name}-{width}.png").stat().st_size > 10_000
    docs = REPO / "docs"
    if os.environ.get("PBM_UPDATE_DOCS") and docs.is_dir():  # the pictures in docs/messages.md
        shutil.copyfile(out / "prompt-1200.png", docs / "prompt-desktop.png")
        shutil.copyfile(out / "prompt-390.png", docs / "prompt-phone.png")
        shutil.copyfile(out / "game_over-390.png", docs / "game-over-phone.png")
