"""One reading per decision, or none (issue 36): a reply holding two different answers to
one open decision, joined by anything that is not a correction the reader knows, applies
nothing for that decision and asks, naming both; the same command twice is one answer."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import engine
from pbm.replies import ParseContext, read_sms_reply
from pbm.replies.corrections import is_correction_text
from pbm.replies.settings_words import SETTING_WORDS
from pbm.replies.words import (
    FILLER,
    HOLDS,
    LEADING_FILLER,
    META,
    NEGATIONS,
    NUMBER_WORDS,
    SEQUENCE_WORDS,
    SHIPS,
    SYMBOLS,
    TRAILING_OK,
    VERBS,
    fold,
)
from tests.fixtures.seatviews import scenario, seat_view
from tests.pbm.test_replies_ambiguity import NAMES, game_states

#: Words the reader knows (a setting word starts a setting: "zone 4"): an unknown joiner
#: is made of none of them.
_KNOWN = (set(VERBS) | set(META) | set(SETTING_WORDS) | FILLER | LEADING_FILLER | NEGATIONS
          | set(NUMBER_WORDS) | set(SHIPS) | set(HOLDS) | set(SYMBOLS) | SEQUENCE_WORDS
          | TRAILING_OK
          | {"no", "not", "nope", "nah", "or", "either", "if", "oder", "ou", "o", "of", "nee",
             "nein", "non", "nao", "nada"})

WORD = st.text(alphabet="abcdeghiklmnopqrstuvwyzäéñüß", min_size=2, max_size=8)
SEPARATORS = st.sampled_from([" ", ", ", ". ", " - ", " \u2013 ", "... ", "\n", "\n\n",
                              " / ", ": ", "; ", "! ", " (", ") "])


def _unknown(word: str) -> bool:
    folded = fold(word)
    return folded not in _KNOWN and not any(
        fold(n).startswith(folded) or folded.startswith(fold(n)[:3]) for n in NAMES) \
        and not any(fold(v).startswith(folded) or folded.startswith(fold(v))
                    for v in list(VERBS) + list(META) if len(v) >= 3)


JOINER = st.lists(st.tuples(WORD.filter(_unknown), SEPARATORS), min_size=0, max_size=3)


def _one_answer_decisions() -> list[tuple[engine.GameState, int, list[str]]]:
    """(state, seat, legal answers) of decisions that take one answer (not a 2-action turn)
    and have at least two."""
    found = []
    for state, seat in game_states():
        for decision in engine.pending(state):
            if decision.seat != seat:
                continue
            legal = sorted({str(c) for c in decision.legal} - {"ATLANTIS"})
            two_actions = decision.kind == "ACTION" and int(
                decision.context.get("of", 1)) - int(decision.context.get("action", 1)) > 0
            if len(legal) >= 2 and not two_actions:
                found.append((state, seat, legal))
    return found


def _written(command: str, ctx: ParseContext, form: int) -> str:
    """``command`` as a player may write it: canonical, as shown, lower case, or the
    menu's number for it."""
    if form == 3:
        option = next((o for o in ctx.menu if o.command == command), None)
        if option is not None:
            return str(option.number)
    shown = ctx.display(command) if form else command
    return shown.lower() if form == 2 else shown


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0), picks=st.tuples(st.integers(0), st.integers(0)),
       forms=st.tuples(st.integers(0, 3), st.integers(0, 3)), joiner=JOINER,
       first_sep=SEPARATORS, bare=st.booleans())
