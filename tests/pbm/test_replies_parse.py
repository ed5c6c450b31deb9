"""The forgiving parser: synonyms, prefixes, seat numbers, menu picks, did-you-mean."""

from __future__ import annotations

import engine
from pbm.replies import ParseContext, build_menu, read_sms_reply
from pbm.replies.parse import SAY_LIMIT, parse_text, split_commands
from tests.fixtures.seatviews import scenario


def texts(body: str, name: str = "turn") -> list[str]:
    return [u.text for u in read_sms_reply(body, scenario(name)).understood]


def test_case_punctuation_and_filler_words_do_not_matter() -> None:
    for body in ("REVEAL 3", "reveal 3", "Reveal 3.", "reveal card #3!", "please reveal 3",
                 "I'll reveal card number three", "  reveal   3  "):
        assert texts(body) == ["REVEAL 3"], body


def test_synonyms_map_to_the_canonical_commands() -> None:
    assert texts("peek 1 4") == ["VIEW 1 4"]
    assert texts("look at 2 and 5") == ["VIEW 2 5"]
    assert texts("flip 2") == ["REVEAL 2"]
    assert texts("kick cleo off") == ["MAROON 3"]
    assert texts("keep it", "marque") == ["SAVE"]
    assert texts("stay", "fountain") == ["FOUNTAIN"]
    assert texts("go", "fountain") == ["ACCEPT"]
    assert texts("fight", "governor") == ["BRAWL"]


def test_names_work_as_full_names_unique_prefixes_seat_numbers_and_without_accents() -> None:
    assert texts("maroon Cleo") == ["MAROON 3"]
    assert texts("maroon cl") == ["MAROON 3"]
    assert texts("maroon 5") == ["MAROON 5"]
    assert texts("maroon emile") == ["MAROON 5"]
    assert texts("maroon Émile") == ["MAROON 5"]
    assert texts("force 1 4 dmitri") == ["FORCE 1 4 4"]
    assert texts("force dmitri 1 4") == ["FORCE 1 4 4"]
    assert texts("force 1 4 4") == ["FORCE 1 4 4"]


def test_ships_and_holds_have_short_and_long_names() -> None:
    for body in ("row jr", "ROW JOLLY ROGER", "row to the roger", "Row to Jr"):
        assert texts(body, "governor") == ["ROW JR"], body
    for body in ("row fd", "row to the flying dutchman", "row dutchman"):
        assert texts(body, "governor") == ["ROW FD"], body
    for body in ("place british", "place brit", "PLACE B", "put it in british"):
        assert texts(body, "place") == ["PLACE BRITISH"], body
    assert texts("take french to british", "take_ship") == ["TAKE FRENCH TO BRITISH"]


def test_a_bare_number_picks_that_option_of_the_prompt() -> None:
    menu = build_menu(scenario("turn"))
    plain = next(o for o in menu if not o.is_template)
    assert texts(str(plain.number)) == [plain.command]
    assert texts("2", "vote") == ["VOTE 2"]  # vote options are numbered as the hand
    assert texts("5", "choose") == ["CHOOSE 5"]  # forced choices by position
    assert texts("3", "shoot") == ["SHOOT 3"]  # targets by seat number


def test_a_template_option_takes_its_words_after_the_number() -> None:
    menu = {o.command: o.number for o in build_menu(scenario("turn"))}
    force = menu["FORCE _ _ name"]
    assert texts(f"{force} 2 5 cleo") == ["FORCE 2 5 3"]
    result = read_sms_reply(str(force), scenario("turn"))
    assert result.understood == []
    assert result.not_understood[0].suggestion.startswith("FORCE ")
    assert "needs more" in result.not_understood[0].reason


def test_a_number_that_is_no_option_is_not_understood() -> None:
    result = read_sms_reply("42", scenario("turn"))
    assert result.commands == [] and "no option 42" in result.not_understood[0].reason


