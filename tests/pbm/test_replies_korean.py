"""Korean replies (issue 24): the rewrite into the English command language, and a corpus of
Korean replies by SMS and from Korean mail clients (tests/fixtures/replies_ko/manifest.json)
with the English corpus's pass bar: every reply parses as expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pbm.replies.parse as parse_module
from pbm.i18n.glossary import section
from pbm.replies import ReplyResult, read_email_reply, read_sms_reply
from pbm.replies.korean import to_english, to_english_lines
from pbm.replies.parse import ParseContext, parse_lines
from tests.fixtures.reply_expectations import expectation_mismatches
from tests.fixtures.seatviews import DEFAULT_NAMES, scenario

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "replies_ko"
MANIFEST: dict[str, dict[str, Any]] = json.loads(
    (CORPUS / "manifest.json").read_text(encoding="utf-8"))

#: The corpus table's Korean players, seat by seat (the fixtures' English names otherwise).
KOREAN_NAMES = ("민준", "서연", "지호", "하은", "도윤")


def korean_view(name: str, names: str = "ko") -> dict[str, Any] | None:
    """The named scenario's seat view, its players renamed in Korean unless ``names`` is en."""
    view = scenario(name)
    if view is not None and names == "ko":
        for player in view["public"]["players"]:
            player["name"] = KOREAN_NAMES[player["seat"]]
        view["name"] = KOREAN_NAMES[view["seat"]]
    return view


def parse_fixture(name: str) -> ReplyResult:
    spec = MANIFEST[name]
    view = korean_view(spec["scenario"], spec.get("names", "ko"))
    invited = spec["scenario"] == "invited"
    path = CORPUS / name
    if name.endswith(".eml"):
        return read_email_reply(path.read_bytes(), view, invited=invited)
    return read_sms_reply(path.read_text(encoding="utf-8"), view, invited=invited)


def mismatches(name: str, result: ReplyResult) -> list[str]:
    """What differs between the parse of ``name`` and its expectation (empty: all good)."""
    return expectation_mismatches(MANIFEST[name], result)


# ------------------------------------------------------------------ the corpus


def test_the_korean_corpus_has_over_a_hundred_replies_from_email_and_sms() -> None:
    emails = [n for n in MANIFEST if n.endswith(".eml")]
    sms = [n for n in MANIFEST if n.endswith(".txt")]
    assert len(MANIFEST) >= 310  # issue 36 added 50 (korean_corpus.never_a_guess)
    assert len(emails) >= 40 and len(sms) >= 60
    on_disk = {p.name for p in CORPUS.iterdir() if p.suffix in (".eml", ".txt")}
    assert on_disk == set(MANIFEST)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_korean_reply_parses_as_expected(name: str) -> None:
    assert mismatches(name, parse_fixture(name)) == []


def test_the_whole_korean_corpus_parses_with_full_accuracy(
        capsys: pytest.CaptureFixture[str]) -> None:
    failed = {name: problems for name in sorted(MANIFEST)
              if (problems := mismatches(name, parse_fixture(name)))}
    accuracy = 100.0 * (len(MANIFEST) - len(failed)) / len(MANIFEST)
    kinds: dict[str, list[bool]] = {}
    for name in MANIFEST:
        kinds.setdefault(name.split("_")[0], []).append(name not in failed)
    with capsys.disabled():
        print(f"\nKorean reply corpus: {len(MANIFEST) - len(failed)}/{len(MANIFEST)} parsed as "
              f"expected ({accuracy:.1f}%); by kind: " + ", ".join(
                  f"{kind} {sum(ok)}/{len(ok)}" for kind, ok in sorted(kinds.items())))
    assert failed == {}


def test_no_quoted_korean_prompt_line_is_ever_read_as_a_command() -> None:
    for name in (n for n in MANIFEST if n.endswith(".eml")):
        result = parse_fixture(name)
        for line in [u.line for u in result.understood] + [m.line for m in result.meta]:
            assert "=" not in line and "Reply above" not in line, (name, line)


# ------------------------------------------------------------------ the rewrite itself


@pytest.mark.parametrize("line", [
    "REVEAL 3", "reveal 3 or view 1 4", "Force Dm 2 5", "SAY Émile, bonne chance!",
    "  vote 2  ", "Дмитрий", "", "3",
])
def test_a_line_without_hangul_is_returned_unchanged(line: str) -> None:
    assert to_english(line, DEFAULT_NAMES) is line