def test_two_different_answers_joined_by_unknown_text_apply_nothing(
        index: int, picks: tuple[int, int], forms: tuple[int, int],
        joiner: list[tuple[str, str]], first_sep: str, bare: bool) -> None:
    decisions = _one_answer_decisions()
    state, seat, legal = decisions[index % len(decisions)]
    view = engine.view(state, seat).to_dict()
    ctx = ParseContext.from_seat_view(view)
    first, second = legal[picks[0] % len(legal)], legal[picks[1] % len(legal)]
    assume(first != second)
    if " " not in first and joiner and not first_sep.strip("( "):
        # A lone command word run on into words reads as prose ("Board games are the
        # best", "Land ho"): it is not an answer; the break makes it one.
        first_sep = ", "
    middle = "".join(word + sep for word, sep in joiner)
    head = f"{_written(first, ctx, forms[0])}{first_sep}{middle}"
    # A bare number goes on a line of its own ("VOTE 1 2" is one El Dorado vote).
    second_form = forms[1] if head.endswith("\n") else min(forms[1], 2)
    body = head + _written(second, ctx, second_form)
    words = second.split()
    if bare and middle.strip() and len(words) == 2 and words[0] == first.split()[0] \
            and words[0] in ("REVEAL", "VOTE", "CHOOSE", "SHOOT", "GIVE"):
        body = head + words[1]  # "REVEAL 2 perdona 5": the argument alone after the words
    assume(not is_correction_text(body))

    result = read_sms_reply(body, view)

    assert result.commands == [], body
    if forms[0] == 3 and first_sep == " " and not middle and second_form != 3:
        # Known gap (issue 36's closing note): a menu number run on into a whole command
        # ("4 FORCE 1 2 1") is read as chatter: nothing is applied and the line is listed
        # as ignored with the menu, but the player is not asked which they meant.
        return
    assert result.not_understood, body  # asked, never silently dropped


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(min_value=0), pick=st.integers(0), sep=SEPARATORS)
def test_the_same_answer_twice_is_one_answer(index: int, pick: int, sep: str) -> None:
    decisions = _one_answer_decisions()
    state, seat, legal = decisions[index % len(decisions)]
    view = engine.view(state, seat).to_dict()
    ctx = ParseContext.from_seat_view(view)
    command = legal[pick % len(legal)]
    shown = ctx.display(command)

    result = read_sms_reply(f"{shown}{sep}{shown}", view)

    assert [str(c) for c in result.commands] == [command]


def _asked(body: str, name: str) -> tuple[list[str], tuple[str, ...]]:
    result = read_sms_reply(body, scenario(name))
    asked = next((n for n in result.not_understood if n.ambiguous), None)
    return [u.text for u in result.understood], asked.candidates if asked else ()


def test_two_answers_to_one_decision_are_asked_about_naming_both() -> None:
    assert _asked("REVEAL 1\nREVEAL 5", "turn") == ([], ("REVEAL 1", "REVEAL 5"))
    assert _asked("VOTE 2\nVOTE 3", "vote") == ([], ("VOTE 2", "VOTE 3"))
    assert _asked("2\nVOTE 3", "vote") == ([], ("VOTE 2", "VOTE 3"))
    assert _asked("GIVE Ann\nGIVE Cleo", "give") == ([], ("GIVE Ann", "GIVE Cleo"))
    assert _asked("VOTE 2\nVOTE 3", "voted") == ([], ("VOTE 2", "VOTE 3"))
    # a rival the reader could not read whole still names the second reading
    assert _asked("REVEAL 1\nREVEAL 5 blorp", "turn") == ([], ("REVEAL 1", "REVEAL 5"))
    # a correction word the reader does not know, before a bare argument: asked
    assert _asked("REVEAL 2 perdona 5", "turn") == ([], ("REVEAL 2", "REVEAL 5"))
    assert _asked("REVEAL 2\nprzepraszam, 5", "turn") == ([], ("REVEAL 2", "REVEAL 5"))
    assert _asked("GIVE Ann pfff Cleo", "give") == ([], ("GIVE Ann", "GIVE Cleo"))
    assert _asked("PLACE BRITISH, tz PLACE FRENCH", "place")[0] == []
    # an aside offering another argument is a second answer; a comment is not
    assert _asked("VOTE 2 (or 3?)", "vote") == ([], ("VOTE 2", "VOTE 3"))
    assert _asked("REVEAL 4 (maybe 5)", "turn") == ([], ("REVEAL 4", "REVEAL 5"))
    assert _asked("REVEAL 3 (the Pistol)", "turn") == (["REVEAL 3"], ())
    # a comment between two arguments, a menu pick with words after it: a second answer
    assert _asked("VOTE 1 (hmm) 2", "vote_el_dorado") == ([], ("VOTE 1", "VOTE 2"))
    assert _asked("VOTE 1\n2 hmm", "vote") == ([], ("VOTE 1", "VOTE 2"))
    # an aside or a signature with a number is no second answer
    assert _asked("REVEAL 2\nAnn (seat 1)", "turn") == (["REVEAL 2"], ())