def test_unknown_lines_get_a_did_you_mean_from_the_seats_legal_commands() -> None:
    result = read_sms_reply("frce 1 2 cleo", scenario("turn"))
    assert result.commands == []
    assert result.not_understood[0].suggestion == "FORCE 1 2 Cleo"
    result = read_sms_reply("vote 7", scenario("vote"))
    assert result.commands == [] and result.not_understood[0].suggestion.startswith("VOTE ")


def test_one_typo_in_a_long_verb_or_a_name_is_forgiven_and_said_so() -> None:
    result = read_sms_reply("revael 3", scenario("turn"))
    assert result.understood[0].text == "REVEAL 3"
    assert "revael" in (result.understood[0].note or "")
    result = read_sms_reply("maroon cleoo", scenario("turn"))
    assert result.understood[0].text == "MAROON 3" and "Cleo" in result.understood[0].note


def test_short_words_are_not_guessed() -> None:
    # "rew" is one letter from "row", but 3-letter guesses are too risky.
    assert read_sms_reply("rew", scenario("turn")).commands == []


def test_lines_after_the_first_unreadable_one_are_ignored_and_listed() -> None:
    result = read_sms_reply("reveal 9\nview 1 2\nmaroon cleo", scenario("turn"))
    assert result.commands == []
    assert result.ignored == ["view 1 2", "maroon cleo"]


def test_greetings_signoffs_and_chatter_are_ignored_not_errors() -> None:
    result = read_sms_reply("Hi all,\nmaroon cleo\nCheers,\nAnn", scenario("turn"))
    assert [u.text for u in result.understood] == ["MAROON 3"]
    assert result.not_understood == [] and result.ignored == ["Hi all,", "Cheers,", "Ann"]


def test_several_commands_in_one_reply_for_two_player_games() -> None:
    assert texts("VIEW 1 2\nREVEAL 3", "two_player") == ["VIEW 1 2", "REVEAL 3"]
    assert texts("view 1 2 then reveal 3", "two_player") == ["VIEW 1 2", "REVEAL 3"]
    assert texts("row; attack", "two_player") == ["ROW", "ATTACK"]
    assert split_commands("view 1 and 4") == ["view 1 and 4"]
    assert split_commands("view 1 and 4 and reveal 2") == ["view 1 and 4", "reveal 2"]


def test_understood_commands_are_real_engine_commands_flagged_legal_or_not() -> None:
    results = [read_sms_reply(body, scenario("turn")) for body in ("maroon 4", "maroon 3")]
    assert [r.commands for r in results] == [[engine.Maroon(3)], [engine.Maroon(2)]]
    # Dmitri is not aboard
    assert [u.legal_now for r in results for u in r.understood] == [False, True]


def test_meta_commands_are_recognised_with_their_arguments() -> None:
    result = read_sms_reply("status\nhelp attack\nlog\nSAY good luck", scenario("turn"))
    assert [(m.name, m.arg) for m in result.meta] == [
        ("STATUS", ""), ("HELP", "ATTACK"), ("LOG", ""), ("SAY", "good luck")]
    assert result.commands == []


def test_say_keeps_the_players_own_words_and_is_cut_at_the_limit() -> None:
    result = read_sms_reply("say <b>Trust me</b> & \u201cfriends\u201d", scenario("turn"))
    assert result.meta[0].arg == "<b>Trust me</b> & \u201cfriends\u201d"
    long = read_sms_reply("SAY " + "arr " * 200, scenario("turn")).meta[0]
    assert long.truncated and len(long.arg) == SAY_LIMIT
    assert read_sms_reply("say", scenario("turn")).not_understood


def test_join_and_decline_answer_an_invitation_also_as_yes_and_no() -> None:
    assert [m.name for m in read_sms_reply("yes please", None, invited=True).meta] == ["JOIN"]
    assert [m.name for m in read_sms_reply("No thanks", None, invited=True).meta] == ["DECLINE"]
    assert [m.name for m in read_sms_reply("JOIN", None).meta] == ["JOIN"]


