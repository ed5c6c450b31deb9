"""One-tap answers: every plain option of an HTML prompt is a mailto: button to the seat's
reply address, with the thread's subject and the command as the body. Chromium opens a
real prompt; each button's body, fed through the reply parser, reads as its option."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

import engine
from pbm import db, games, render
from pbm.messages import Channel
from pbm.replies import read_email_reply
from pbm.replies.menu import build_menu
from tests.services import missing

CHROMIUM = "/usr/bin/chromium"
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def prompt(tmp_path: Path) -> tuple[str, dict, str, str]:
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    db.upgrade(url)
    eng = db.get_engine(url)
    now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    specs = [games.PlayerSpec(n, f"{n.lower()}@example.org") for n in (
        "Ann", "Bob", "Cleo", "Maximilian-Alexander")]  # a long name: buttons must wrap
    game_id = db.run_transaction(lambda s: games.create_game(s, "harbour", specs, now=now,
                                                             seed=5).id, eng)
    db.run_transaction(lambda s: games.start(s, game_id, now=now, force=True), eng)
    while True:  # on to the first turn: the action menu has the most options
        with db.session_scope(eng, write=False) as session:
            state = games.load_state(session.get(games.Game, game_id))
        decision = engine.pending(state)[0]
        if decision.kind.value == "ACTION":
            break
        db.run_transaction(lambda s, d=decision: games.submit(
            s, game_id, d.seat, d.legal[0], origin="test", now=now), eng)
    with db.session_scope(eng, write=False) as session:
        ctx, rendered = games.preview(session, game_id, decision.seat, Channel.EMAIL)
    db.dispose_engines()
    assert rendered.html is not None and ctx.seat_view is not None
    return rendered.html, ctx.seat_view, str(ctx.common.reply_to), render.subject_for(
        "harbour")


def test_every_button_of_a_prompt_reads_as_its_option_in_the_reply_parser(
        prompt: tuple[str, dict, str, str]) -> None:
    if not os.path.exists(CHROMIUM):
        missing(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    html, view, reply_to, subject = prompt
    options = {o.display: o for o in build_menu(view) if not o.is_template}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.set_content(html)
        links = page.eval_on_selector_all("a.tap:not(.fill):not(.chip)",
                                          "els => els.map(e => e.href)")
        fills = page.eval_on_selector_all("a.tap.fill, a.tap.chip",
                                          "els => els.map(e => e.href)")
        # anything styled as a button (a filled, rounded box) is a link (issue 23)
        untappable = page.evaluate("""() => [...document.querySelectorAll('body *')]
            .filter(e => {
                const s = getComputedStyle(e);
                const filled = s.backgroundColor !== 'rgba(0, 0, 0, 0)'
                    && s.backgroundColor !== 'transparent';
                const small = e.getBoundingClientRect().width < 300;
                return filled && small && parseFloat(s.borderTopLeftRadius) > 0
                    && !e.closest('a');
            }).map(e => e.className + ': ' + e.textContent.trim().slice(0, 30))""")
        wide = page.evaluate("document.documentElement.scrollWidth")
        outside = page.eval_on_selector_all("table.menu a.tap", """taps => taps.filter(a => {
            const cell = a.closest('table').parentElement.getBoundingClientRect();
            const box = a.getBoundingClientRect();
            return box.left < cell.left - 1 || box.right > cell.right + 1;
        }).map(a => a.textContent)""")
        if os.environ.get("PBM_UPDATE_DOCS"):  # the picture in docs/messages.md
            page.locator("table.menu").screenshot(path=str(DOCS / "prompt-buttons-phone.png"))
        browser.close()

    assert wide <= 390, "the prompt scrolls sideways on a phone"
    assert outside == [], f"buttons sticking out of the menu: {outside}"

    assert untappable == [], f"styled as buttons but not links: {untappable}"
    assert len(links) == len(options) >= 3
    templates = [o for o in build_menu(view) if o.is_template and o.example]
    assert len(fills) >= len(templates) >= 2  # VIEW / REVEAL / FORCE: a prefilled body
    for link in fills:  # a chip's REVEAL n, a template's example: legal as they stand
        [body] = parse_qs(urlsplit(link).query)["body"]
        result = read_email_reply(f"From: a@b\r\nSubject: x\r\n\r\n{body}\r\n", view)
        [understood] = result.understood
        assert understood.legal_now, body
    read = set()
    for link in links:
        parts = urlsplit(link)
        query = parse_qs(parts.query)
        assert parts.scheme == "mailto" and unquote(parts.path) == reply_to
        assert query["subject"] == [f"Re: {subject}"]
        [body] = query["body"]
        result = read_email_reply(f"From: a@b\r\nSubject: x\r\n\r\n{body}\r\n", view)
        [understood] = result.understood
        option = options[body]
        assert understood.text == str(engine.parse_command(option.command))
        assert understood.legal_now
        read.add(body)
    assert read == set(options)
