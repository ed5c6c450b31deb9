"""Korean buttons write Korean bodies the service reads (issue 37): a button labelled
"확인 1 2 보내기" used to write the English body "VIEW 1 2". Every one-tap button of Korean
prompt emails over random games writes its command in the reader's words, and the reply
reader reads that body back as the very command the button offers."""

from __future__ import annotations

import dataclasses
import re
from urllib.parse import unquote

import engine
from engine.simulate import random_game
from pbm.messages import Channel, MessageKind
from pbm.render import render
from pbm.replies import read_sms_reply
from pbm.replies.menu import build_menu
from tests.fixtures.messages import context_for

HANGUL = re.compile(r"[\uac00-\ud7a3]")
BODY = re.compile(r'href="mailto:[^"?]+\?subject=[^&"]*&amp;body=([^"]+)"')


def test_every_korean_button_writes_a_korean_body_read_back_as_its_command() -> None:
    checked = 0
    for seed in (1, 2):
        found: list[tuple[engine.GameState, int]] = []

        def observe(before: object, seat: int, command: object, after: engine.GameState,
                    events: object, found: list[tuple[engine.GameState, int]] = found
                    ) -> None:
            found.extend((after, d.seat) for d in engine.pending(after))

        random_game(5, 400 + seed, observe=observe)
        for state, seat in found[::4]:
            ctx = dataclasses.replace(context_for(MessageKind.PROMPT, state, seat),
                                      language="ko")
            html = render(ctx, Channel.EMAIL).html or ""
            view = engine.view(state, seat).to_dict()
            menu = build_menu(view)
            commands = {o.command for o in menu}
            verbs = {o.verb for o in menu}
            for body in (unquote(b) for b in BODY.findall(html)):
                assert HANGUL.search(body), f"an English body in a Korean button: {body!r}"
                read = read_sms_reply(body, view, menu=menu)  # the body, as email reads it
                understood = [u.text for u in read.understood]
                assert len(understood) == 1, (body, understood, read.not_understood)
                assert understood[0] in commands or understood[0].split()[0] in verbs, \
                    (body, understood)  # the command itself, or an example of its verb
                checked += 1
    assert checked > 100


def test_map_and_zone_have_korean_words_the_reader_reads_back() -> None:
    """Issue 37: "6=MAP 영국", "완료: MAP 영국" and the invitation's "ZONE 도시"."""
    from pbm.i18n.translate import reading
    from pbm.player_settings import resolve_zone
    from pbm.render.names import command_words
    from pbm.replies.korean import to_english

    with reading("ko"):
        assert command_words("MAP BRITISH") == "지도 영국"
        assert command_words("ZONE") == "시간대"
    assert to_english("지도 영국") == "MAP BRITISH"
    zone = to_english("시간대 서울")  # the city in Korean or already in English
    assert zone.startswith("ZONE ")
    assert resolve_zone(zone.removeprefix("ZONE ")) == "Asia/Seoul"
    assert resolve_zone("서울") == "Asia/Seoul"