@pytest.mark.parametrize(("line", "english"), [
    ("3번 공개", "REVEAL 3"),
    ("1번이랑 3번 확인해 주세요", "VIEW 1 3"),
    ("세 번째 카드 공개할게요", "REVEAL 3"),
    ("민준이를 고립시킬게요", "MAROON 민준"),
    ("2번에 투표합니다", "VOTE 2"),
    ("2번이나 3번 공개", "REVEAL 2 or 3"),
    ("공개 확인 3", "REVEAL 3 or VIEW 3"),
    ("공격 말고 보트 이동", "not ATTACK, ROW"),
    ("2번 공개하고 보트 이동", "REVEAL 2 then ROW"),
    ("2번 공개한 다음 보트 이동", "REVEAL 2 then ROW"),
    ("횃불 두 개", "two torches"),
    ("도움말 공격", "HELP ATTACK"),
    ("언어 한국어", "LANG KO"),
    ("영어로 바꿔주세요", "LANG EN"),
    ("말: 다들 안녕", "SAY 다들 안녕"),
    ("수신 거부", "STOP"),
    ("2번 낼께요", "VOTE 2"),  # the common 께 for 게 after ㄹ
    ("선장 권한으로 지호 고립시킵니다", "MAROON 지호"),
    ("그만 고민하고 3번 공개", "REVEAL 3"),  # "그만" (enough) inside a line is not STOP
])
def test_korean_lines_are_rewritten_in_the_command_language(line: str, english: str) -> None:
    assert to_english(line, KOREAN_NAMES) == english


@pytest.mark.parametrize(("line", "english"), [
    ("3번 공개 아니 4번 공개", "REVEAL 3 no wait REVEAL 4"),
    ("3번 공개 아 잠깐 4번 확인", "REVEAL 3 no wait VIEW 4"),
    ("2번 투표 취소 3번 투표", "VOTE 2 scratch that VOTE 3"),
])
def test_korean_self_corrections_become_the_english_markers(line: str, english: str) -> None:
    assert to_english(line, KOREAN_NAMES) == english


@pytest.mark.parametrize("line", ["SAY 공개 공격 3번 ㅋㅋ", "chat: 민준 고립하자", "tell 안녕"])
def test_english_table_talk_in_korean_is_passed_on_as_written(line: str) -> None:
    assert to_english(line, KOREAN_NAMES) is line


@pytest.mark.parametrize(("line", "english"), [
    ("공격 안 해요", "not ATTACK"),
    ("공격은 안 할래요", "not ATTACK"),
    ("샘 쓸게요 안 나가요", "FOUNTAIN"),  # 안 before a word we do not know negates nothing
    ("고립 못 해요", "not MAROON"),
])
def test_an_and_mot_negate_the_command_they_go_with(line: str, english: str) -> None:
    assert to_english(line, KOREAN_NAMES) == english


def test_quantities_are_not_positions() -> None:
    # "2장 확인": look at two cards (which?), not at card 2; the parser asks.
    assert to_english("이벤트 카드 2장 확인") == "VIEW"
    assert to_english("2번 확인") == "VIEW 2"
    assert to_english("보물 하나 프랑스로 옮길게요") == "move to FRENCH"


@pytest.mark.parametrize("key", sorted(section("actions")))
def test_every_glossary_action_word_is_read_as_its_command(key: str) -> None:
    # The words the Korean messages will use are always understood back.
    word = section("actions")[key].word("ko")
    assert to_english(f"3번 {word}할게요", KOREAN_NAMES).split()[0] == key


@pytest.mark.parametrize(("sec", "key", "english"), [
    ("ships", "FD", "FD"), ("ships", "JR", "JR"), ("teams", "BRITISH", "BRITISH"),
    ("teams", "FRENCH", "FRENCH"), ("symbols", "CANNON", "cannon"), ("symbols", "TORCH", "torch"),
    ("symbols", "WATER", "water"), ("symbols", "SKULL", "skull"), ("symbols", "HELM", "helm"),
])
def test_glossary_ships_holds_and_symbols_are_read(sec: str, key: str, english: str) -> None:
    assert to_english(section(sec)[key].word("ko") + "로", KOREAN_NAMES) in (
        english, f"to {english}")


@pytest.mark.parametrize(("line", "english"), [
    ("reveal 3 or view 1 4 ㅎㅎ", "reveal 3 or view 1 4"),
    ("REVEAL 3 감사합니다", "REVEAL 3"),
    ("MAROON 지호요", "MAROON 지호"),
    ("Please reveal 3번 ㅎㅎ", "Please reveal 3"),
    ("help 공격", "help ATTACK"),
    ("row to 졸리로저", "row to JR"),
    ("MAROON 지후", "MAROON 지후"),  # a misspelt name: for the parser to match or report
])
def test_an_english_command_with_korean_around_it_keeps_its_words_and_order(
        line: str, english: str) -> None:
    assert to_english(line, KOREAN_NAMES) == english