def test_a_stored_menu_is_used_instead_of_the_current_one() -> None:
    view = scenario("turn")
    menu = build_menu(scenario("shoot"))
    ctx = ParseContext.from_seat_view(view, menu=menu)
    assert [u.text for u in parse_text("3", ctx).understood] == ["SHOOT 3"]


def test_nothing_not_understood_ever_becomes_a_command() -> None:
    for body in ("", "   ", "lol", "what?", "1 2 3 4", "maroon everyone", "vote for me",
                 "row row row your boat", "\u202e\u200b", "x" * 5000, "SHOOT", "reveal"):
        result = read_sms_reply(body, scenario("turn"))
        for understood in result.understood:
            assert understood.text in scenario("turn")["pending"][0]["legal"] or \
                not understood.legal_now, (body, understood)
    assert read_sms_reply("1 2 3 4", scenario("turn")).commands == []
    assert read_sms_reply("maroon everyone", scenario("turn")).commands == []


def test_asides_in_brackets_and_option_words_are_understood() -> None:
    assert texts("reveal 3 (the Pistol)") == ["REVEAL 3"]
    assert texts("view [1] and [4]") == ["VIEW 1 4"]
    row = next(o.number for o in build_menu(scenario("turn")) if o.command == "ROW")
    assert texts(f"option {row}") == ["ROW"]
    assert texts("card 2", "vote") == ["VOTE 2"]


def test_a_command_inside_a_sentence_is_read_and_the_chatter_around_it_ignored() -> None:
    assert texts("Attack, and good luck everyone.") == ["ATTACK"]
    assert texts("I think I'll reveal card 3 because it might be the map") == ["REVEAL 3"]
    assert texts("my move: view 1 and 4") == ["VIEW 1 4"]
    assert texts("see you all tonight\nreveal 2") == ["REVEAL 2"]
    assert read_sms_reply("open question: who has the map?", scenario("turn")).empty


def test_negated_commands_are_skipped() -> None:
    assert texts("not the mutiny, I row", "first_mate") == ["ROW"]
    assert texts("Don't attack, row instead") == ["ROW"]
    assert read_sms_reply("no attack please", scenario("turn")).commands == []


def test_ordinals_and_one_as_a_pronoun() -> None:
    assert texts("the second one", "vote") == ["VOTE 2"]
    assert texts("reveal the fourth one") == ["REVEAL 4"]
    assert texts("first, reveal 3") == ["REVEAL 3"]
    assert texts("the cannon one", "vote") == ["VOTE 1"]


def test_two_readings_that_disagree_are_asked_back_naming_each() -> None:
    for body, name, want in (("reveal 3 or 4", "turn", {"REVEAL 3", "REVEAL 4"}),
                             ("go", "rowboat", {"LAND", "BOARD"}),
                             ("vote torch", "vote", {"VOTE 2 (Torch / French / Skull)",
                                                     "VOTE 3 (2 Torch / 2 French / 2 Skull)"})):
        result = read_sms_reply(body, scenario(name))
        [asked] = result.not_understood
        assert result.commands == [] and asked.ambiguous and set(asked.candidates) == want


def test_a_question_is_not_an_order() -> None:
    result = read_sms_reply("Attack?", scenario("turn"))
    assert result.commands == [] and result.not_understood[0].suggestion == "ATTACK"


def test_did_you_mean_never_picks_a_name_the_player_did_not_write() -> None:
    result = read_sms_reply("maroon Xavier", scenario("turn"))
    assert result.not_understood[0].suggestion == "MAROON Cleo or MAROON Émile"
    result = read_sms_reply("frce 1 2 cleo", scenario("turn"))
    assert result.not_understood[0].suggestion == "FORCE 1 2 Cleo"
