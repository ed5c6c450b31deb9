"""What each kind of message says: subject, deadline, escaping, picture, result, loyalties."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

import engine
from pbm.message_payloads import Common, Reply
from pbm.messages import Channel, MessageKind, board_content_id
from pbm.render import format_deadline, render
from tests.fixtures.messages import context_for, make_context, simulated_states, with_fields
from tests.fixtures.seatviews import scenario
from tests.pbm.test_render_golden import cases


def test_every_message_of_a_game_has_the_same_subject() -> None:
    subjects = {render(ctx, Channel.EMAIL).subject for ctx in cases().values()}
    assert subjects == {"[Tortuga: Nassau] Tortuga 1667 by mail"}


def test_deadlines_show_the_players_zone_and_utc() -> None:
    when = datetime(2025, 7, 1, 16, 30, tzinfo=UTC)
    berlin = format_deadline(when, "Europe/Berlin")
    assert berlin is not None
    assert berlin["local"] == "Tue 01 Jul 2025, 18:30 CEST" and berlin["utc"].endswith("16:30 UTC")
    assert format_deadline(when, "Not/AZone")["local"].endswith("16:30 UTC")  # type: ignore[index]
    naive = format_deadline(datetime(2025, 7, 1, 16, 30), "Asia/Kolkata")
    assert naive is not None and naive["local"].endswith("22:00 IST")
    text = render(cases()["prompt_turn"], Channel.EMAIL).text
    assert "Reply by Wed 05 Mar 2025, 13:00 EST (Wed 05 Mar, 18:00 UTC), in 44 hours." in text


def test_table_talk_is_escaped_in_html_and_kept_verbatim_in_text() -> None:
    email = render(cases()["table_talk"], Channel.EMAIL)
    assert "<b>British</b>" not in (email.html or "")
    assert "&lt;b&gt;British&lt;/b&gt; &amp; proud!" in (email.html or "")
    assert '"Trust me, I\'m <b>British</b> & proud!"' in email.text


def test_a_prompt_email_shows_the_board_picture_keyed_by_game_version() -> None:
    ctx = cases()["prompt_turn"]
    email = render(ctx, Channel.EMAIL)
    version = ctx.seat_view["public"]["version"]  # type: ignore[index]
    assert email.board_image_key == f"board-7-{version}"
    assert f'src="cid:{board_content_id(email.board_image_key)}"' in (email.html or "")
    assert render(cases()["invitation"], Channel.EMAIL).board_image_key is None


def test_an_acknowledgement_without_the_board_names_no_picture() -> None:
    for name, ctx in cases().items():
        email = render(ctx, Channel.EMAIL)
        shows = "cid:" in (email.html or "")
        assert shows == (email.board_image_key is not None), name


def test_html_has_its_css_inlined() -> None:
    html = render(cases()["prompt_turn"], Channel.EMAIL).html or ""
    assert 'class="awaited"' in html and "style=" in html
    assert "background: #fff6d6" in html or "background:#fff6d6" in html


def test_a_vote_result_shows_the_symbols_but_never_who_played_what() -> None:
    for step in simulated_states(6, 21):
        results = [e for e in step.events if e.kind == "vote.result"]
        if not results:
            continue
        ctx = context_for(MessageKind.VOTE_RESULT, step.state, 0, step.events)
        text = render(ctx, Channel.EMAIL).text
        assert "nobody learns who played which" in text
        assert results[-1].text in text
        for name in step.state.names:
            assert f"{name} played" not in text
        return
    pytest.fail("no vote in this game")


def test_loyalties_are_revealed_only_in_the_game_over_message() -> None:
    over = render(cases()["game_over"], Channel.EMAIL).text
    assert "EVERYONE'S LOYALTY" in over and "Cleo                 Dutch" in over
    for name, ctx in cases().items():
        if name != "game_over":
            assert "EVERYONE'S LOYALTY" not in render(ctx, Channel.EMAIL).text


def test_a_reply_lists_what_was_not_understood_with_a_suggestion_and_what_is_awaited() -> None:
    text = render(cases()["reply"], Channel.EMAIL).text
    assert '"shot bart!!1": not a command. Did you mean SHOOT 2?' in text
    assert "2 = SHOOT Bartholomew" in text and '"Cheers"' in text


@pytest.mark.parametrize("topic", ["", "VOTE", "ATTACK", "TURN", "CARDS", "SAY", "NONSENSE"])
def test_help_renders_for_every_topic(topic: str) -> None:
    ctx = replace(cases()["reply_done_help"], payload=Reply(help=topic), common=Common())
    text = render(ctx, Channel.EMAIL).text
    assert "HELP" in text and len(text) > 300


def test_a_seat_view_of_another_seat_is_refused() -> None:
    ctx = cases()["prompt_turn"]
    with pytest.raises(ValueError, match="seat view of seat 0"):
        render(replace(ctx, seat=3), Channel.EMAIL)


def test_messages_without_a_game_state_render() -> None:
    for kind in (MessageKind.INVITATION, MessageKind.PAUSED, MessageKind.RESUMED,
                 MessageKind.TABLE_TALK, MessageKind.REMINDER, MessageKind.GAME_OVER,
                 MessageKind.SEAT_REPLACED, MessageKind.REPLY):
        given = {MessageKind.REMINDER: {"invitation": True},
                 MessageKind.TABLE_TALK: {"speaker": "Bo", "text": "hi"},
                 MessageKind.SEAT_REPLACED: {"you_were_replaced": True}}.get(kind, {})
        ctx = make_context(kind=kind, game_id=1, game_name="Tiny", seat=0,
                           player_name="Ann", extra=given)
        for channel in Channel:
            rendered = render(ctx, channel)
            assert rendered.text and "Tiny" in rendered.subject


def test_the_email_asks_for_replies_above_the_marker_only_when_something_is_awaited() -> None:
    preview, marker = render(cases()["prompt_vote"], Channel.EMAIL).text.splitlines()[:2]
    assert preview == ("Ann called an Attack: play a Vote card. "
                       "Reply by Wed 05 Mar 13:00 EST, in 44 hours.")
    assert marker == "--- Reply above this line ---"
    assert "Reply above this line" not in render(cases()["paused"], Channel.EMAIL).text


def test_the_atlantis_standing_order_is_offered_to_its_owner() -> None:
    view = scenario("waiting_atlantis")
    ctx = make_context(kind=MessageKind.STATUS, game_id=1, game_name="N", seat=2,
                         player_name="Cleo", seat_view=view)
    text = render(ctx, Channel.EMAIL).text
    assert "ATLANTIS" in text and "1 = ATLANTIS" in text


def test_a_timed_out_seat_is_told_what_was_played_and_the_others_only_when_public() -> None:
    state = next(s.state for s in simulated_states(4, 8) if s.index > 10 and not s.state.over)
    you = context_for(MessageKind.TIMED_OUT, state, 1, [])
    assert "was played for you" in render(you, Channel.EMAIL).text
    other = with_fields(you, you=False, who="Ann", played=None)
    text = render(other, Channel.EMAIL).text
    assert "Ann ran out of time" in text and "played for them" not in text


def test_names_in_menus_and_examples_resolve_back_through_the_parser() -> None:
    from pbm.replies import read_sms_reply
    from pbm.replies.menu import build_menu

    for name in ("turn", "shoot", "give", "marque", "vote", "choose", "take_ship"):
        view = scenario(name)
        for option in build_menu(view):
            target = option.example or option.display
            result = read_sms_reply(target, view)
            assert [u.text for u in result.understood] and result.understood[0].legal_now, \
                (name, target)
            if not option.is_template:
                assert read_sms_reply(option.display, view).understood[0].text == option.command


def test_menu_numbers_work_for_every_decision_of_random_games() -> None:
    from pbm.replies import read_sms_reply
    from pbm.replies.menu import build_menu

    checked = 0
    for step in simulated_states(5, 31):
        for decision in engine.pending(step.state):
            view = engine.view(step.state, decision.seat).to_dict()
            for option in build_menu(view):
                if option.is_template:
                    continue
                result = read_sms_reply(str(option.number), view)
                assert [u.text for u in result.understood] == [option.command]
                assert result.understood[0].legal_now
                checked += 1
    assert checked > 100


def test_the_stylesheet_given_once_to_the_inliner_inlines_as_a_style_element_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``templates/email/message.css`` is given to one inliner per process; every email's
    HTML is to the byte what css_inline made of the stylesheet as a ``<style>`` element in
    the head (where the template leaves its empty line)."""
    import css_inline

    import pbm.render.email as email_module

    seen: list[tuple[str, str]] = []
    inline = email_module.inline_css

    def kept(html: str) -> str:
        seen.append((html, inline(html)))
        return seen[-1][1]

    monkeypatch.setattr(email_module, "inline_css", kept)
    for ctx in cases().values():
        render(ctx, Channel.EMAIL)
    stylesheet = (email_module.TEMPLATES / "email" / "message.css").read_text()
    assert seen and "style=" in seen[0][1]
    for html, inlined in seen:
        assert "</title>\n\n</head>" in html and "<style" not in html
        styled = html.replace("</title>\n\n</head>",
                              f"</title>\n<style>\n{stylesheet}</style>\n</head>", 1)
        assert inlined == css_inline.inline(styled)