def test_names_are_kept_as_written_and_never_read_as_words() -> None:
    # 공개 and 보트 are command words; as players' names they stay names.
    names = ("공개", "보트민", "민준")
    assert to_english("공개 고립", names) == "MAROON 공개"
    assert to_english("민준 고립", names) == "MAROON 민준"
    assert to_english("민준", names) == "민준"
    assert to_english("민준아 고립", names) == "MAROON 민준"
    # A name that starts with a command word is the name only when said whole.
    assert to_english("공격", ("공격수",)) == "ATTACK"
    assert to_english("공격수 고립", ("공격수",)) == "MAROON 공격수"


def test_two_names_with_or_are_asked_back() -> None:
    assert to_english("지호나 도윤 고립", KOREAN_NAMES) == "MAROON 지호 or 도윤"


def test_yes_and_no_to_an_invitation_only_when_invited() -> None:
    assert to_english("네", invited=True) == "yes"
    assert to_english("아니요", invited=True) == "no"
    assert to_english("네") == "네"


def test_the_hook_leaves_english_lines_as_the_very_same_objects() -> None:
    lines = ["REVEAL 3", "thanks", "민준 고립"]
    out = to_english_lines(lines, {0: "민준"})
    assert out[0] is lines[0] and out[1] is lines[1]
    assert out[2] == "MAROON 민준"


def test_without_the_hook_a_korean_reply_is_not_understood(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The parser alone reads "3번 공개" as romanized words it does not know.
    ctx = ParseContext.from_seat_view(korean_view("turn"))
    assert [u.text for u in parse_lines(["3번 공개"], ctx).understood] == ["REVEAL 3"]
    monkeypatch.setattr(parse_module, "to_english_lines", lambda lines, *a, **k: list(lines))
    result = parse_lines(["3번 공개"], ctx)
    assert not result.understood and result.not_understood


# ------------------------------------------------------------------ any text at all

_KOREAN_TEXT = st.text(alphabet=st.one_of(
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
    st.characters(min_codepoint=0x3131, max_codepoint=0x318E),
    st.sampled_from(list("0123456789 ,.!?:;~번째장개이랑과공개확인고립투표민준")),
    st.characters(codec="utf-8")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(_KOREAN_TEXT)
def test_any_korean_line_is_rewritten_without_error_and_parses(line: str) -> None:
    english = to_english(line, KOREAN_NAMES)
    assert isinstance(english, str)
    parse_lines([line], ParseContext.from_seat_view(korean_view("turn")))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FFF), max_size=60))
def test_any_line_without_hangul_is_untouched(line: str) -> None:
    assert to_english(line, KOREAN_NAMES) is line


#: Korean as Koreans write it (issue 36): (reply, scenario, commands, meta).
AS_WRITTEN = [
    ("셋 공개", "turn", ["REVEAL 3"], []), ("삼 번 공개", "turn", ["REVEAL 3"], []),
    ("삼번 공개할게요", "turn", ["REVEAL 3"], []), ("둘이요", "vote", ["VOTE 2"], []),
    ("하나", "vote", ["VOTE 1"], []), ("둘 셋 확인", "turn", ["VIEW 2 3"], []),
    ("지호 형 고립시킬게요", "turn", ["MAROON 3"], []),
    ("지호 누나한테 지도 줄게", "give", ["GIVE 3"], []),
    ("지호님에게 줄게요", "give", ["GIVE 3"], []),
    ("제가 가질게요", "give", ["GIVE 1"], []), ("내가 가질게", "give", ["GIVE 1"], []),
    ("그냥 갈게요", "fountain", ["ACCEPT"], []),
    ("서울 시간으로 해주세요", "turn", [], [("SET", "ZONE Seoul")]),
    ("3일 동안 부재", "turn", [], [("SET", "AWAY 3 days")]),
    ("보물 하나", "vote", [], []),  # a quantity of treasure, not card 1
    ("VIEW 1 그리고 3", "turn", ["VIEW 1 3"], []), ("VIEW 1 이랑 3", "turn", ["VIEW 1 3"], []),
    ("VOTE 2 음 3", "vote_el_dorado", [], []),  # a word between two cards: asked
]


def test_korean_as_koreans_write_it() -> None:
    got = {(body, name): ([u.text for u in r.understood], [(m.name, m.arg) for m in r.meta])
           for body, name, _, _ in AS_WRITTEN
           for r in [read_sms_reply(body, korean_view(name))]}
    assert got == {(body, name): (cmds, meta) for body, name, cmds, meta in AS_WRITTEN}
