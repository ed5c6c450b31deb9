"""A Korean prompt by email in Chromium (issue 24): legible at 1200 and 390 px, nothing
scrolls sideways on a phone, the buttons are labelled in Korean and still send the command
(the mailto body) the reply parser reads, and the board picture - the Korean one, as the
mail client finds it by its Content-ID - loads with a Korean alt text. PBM_UPDATE_DOCS=1
writes docs/prompt-korean-phone.png."""

from __future__ import annotations

import base64
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import engine
from pbm import db, games
from pbm.board_image import KOREAN_MIN_TEXT
from pbm.messages import Channel, board_content_id
from pbm.render import board_png
from pbm.replies.korean import to_english
from tests.services import missing

CHROMIUM = "/usr/bin/chromium"
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _korean_prompt(tmp_path: Path) -> str:
    """The HTML of a Korean seat's email prompt, its board picture inlined as a mail
    client shows the ``cid:`` part."""
    url = f"sqlite:///{tmp_path / 'pbm.db'}"
    db.upgrade(url)
    eng = db.get_engine(url)
    now = datetime(2026, 3, 2, 12, tzinfo=UTC)
    specs = [games.PlayerSpec(n, f"p{i}@example.org", time_zone="Asia/Seoul",
                              language="ko" if i % 2 == 0 else None)
             for i, n in enumerate(("민준", "Bob", "서연", "Maximilian-Alexander"))]
    game_id = db.run_transaction(lambda s: games.create_game(s, "harbour", specs, now=now,
                                                             seed=5).id, eng)
    db.run_transaction(lambda s: games.start(s, game_id, now=now, force=True), eng)
    while True:  # on to the first turn of a Korean seat: the action menu
        with db.session_scope(eng, write=False) as session:
            state = games.load_state(session.get(games.Game, game_id))
        decision = engine.pending(state)[0]
        if decision.kind.value == "ACTION" and decision.seat % 2 == 0:
            break
        db.run_transaction(lambda s, d=decision: games.submit(
            s, game_id, d.seat, d.legal[0], origin="test", now=now), eng)
    with db.session_scope(eng, write=False) as session:
        ctx, rendered = games.preview(session, game_id, decision.seat, Channel.EMAIL)
    db.dispose_engines()
    assert ctx.language == "ko" and rendered.html is not None
    assert rendered.subject == "[토르투가: harbour] 메일로 하는 토르투가 1667"
    key = rendered.board_image_key
    assert key is not None and key.endswith("-ko")  # the Korean reader's own picture
    png = board_png(ctx.seat_view["public"], "ko")
    cid = f"cid:{board_content_id(key)}"
    assert cid in rendered.html
    return rendered.html.replace(cid, "data:image/png;base64," + base64.b64encode(png).decode())


def test_a_korean_prompt_is_legible_on_a_desktop_and_a_phone(tmp_path: Path) -> None:
    if not os.path.exists(CHROMIUM):
        missing(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    html = _korean_prompt(tmp_path)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for width in (1200, 390):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.set_content(html)
            text = page.inner_text("body")
            wide = page.evaluate("document.documentElement.scrollWidth")
            bodies = page.eval_on_selector_all("a.tap:not(.fill):not(.chip)",
                                               "els => els.map(e => e.href)")
            assert "공개" in text and "보내기" in text and "까지 답장" in text, text[:400]
            picture = page.eval_on_selector(
                "img[src^='data:image/png']",
                "img => [img.complete, img.naturalWidth, img.getBoundingClientRect().width,"
                " img.alt]")
            loaded, natural, shown, alt = picture
            assert loaded and natural == 640, picture  # the picture loads
            assert shown <= width and re.search(r"[가-힣]", alt), picture  # Korean alt text
            if width == 390:  # labels >= 11 px at the width the phone shows the picture
                assert KOREAN_MIN_TEXT * shown / natural >= 11, shown
            assert wide <= width, f"the Korean prompt scrolls sideways at {width} px"
            if os.environ.get("PBM_UPDATE_DOCS") and width == 390:
                page.screenshot(path=str(DOCS / "prompt-korean-phone.png"), full_page=True)
            page.close()
        browser.close()
    assert bodies
    for link in bodies:  # the body is the command in Korean, which the parser reads back
        body = unquote(parse_qs(urlsplit(link).query)["body"][0])  # (issue 37)
        assert re.search(r"[가-힣]", body), body
        english = to_english(body, ["민준", "Bob", "서연", "Maximilian-Alexander"])
        assert english.split()[0].isupper() and english.isascii(), (body, english)


#: A script listing the Hangul words the page breaks across two lines.
BROKEN_WORDS = """() => {
  const broken = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const m of node.data.matchAll(/[가-힣]+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  return broken;
}"""


def _glyph(page: Any, text: str) -> bytes:
    """The pixels of ``text`` drawn in the page's own font, large enough to tell apart."""
    page.evaluate("""t => { const s = document.createElement('span'); s.id = 'glyph';
        s.style.cssText = 'font-size:40px;position:absolute;left:0;top:0;background:#fff;'
                        + 'color:#000;line-height:1;padding:2px';
        s.textContent = t; document.body.appendChild(s); }""", text)
    shot = page.locator("#glyph").screenshot()
    page.evaluate("() => document.getElementById('glyph').remove()")
    return bytes(shot)


def test_a_korean_prompt_is_drawn_in_hangul_and_no_word_breaks_at_390_px(
        tmp_path: Path) -> None:
    """Issue 37: the Korean test above passed on a machine with no Hangul font (every
    character a box): this one looks at pixels. Each Hangul character of the prompt is
    drawn unlike the missing-glyph box (a private-use character has no glyph anywhere), and
    no Korean word is broken across two lines at 390 px ("프랑 / 스 0"). ``./dev test`` and
    ``.ci/run`` install the font (Debian ``fonts-nanum``). PBM_UPDATE_DOCS=1 writes
    docs/prompt-korean-390.png."""
    if not os.path.exists(CHROMIUM):
        missing(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    html = _korean_prompt(tmp_path)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 900})
        page.set_content(html)
        assert page.evaluate(BROKEN_WORDS) == [], "a Korean word broken across two lines"
        if os.environ.get("PBM_UPDATE_DOCS"):
            page.screenshot(path=str(DOCS / "prompt-korean-390.png"), full_page=True)
        text = page.inner_text("body")
        hangul = sorted(set(re.findall(r"[가-힣]", text)))
        assert len(hangul) > 20, text[:200]
        box = _glyph(page, "\ue000\ue001")  # no font has these: the missing-glyph boxes
        drawn = {ch: _glyph(page, ch * 2) for ch in hangul[:: max(1, len(hangul) // 24)]}
        browser.close()
    boxes = [ch for ch, pixels in drawn.items() if pixels == box]
    assert not boxes, f"drawn as missing-glyph boxes (no Hangul font): {''.join(boxes)}"
    assert len(set(drawn.values())) == len(drawn), "different characters drawn alike"