def test_two_answers_the_reader_stopped_between_still_apply_nothing() -> None:
    texts, asked = _asked("REVEAL 1\nrevael 4 qq\nREVEAL 5", "turn")
    assert texts == [] and "REVEAL 1" in asked


def test_two_actions_of_a_two_player_turn_are_not_two_answers() -> None:
    assert _asked("VIEW 1 2\nREVEAL 3", "two_player") == (["VIEW 1 2", "REVEAL 3"], ())
    assert _asked("REVEAL 3\nREVEAL 3", "turn") == (["REVEAL 3"], ())



def test_a_rhetorical_or_refused_question_around_a_command_orders_nothing() -> None:
    for body, name in [("Mutiny? With Ann aboard? Never.", "first_mate"),
                       ("Attack? Never.", "turn"), ("Attack, never!", "turn"),
                       ("should I reveal 3?", "turn"), ("reveal 3? or 4", "turn")]:
        result = read_sms_reply(body, scenario(name))
        assert result.commands == [], body
        assert "question" in result.not_understood[0].reason, body
    # the question after a first answer makes the reply unclear: nothing, and asked
    assert _asked("REVEAL 1\nor should I reveal 3?", "turn") == ([], ("REVEAL 1", "REVEAL 3"))
    # a question of a later sentence, or "never" inside one, leaves the command as it is
    assert _asked("Attack! never again will I trust Cleo", "turn") == (["ATTACK"], ())


QUESTIONS = [
    ("how does the Black Spot work", "BLACK SPOT"), ("what's a mutiny", "MUTINY"),
    ("what does the letter of marque do?", "LETTER OF MARQUE"),
    ("how do I change my time zone", "ZONE"), ("What is a Crow's Nest?", "CROW'S NEST"),
    ("explain the fountain of youth", "FOUNTAIN OF YOUTH"),
    ("반란이 뭐예요?", "MUTINY"), ("검은 딱지는 어떻게 돼요?", "BLACK SPOT"),
    ("시간대 어떻게 바꿔요?", "ZONE"), ("보물 지도가 뭐예요?", "TREASURE MAP"),
    ("공격은 어떻게 해?", "ATTACK"),
]


def test_a_question_about_a_card_an_action_or_a_setting_gets_help_on_it() -> None:
    got = {body: [(m.name, m.arg) for m in read_sms_reply(body, scenario("turn")).meta]
           for body, _ in QUESTIONS}
    assert got == {body: [("HELP", topic)] for body, topic in QUESTIONS}


SHORTHAND = [
    ("r2", "turn", ["REVEAL 2"]), ("rev 2", "turn", ["REVEAL 2"]), ("v1", "vote", ["VOTE 1"]),
    ("v 1 3", "vote_el_dorado", ["VOTE 1 3"]), ("v 1 3", "turn", ["VIEW 1 3"]),
    ("m cleo", "turn", ["MAROON 3"]), ("c2", "choose", ["CHOOSE 2"]), ("c4", "choose", []),
    ("atk", "turn", ["ATTACK"]), ("tk br", "take", ["TAKE TO BRITISH"]),
    ("ill go w 3", "vote", ["VOTE 3"]), ("switch to card 3", "voted", ["VOTE 3"]),
    ("change of plan: card 2 instead of the Water", "voted", ["VOTE 2"]),
    ("can I still change? if so 2 please", "voted", ["VOTE 2"]),
    ("change it to 1", "voted", ["VOTE 1"]), ("lol", "turn", []),
]


def test_sms_shorthand_and_plain_vote_changes_read_as_the_one_command_they_fit() -> None:
    got = {(body, name): [str(c) for c in read_sms_reply(body, scenario(name)).commands]
           for body, name, _ in SHORTHAND}
    assert got == {(body, name): want for body, name, want in SHORTHAND}


def test_shorthand_that_fits_two_legal_commands_is_asked() -> None:
    view = seat_view(0, pending=[("ACTION", ["VIEW 2", "REVEAL 1"]), ("VOTE", ["VOTE 2"])])
    result = read_sms_reply("v2", view)
    assert result.commands == []
    assert set(result.not_understood[0].candidates) == {"VIEW 2", "VOTE 2"}
