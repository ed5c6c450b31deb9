"""Korean replies -> the English command language the parser reads (issue 24).

A line with Hangul in it is rewritten before the parser folds it (folding romanizes Hangul:
"3번 공개" would read "3beon gonggae"). Korean puts the verb last and glues particles and
polite endings onto words ("3번을 공개할게요", "민준이를 고립시킬게요"); the rewrite finds
the words it knows - commands (the rulebook's words, ``glossary.toml``), numbers with their
markers ("3번", "세 번째"), ships, holds, Vote symbols, card names and the players' names -
drops particles, endings and chatter, and writes them back in English order::

    "1번이랑 3번 확인해 주세요"  -> "VIEW 1 3"
    "민준 고립시킬게요"          -> "MAROON 민준"
    "2번 공개 아니면 4번 공개"   -> "REVEAL 2 or REVEAL 4"   (the parser asks which)

Names stay as written: the parser matches them as it matches any name. A line without
Hangul is returned unchanged, byte for byte, so English replies are read exactly as before;
an English command with Korean around it ("REVEAL 3 감사합니다") keeps its words and order,
and table talk (SAY, "말: ...") is passed on as written.
The rewrite never guesses: two commands in one clause, or "아니면" (or), are passed on as
"... or ..." for the parser to ask back; a word it does not know is kept for the parser to
report. Self-corrections ("아니", "잠깐", "취소") become the English markers "no wait" /
"scratch that" that the correction logic reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from pbm.i18n.glossary import section
from pbm.replies.words import META, VERBS, fold

#: Commands whose arguments may be a word we do not know (a player's name, a HELP topic).
_NAME_VERBS = frozenset({"MAROON", "FORCE", "SHOOT", "GIVE", "MARQUE", "SAY", "move"})
_SYMBOL_ARGS = frozenset({"cannon", "torch", "water", "skull", "helm"})
_COUNT_WORDS = {2: "two", 3: "three", 4: "four"}
_META_KEYWORDS = frozenset({"HELP", "STATUS", "LOG", "JOIN", "DECLINE", "STOP", "START"})
HANGUL_RE = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")

#: Command words -> the English word the parser reads, longest first when matched.
#: "move" lets the parser pick ROW / LAND / BOARD from the seat's legal commands.
COMMAND_WORDS: dict[str, str] = {
    # VIEW (rulebook: "이벤트 카드 2장 확인")
    "확인": "VIEW", "보기": "VIEW", "볼게": "VIEW", "볼래": "VIEW", "봅니다": "VIEW",
    "봐": "VIEW", "엿보기": "VIEW", "엿볼": "VIEW", "훔쳐보": "VIEW", "살펴보": "VIEW",
    # REVEAL ("이벤트 카드 1장 공개")
    "공개": "REVEAL", "오픈": "REVEAL", "뒤집": "REVEAL", "까기": "REVEAL", "깔게": "REVEAL",
    "까볼": "REVEAL", "까봅": "REVEAL", "깔께": "REVEAL",
    # FORCE ("1명 선택해 ... 공개"): 지목 / 강요, or "공개시키기" (make someone reveal)
    "지목": "FORCE", "강요": "FORCE", "강제": "FORCE", "공개시": "FORCE",
    "공개하라": "FORCE", "공개하게": "FORCE", "공개해달라": "FORCE",
    # ROW ("보트 이동")
    "보트": "ROW", "노젓기": "ROW", "노 젓기": "ROW", "노를 젓": "ROW", "이동": "move",
    "옮길": "move", "옮겨": "move", "옮기": "move", "옮깁": "move", "옮김": "move",
    # BOARD / LAND (chosen)
    "승선": "BOARD", "탑승": "BOARD", "배에 타": "BOARD", "배로 돌아": "BOARD",
    "상륙": "LAND", "하선": "LAND", "배에서 내리": "LAND", "배에서 내릴": "LAND",
    # Captain, First Mate, Governor ("공격 명령", "고립시키기", "반란 선동", "전투명령")
    "공격": "ATTACK", "약탈": "ATTACK",
    "고립": "MAROON", "추방": "MAROON", "내쫓": "MAROON", "쫓아내": "MAROON",
    "반란": "MUTINY",
    "전투": "BRAWL", "싸움": "BRAWL", "난투": "BRAWL",
    # answers
    "투표": "VOTE", "낼게": "VOTE", "낼래": "VOTE", "냅니다": "VOTE", "내기": "VOTE",
    "제출": "VOTE",
    # "3번으로 바꿀게요": change my vote (a VOTE again replaces it until the vote closes)
    "바꿀": "VOTE", "바꿔": "VOTE", "바꾸": "VOTE", "바꿉": "VOTE", "변경": "VOTE",
    "선택": "CHOOSE", "고를": "CHOOSE", "고르": "CHOOSE", "골라": "CHOOSE",
    "쏘기": "SHOOT", "쏠게": "SHOOT", "쏠래": "SHOOT", "쏩니다": "SHOOT", "쏴": "SHOOT",
    "쏘겠": "SHOOT", "쏜다": "SHOOT",
    "사격": "SHOOT", "총을 쏘": "SHOOT",
    "줄게": "GIVE", "주기": "GIVE", "줄래": "GIVE", "드릴게": "GIVE", "넘길": "GIVE",
    "넘겨": "GIVE", "양도": "GIVE",
    "가져오": "TAKE", "가져올": "TAKE", "가져갈": "TAKE", "가져가": "TAKE", "뺏": "TAKE",
    "빼앗": "TAKE",
    "놓을": "PLACE", "놓기": "PLACE", "놓겠": "PLACE", "놔": "PLACE", "배치": "PLACE",
    "보관": "SAVE", "저장": "SAVE", "킵": "SAVE", "버리": "DISCARD", "버릴": "DISCARD",
    "수락": "ACCEPT", "나중에 쓸": "SAVE", "킵할": "SAVE",
    "보물 옮기기": "SHIFT",
}

_WEAK_COMMANDS = frozenset({"보트", "바꿀", "바꿔", "바꾸", "바꿉", "변경"})

#: Meta words -> the English meta keyword (the rest of the line follows it).
META_WORDS: dict[str, str] = {
    "도움말": "HELP", "도움": "HELP", "도와": "HELP", "명령어": "HELP", "설명": "HELP",
    "상태": "STATUS", "현황": "STATUS", "정보": "STATUS",
    "기록": "LOG", "로그": "LOG", "히스토리": "LOG",
    "참가": "JOIN", "참여": "JOIN",
    "거절": "DECLINE", "불참": "DECLINE",
}
#: STOP / START (SMS) only as a whole line: "그만 고민하고 3번 공개" is not a STOP.
_STOP_RE = re.compile(r"^\s*(?:수신\s*거부|문자\s*(?:그만|중지)|중지|그만)[\s.!]*$")
_ZONE_RE = re.compile(r"^\s*시간대\s*[:：]?\s+(\S.*?)\s*$")
_START_RE = re.compile(r"^\s*(?:수신\s*재개|문자\s*재개|재개)[\s.!]*$")

#: Names of things -> the English word (arguments, or verbs for the cards that are used).
THING_WORDS: dict[str, str] = {
    "플라잉 더치맨": "FD", "플라잉더치맨": "FD", "더치맨": "FD", "플라잉": "FD",
    "졸리 로저": "JR", "졸리로저": "JR", "로저": "JR", "졸리": "JR",
    "영국": "BRITISH", "프랑스": "FRENCH", "불란서": "FRENCH",
    "대포": "cannon", "횃불": "torch", "해골": "skull",
    "토르투가": "Tortuga",
    "권총": "pistol", "사략 허가증": "marque", "사략허가증": "marque", "허가증": "marque",
    "사략": "marque", "보물 지도": "map", "보물지도": "map", "지도": "map",
    "아틀란티스": "atlantis", "젊음의 샘": "fountain", "젊음의샘": "fountain",
    "샘": "fountain",
    "없음": "NONE",  # TAKE NONE, as a Korean menu and button write it (issue 37)
}
#: One-syllable things, read only as a whole word (with a particle at most).
SHORT_THINGS: dict[str, str] = {"물": "water", "키": "helm", "노": "ROW"}

#: Counted numbers ("세 번째", "첫째", "두 장"): the native Korean numerals. Not 한:
#: "한번 볼게요" is "let me look", not card 1.
NATIVE_NUMBERS: dict[str, int] = {
    "첫": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4,
    "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9,
}
#: Sino-Korean digits, read only before 번 ("삼번"); 이번 is "this time", not 2.
SINO_NUMBERS: dict[str, int] = {"일": 1, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7,
                                "팔": 8, "구": 9}
COUNTERS = ("번째", "번", "째", "장", "개", "명", "등")
#: Polite endings glued to a bare number ("둘이요", "셋이에요").
_POLITE_TAILS = frozenset({"요", "이요", "이에요", "예요", "입니다", "이오", "으로", "로",
                           "으로요", "로요", "이", "을", "를"})
#: Counters of a quantity ("2장": two cards), not a position ("2번": card 2).
_COUNT_COUNTERS = frozenset({"장", "개", "명"})

#: Words that mean nothing to a command (greetings, "I", "this time", "card" ...).
FILLER = frozenset({
    "명령", "명령을", "명령입니다", "중", "중에", "중에서", "한번", "한번만", "한", "번",
    "한개", "한장", "거", "것", "걸", "거요", "걸로", "거로", "헐", "와", "오오", "음", "흠흠",
    "자자",
    "좋네요", "여러분", "다들", "모두", "얘들아", "ㅇㅋ", "오케이", "그거", "이거", "저거",
    "요걸로", "제", "저", "저는", "제가", "나", "나는", "내가", "내", "우리", "이번", "이번엔",
    "이번에는", "이번에", "턴", "차례", "제차례", "그냥", "흠", "어", "오", "아", "좋아",
    "좋아요", "좋습니다", "일단", "먼저", "꼭", "제발", "부탁", "부탁해요", "부탁드려요",
    "부탁드립니다", "카드", "카드를", "카드는", "이벤트", "투표카드", "번호", "칸", "자리",
    "보관함", "쪽", "위치", "선동", "시키기", "하기", "해요", "해주세요", "해줘",
    "해주라", "주세요", "드려요", "할게", "할게요", "할래요", "하겠습니다", "합니다", "할께요",
    "할께", "한다", "하자", "합시다", "요", "을", "를", "은", "는", "이", "가", "에", "에서",
    "으로", "로", "의", "도", "만", "그럼", "그러면", "자", "네", "예", "넵", "음음", "흐음",
    "ㅎㅎ", "ㅋㅋ", "갑니다", "가요", "갈게요", "하고싶어요", "싶어요", "싶습니다", "원해요",
    "보물", "개를", "개", "스페인", "갈레온", "갈레온에서", "호", "배", "씨", "님", "선장님",
    "사용", "사용할게요", "쓸게요", "쓰기", "발동", "ㅠㅠ", "ㅜㅜ",
    # honorifics after a name ("지호 형", "서연 누나한테")
    "형", "형님", "누나", "누님", "오빠", "언니", "선배", "선배님", "쌤", "군", "양", "님께",
})
#: Words that start chatter after a command word ("선동합니다", "명령 내릴게요").
FILLER_STEMS = (
    "선동", "권한", "선장", "일등", "항해사", "초보", "총독", "부탁", "사용", "좋아", "감사",
    "고마", "하겠", "합니", "할게", "할께", "해주", "주세", "드립", "드려", "싶어", "싶습",
    "내릴", "내리", "해요", "하자", "내립", "일으", "보내", "보여", "알려", "미안", "죄송",
    "고민", "비밀", "무조건", "진짜", "정말", "당연", "아마", "제발", "화이팅", "파이팅",
)

#: Particles and endings after a number, name or thing; "to" and "or" ones carry meaning.
_TO_PARTICLES = ("으로", "로")
_OR_PARTICLES = ("이나", "나")
_PARTICLES = ("이랑", "랑", "하고", "과", "와", "이나", "나", "으로", "로", "에서", "에게",
              "한테", "께", "을", "를", "은", "는", "이", "가", "에", "도", "만", "요", "호",
              "이요", "씨", "님", "이를", "이가", "이는", "이한테", "이에게", "야", "아")

_COPULAS = ("입니다", "이에요", "예요", "이야", "이다")

CORRECTIONS: dict[str, str] = {
    "아니 아니": "no wait", "아 잠깐": "no wait", "아니다": "no wait", "잠깐만": "no wait",
    "잠깐": "no wait", "아니": "no wait", "취소": "scratch that", "정정": "no wait",
}
_OR_WORDS = frozenset({"아니면", "또는", "혹은", "아님"})
_AND_WORDS = frozenset({
    "그리고", "그다음", "그다음에", "다음에", "다음", "후", "뒤", "뒤에", "그 다음",
    "그 다음에", "후에", "그후", "그후에", "그 후", "그 후에", "한 다음", "한 후",
    "하고나서", "하고 나서", "한다음",
})
_NEG_WORDS = frozenset({"안", "못"})
#: Forms of 하다 (do) after 안 / 못: "공격 안 해요" is "I won't attack".
_DO_FORMS = ("하", "할", "합", "해", "했", "함", "되", "돼", "됩")
#: "X 말고 Y" / "X 대신 Y": not X, Y instead.
_INSTEAD_WORDS = frozenset({"말고", "말고요", "말구", "대신", "대신에", "빼고", "제외하고",
                            "아니고", "아니라"})
_NEG_ENDINGS = ("않", "말고", "말구", "지 마", "지마", "안 해", "안해", "안 할", "안할", "못")

INVITE_YES = re.compile(
    r"^(?:네+|예|넵+|넹|응|ㅇㅇ|ㅇㅋ|오케이|좋아요?|좋습니다|콜|당연하?죠?|물론이?죠?|"
    r"(?:네,?\s*)?(?:참가|참여)(?:할게요?|하겠습니다|합니다|할래요?|해요)?|"
    r"(?:네,?\s*)?할게요?|(?:네,?\s*)?(?:좋아요?|좋습니다|하겠습니다|같이 해요))"
    r"[\s!.~^ㅎㅋ]*$")
INVITE_NO = re.compile(
    r"^(?:아니요|아뇨|아니오|노노|불참(?:할게요?|합니다|이요)?|거절(?:할게요?|합니다)?|"
    r"(?:죄송하지만\s*)?(?:못\s*(?:해요|합니다|할 것 같아요|할게요)|다음에요?|패스|"
    r"이번엔 (?:패스|빠질게요))|빠질게요)[\s!.~ㅠㅜ]*$")
_SAY_WORDS = "|".join(w for w, m in META.items() if m == "SAY")
_ENGLISH_SAY_RE = re.compile(rf"^[\W_]*(?:{_SAY_WORDS})\b", re.IGNORECASE)
_SAY_RE = re.compile(r"^\s*(?:말|채팅|전체|공지|다들|모두)(?:에게|한테)?\s*[:：]\s*(.*)$|"
                     r"^\s*(?:채팅|말하기|전체 채팅)\s+(.*)$", re.DOTALL)
_LANG_RE = re.compile(
    r"^\s*(?:(?:언어|language|lang)\s*[:：]?\s*(한국어|한글|영어|korean|english|ko|en)"
    r"|(한국어|한글|영어)로(?:\s*(?:바꿔|변경|설정|해|받))?)\S*(?:\s+\S+)?[\s.!]*$",
    re.IGNORECASE)
_COURTESY = re.compile(
    r"^(?:안녕하세요|안녕|감사합니다|고마워요?|고맙습니다|수고하세요|수고하셨습니다|화이팅|"
    r"파이팅|잘 부탁드립니다|잘 부탁해요|행운을 빌어요|좋은 하루 되세요|ㅋ+|ㅎ+|ㅠ+|"
    r"[가-힣]+ 드림|[가-힣]+ 올림)[\s!.~^ㅎㅋ]*$")


@dataclass
class _Clause:
    """One command of a line: its verbs and arguments in English, in order."""

    verbs: list[str] = field(default_factory=list)
    numbers: list[int | str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    bare: list[int] = field(default_factory=list)  # "셋": a position, or a symbol's count
    treasure: bool = False  # "보물 하나": the bare number counts treasure
    unknown: list[str] = field(default_factory=list)
    weak_verbs: list[str] = field(default_factory=list)
    negated: bool = False
    question: bool = False
    correction: str = ""

    def english(self) -> str:
        verbs = [v for v in dict.fromkeys(self.verbs) if v != "move"] or list(
            dict.fromkeys(self.weak_verbs)) or (["move"] if "move" in self.verbs else [])
        args = list(dict.fromkeys(self.args))  # "지호님 ... 지호": one name
        if {"Tortuga", "to Tortuga"} & set(args):  # LAND, or where a MAROON sends
            args = [a for a in args if a not in ("Tortuga", "to Tortuga")]
            if verbs in ([], ["move"]):
                verbs = ["LAND"]
        if not verbs or set(verbs) & _NAME_VERBS:
            args = args + self.unknown  # a name the parser matches, or reports
        if verbs and verbs[0] in _META_KEYWORDS:  # "도움말 공격": HELP ATTACK
            verbs, args = verbs[:1], verbs[1:] + self.weak_verbs + args
        symbols = [a for a in args if a in _SYMBOL_ARGS]
        counted = bool(symbols) or self.treasure
        counts = self.counts + (self.bare if counted else [])
        numbers = self.numbers + ([] if counted else list(self.bare))
        if counts and len(symbols) == 1:  # "횃불 두 개": two torches
            count = counts[0]
            args = [f"{_COUNT_WORDS.get(count, str(count))} {a}{'es' if a == 'torch' else 's'}"
                    if a in _SYMBOL_ARGS and count > 1 else a for a in args]
        # Other counts ("2장 확인": two cards, "1명") are quantities, not positions: dropped,
        # so the parser asks which cards.
        tail = " ".join([str(n) for n in numbers] + args)
        # Two verbs in one clause: passed on as "or" for the parser to ask, never picked.
        body = " or ".join(f"{v} {tail}".strip() for v in verbs) if verbs else tail
        if self.negated and body:
            body = f"not {body}"
        if self.question and body:
            body += "?"
        return " ".join(p for p in (self.correction, body) if p)


def has_hangul(text: str) -> bool:
    """True if ``text`` has a Hangul syllable or letter."""
    return bool(HANGUL_RE.search(text))


@cache
def _glossary_words() -> list[tuple[str, str, str]]:
    """The glossary's Korean words as (surface, kind, English): its actions, ships, holds,
    symbols and cards, so a word the messages will use is always understood back."""
    kinds = {"actions": "verb", "ships": "thing", "teams": "thing", "symbols": "thing",
             "events": "thing"}
    english = {"ships": {"FD": "FD", "JR": "JR"},
               "teams": {"BRITISH": "BRITISH", "FRENCH": "FRENCH"},
               "symbols": {"BRITISH": "BRITISH", "FRENCH": "FRENCH"}}
    found = []
    for sec, kind in kinds.items():
        for key, term in section(sec).items():
            if sec == "actions":
                word = key
            elif sec == "events":
                word = term.word("en")
            elif sec == "symbols" and key not in english[sec]:
                word = key.lower()
            else:
                word = english[sec].get(key, "")
            ko = term.word("ko")
            if not word or len(ko.replace(" ", "")) < 2:
                continue  # one syllable (물, 키): whole words only, see SHORT_THINGS
            found += [(surface, kind, word) for surface in {ko, ko.replace(" ", "")}]
    return found


@cache
def _lexicon() -> tuple[tuple[str, str, str], ...]:
    """(surface, kind, English) for every word matched inside a token, longest first."""
    entries = [(w, "verb", e) for w, e in COMMAND_WORDS.items()]
    entries += [(w, "meta", e) for w, e in META_WORDS.items()]
    entries += [(w, "thing", e) for w, e in THING_WORDS.items()]
    known = {w for w, _, _ in entries}
    entries += [e for e in _glossary_words() if e[0] not in known]
    return tuple(sorted(entries, key=lambda e: -len(e[0])))


def _strip_particle(word: str) -> tuple[str, str]:
    """``"민준이를"`` -> (``"민준"``, ``"이를"``): the longest particle at the end, if any."""
    for particle in sorted(_PARTICLES, key=len, reverse=True):
        if word.endswith(particle) and len(word) > len(particle):
            return word[: -len(particle)], particle
    return word, ""


def _name_of(word: str, names: Iterable[str], *, prefix: bool = False) -> str | None:
    """The player name ``word`` is, with or without a particle (kept as the player wrote it);
    with ``prefix``, also the first syllables of one ("지호" for 지호연)."""
    keys = [n for n in names if n]
    stem = word
    for _ in range(3):  # "서연님한테": 한테, then 님
        for name in keys:
            first = name.split()[0]
            if stem in (name, first) or (prefix and has_hangul(stem) and len(stem) >= 2
                                         and first.startswith(stem)):
                return stem
        stem, particle = _strip_particle(stem)
        if not particle:
            break
    return None


def _number(text: str) -> tuple[int, str, str] | None:
    """A number at the start of ``text``, its counter and what follows: "3번째를" ->
    (3, "번째", "를"); "두 개" counts, "세 번째" places (see ``_COUNT_COUNTERS``)."""
    match = re.match(r"^(\d{1,2})\s*(번째|번|째|장|개|명|등)?(.*)$", text)
    if match:
        return int(match.group(1)), match.group(2) or "", match.group(3)
    for word, value in {**NATIVE_NUMBERS, **{k + "번": v for k, v in SINO_NUMBERS.items()}
                        }.items():
        if text.startswith(word):
            rest = text[len(word):]
            for counter in COUNTERS:
                if rest.startswith(counter):
                    return value, counter, rest[len(counter):]
            if word in ("하나", "둘", "셋", "넷", "다섯", "여섯", "일곱", "여덟", "아홉") and (
                    not rest or rest in _PARTICLES or rest in _POLITE_TAILS):
                # "셋 공개", "둘이요": a position; "횃불 하나": a quantity (see _Clause)
                return value, "bare", "" if rest in _POLITE_TAILS else rest
            if word.endswith("번"):
                return value, "번", rest
    return None


def _spelling(line: str) -> str:
    """Common misspellings written the standard way: "낼께요" / "할께요" -> "낼게요"."""
    return re.sub(r"(?<=[가-힣])께(?=요|\b|\s|$)", lambda m: "게" if (
        ord(line[m.start() - 1]) - 0xAC00) % 28 == 8 else "께", line)


def _join_counted(line: str) -> str:
    """"세 번째" / "첫 번째" / "2 번" -> "세번째" / "첫번째" / "2번": one word each."""
    line = re.sub(r"(\d)\s+(번째|번|째|장|개)", r"\1\2", line)
    natives = "|".join(NATIVE_NUMBERS)
    line = re.sub(r"(?<![가-힣])(일|삼|사|오|육|칠|팔|구)\s+(번째|번)", r"\1\2", line)  # 삼 번
    return re.sub(rf"(?<![가-힣])({natives})\s+(번째|째|번|장|개)", r"\1\2", line)


def _phrases(line: str) -> str:
    """Multi-word terms glued into one word ("플라잉 더치맨" -> "플라잉더치맨")."""
    for surface in [w for w, _, _ in _lexicon() if " " in w] + [
            w for w in list(CORRECTIONS) + list(_AND_WORDS) if " " in w]:
        line = line.replace(surface, surface.replace(" ", "\u2060"))
    return line


def _read_word(word: str, clause: _Clause, names: list[str]) -> str:
    """Adds what ``word`` says to ``clause``. Returns what it does to the line: "" (nothing
    more), a clause break ("or", "and", "instead"), "or-number" ("2번이나"), "neg" (안 / 못,
    settled by the next word) or "correction:<marker>"."""
    word = word.replace("\u2060", " ")
    if word in CORRECTIONS:
        return "correction:" + CORRECTIONS[word]
    if word in _OR_WORDS:
        return "or"
    if word in _AND_WORDS:
        return "and"
    if word in _NEG_WORDS:
        return "neg"  # "안 해요" negates the verb before, "안 나가요" nothing we know
    if word in _INSTEAD_WORDS:
        clause.negated = True
        return "instead"
    if not has_hangul(word):
        folded = fold(word).strip(".,!?:;~")
        if folded in VERBS or folded in META:
            clause.verbs.append(word.upper())
        elif folded.isdigit():
            clause.numbers.append(folded)
        elif folded:
            clause.args.append(word)
        return ""
    for copula in _COPULAS:
        if word.endswith(copula) and _name_of(word[: -len(copula)], names):
            return ""  # "민준입니다": the player saying who they are
    name = _name_of(word, names)
    if name is not None:
        clause.args.append(name)
        if word[len(name):] in _OR_PARTICLES:  # "지호나 도윤": the parser asks which
            clause.args.append("or")
        return ""
    number = _number(word)
    if number is not None:
        value, counter, rest = number
        if counter == "bare":
            clause.bare.append(value)
        else:
            (clause.counts if counter in _COUNT_COUNTERS else clause.numbers).append(value)
        if rest in _OR_PARTICLES:
            return "or-number"
        if rest and rest not in _PARTICLES and has_hangul(rest):
            return _read_word(rest, clause, names)  # "3번공개": no space before the verb
        return ""
    stem, particle = _strip_particle(word)
    if stem == "보물":
        clause.treasure = True
    if stem in SHORT_THINGS and (stem == word or particle):
        english = SHORT_THINGS[stem]
        (clause.weak_verbs if english.isupper() else clause.args).append(english)
        return ""
    if word in FILLER or stem in FILLER or word.startswith(FILLER_STEMS) or re.fullmatch(
            r"[ㄱ-ㅣ~^!?.,]+", word):
        return ""
    for surface, kind, english in _lexicon():
        index = word.find(surface)
        if index != 0 and not (index > 0 and kind == "verb"
                               and word[:index] in ("", "다시", "먼저")):
            continue
        rest = word[index + len(surface):]
        if kind == "thing" and english in VERBS:  # a card: its verb, unless another is said
            clause.weak_verbs.append(VERBS[english][0])
        elif kind == "thing":
            clause.args.append(("to " if particle in _TO_PARTICLES and rest == particle
                                else "") + english)
        elif kind == "meta":
            clause.verbs.append(english)
        else:
            # "보트" is the rowboat as well as ROW: a verb only if no other is said
            # ("보트에서 상륙": LAND from the rowboat).
            (clause.weak_verbs if surface in _WEAK_COMMANDS else clause.verbs).append(english)
            if any(neg in rest for neg in _NEG_ENDINGS):
                clause.negated = True
            if (rest.endswith("고") and not rest.endswith("싶고")) or re.search(
                    r"(?:다음|후|뒤|나서)에?$", rest):
                return "and"  # "공개하고 ...", "공개한 다음 ...": then the next command
        return ""
    name = _name_of(word, names, prefix=True)  # after the words: a name never hides one
    if name is not None:
        clause.args.append(name)
        return ""
    clause.unknown.append(word)  # unknown: a name for the parser to match or report
    return ""


def _english_command(line: str, names: list[str]) -> str | None:
    """An English command with Korean around it ("REVEAL 3 감사합니다", "MAROON 지호요",
    "reveal 3번"): kept as written, in its order; only Korean chatter goes and Korean numbers
    and names lose their particles. None when no English command word starts the line."""
    words = line.split()
    if not words or has_hangul(words[0]) or not any(
            fold(w).strip(".,!?:;~()[]") in VERBS or fold(w).strip(".,!?:;~()[]") in META
            for w in words if not has_hangul(w)):
        return None
    said = {k for w in words if not has_hangul(w)
            for k in VERBS.get(fold(w).strip(".,!?:;~"), ())}
    kept = []
    for index, word in enumerate(words):
        if not has_hangul(word):
            kept.append(word)
            continue
        clause = _Clause()  # one Korean word: its name, number or term, in place
        brk = _read_word(word.strip(".,!?~()"), clause, names)
        if brk.startswith("correction:"):  # "REVEAL 2, 아니 REVEAL 4"
            kept.append(brk.split(":", 1)[1])
            continue
        if brk in ("and", "or") or word in ("이랑", "랑", "하고", "과", "와", "및"):
            kept.append(brk or "and")  # "VIEW 1 그리고 3", "VIEW 1 이랑 3", "2 아니면 4"
            continue
        read = [str(n) for n in clause.numbers] + clause.verbs + clause.weak_verbs + [
            a for a in clause.args if a != "or"]
        kept += read
        if said & _NAME_VERBS:
            kept += clause.unknown  # a misspelt name the parser may still match
        elif not read and kept and any(re.search(r"\d", w) for w in words[index + 1:]):
            kept.append(word)  # "VOTE 2 음 3": between two numbers, never dropped unsaid
    return " ".join(kept)


#: HELP topics in Korean ("도움말 설정", "투표 도움말") -> the English topic HELP reads.
HELP_TOPIC_WORDS: dict[str, str] = {
    "카드": "CARDS", "이벤트 카드": "CARDS", "이벤트카드": "CARDS", "이벤트": "CARDS",
    "카드들": "CARDS", "설정": "SETTINGS", "세팅": "SETTINGS", "환경설정": "SETTINGS",
    "차례": "TURN", "턴": "TURN", "행동": "TURN", "내 차례": "TURN", "대화": "TALK",
    "채팅": "TALK", "말": "TALK", "투표": "VOTE", "직위": "TURN", "역할": "TURN",
}
_HELP_WORD = r"(?:도움말|도움|설명|명령어)"
_HELP_FIRST_RE = re.compile(rf"^\s*{_HELP_WORD}\s*[:：]?\s*(.*?)[\s.!?~]*$")
_HELP_LAST_RE = re.compile(rf"^\s*(.+?)\s*(?:에 대한\s*)?{_HELP_WORD}[\s.!?~]*$")
_HELP_POLITE_RE = re.compile(
    r"\s*(?:좀|요|주세요|부탁해요|부탁합니다|알려\s*주세요|보여\s*주세요)$")


def _help_topic(line: str) -> str | None:
    """The English HELP topic of a Korean HELP line ("도움말 설정" -> "SETTINGS", "권총
    설명" -> "Pistol", "도움말" -> ""); None when the line is no HELP with a known topic."""
    line = line.strip()
    while _HELP_POLITE_RE.search(line):
        line = _HELP_POLITE_RE.sub("", line).strip()
    for pattern in (_HELP_FIRST_RE, _HELP_LAST_RE):
        found = pattern.match(line)
        if not found:
            continue
        rest = found.group(1).strip()
        while _HELP_POLITE_RE.search(rest):
            rest = _HELP_POLITE_RE.sub("", rest).strip()
        rest = rest.strip(":： ")
        if not rest and pattern is _HELP_FIRST_RE:
            return ""
        word = _strip_particle(rest)[0]
        for key in (rest, word):
            if key in HELP_TOPIC_WORDS:
                return HELP_TOPIC_WORDS[key]
            for term in section("events").values():
                if key and key.replace(" ", "") == term.word("ko").replace(" ", ""):
                    return term.word("en")
    return None


#: A Korean question about how something works ("반란이 뭐예요?", "검은 딱지는 어떻게
#:돼요?", "시간대 어떻게 바꿔요?").
_ASKING_RE = re.compile(r"뭐|뭔|무엇|무슨|어떻게|어떤|어케|알려|설명|궁금|뭘|뭐지|뭐야")
#: Settings a Korean question may ask about -> the HELP topic.
_SETTING_QUESTION_WORDS = (
    (("시간대", "표준시", "시차", "타임존", "지역 시간"), "ZONE"),
    (("휴가", "부재", "여행", "자리 비", "못 들어"), "AWAY"),
    (("조용", "밤에", "새벽", "방해 금지", "알림"), "QUIET"),
    (("언어", "한국어", "영어"), "SETTINGS"),
)


def _question_topic(line: str) -> str | None:
    """The HELP topic of a Korean question about a card, an action or a setting; None
    when the line is no such question (or holds a number: "3번 뭐예요?" asks a card)."""
    if not _ASKING_RE.search(line) or re.search(r"\d", line):
        return None
    squeezed = line.replace(" ", "")
    for term in sorted(section("events").values(), key=lambda t: -len(t.word("ko"))):
        ko = term.word("ko").replace(" ", "")
        if len(ko) >= 2 and ko in squeezed:
            return term.word("en").upper()
    for words, topic in _SETTING_QUESTION_WORDS:
        if any(w.replace(" ", "") in squeezed for w in words):
            return topic
    for word, topic in sorted(HELP_TOPIC_WORDS.items(), key=lambda w: -len(w[0])):
        if len(word) >= 2 and word in squeezed:
            return topic
    for word, verb in sorted(COMMAND_WORDS.items(), key=lambda w: -len(w[0])):
        if len(word) >= 2 and word.replace(" ", "") in squeezed and verb.isupper():
            return verb
    return None


#: "제가 가질게요" (I'll keep it): at the Treasure Map, the map to oneself.
_KEEP_RE = re.compile(r"^\s*(?:그냥\s*)?(?:제가|내가|저|나)?\s*"
                      r"(?:가질게|가질래|갖을게|가져갈게|가질께|킵할게|킵|가지겠|갖겠)[가-힣]*"
                      r"[\s.!~]*$")
#: "그냥 갈게요" (I'll just go): the one way to go that is asked (ACCEPT at the Fountain).
_JUST_GO_RE = re.compile(r"^\s*(?:그냥|네|넵|예|음|그럼)?\s*(?:갈게요?|가요|갑니다|갈래요?|"
                         r"가겠습니다|갈께요?|받아들일게요?|수락(?:할게요?|합니다)?)[\s.!~]*$")
#: Cities a Korean player names for a time zone, in the words ``pbm.player_settings`` reads.
_CITIES = {"서울": "Seoul", "부산": "Seoul", "한국": "Seoul", "도쿄": "Tokyo", "일본": "Tokyo",
           "뉴욕": "New York", "런던": "London", "파리": "Paris", "베를린": "Berlin",
           "시드니": "Sydney", "로스앤젤레스": "Los Angeles", "엘에이": "Los Angeles",
           "밴쿠버": "Vancouver", "토론토": "Toronto", "싱가포르": "Singapore",
           "홍콩": "Hong Kong", "상하이": "Shanghai", "베이징": "Shanghai"}
_ZONE_RE = re.compile(rf"^\s*(?:시간대\s*[:：]?\s*)?({'|'.join(_CITIES)})\s*(?:시간|시간대|기준|"
                      r"표준시)?\s*(?:으로|로)?\s*(?:해\s*주세요|바꿔\s*주세요|바꿔줘|변경(?:해\s*주세요)?|"
                      r"설정(?:해\s*주세요)?|해줘|할게요|요)?[\s.!~]*$")
_AWAY_RE = re.compile(r"^\s*(?:앞으로\s*)?(\d{1,2})\s*일\s*(?:동안|간)?\s*"
                      r"(?:부재|자리\s*비|휴가|여행|못\s*(?:해요|합니다|들어와요|들어옵니다|와요))")


def _setting_or_meta(line: str) -> str | None:
    """SAY, LANG, courtesy: whole-line forms read before the words."""
    if _KEEP_RE.match(line):
        return "keep it"
    if _JUST_GO_RE.match(line):
        return "ACCEPT"
    zone = _ZONE_RE.match(line)
    if zone and ("시간" in line or "로" in line):
        return f"ZONE {_CITIES[zone.group(1)]}"
    away = _AWAY_RE.match(line)
    if away:
        return f"AWAY {away.group(1)} days"
    say = _SAY_RE.match(line)
    if say:
        return "SAY " + (say.group(1) or say.group(2) or "").strip()
    lang = _LANG_RE.match(line)
    if lang:
        which = (lang.group(1) or lang.group(2)).lower()
        return "LANG " + ("KO" if which in ("한국어", "한글", "korean", "ko") else "EN")
    zone = _ZONE_RE.match(line)  # "시간대 서울": the glossary's word for ZONE (issue 37)
    if zone:
        return f"ZONE {zone.group(1)}"
    if _STOP_RE.match(line):
        return "STOP"
    if _START_RE.match(line):
        return "START"
    topic = _help_topic(line)
    if topic is None:
        topic = _question_topic(line)
    if topic is not None:
        return f"HELP {topic}".strip()
    if re.match(r"^\s*(?:도움말|도움)\s*(?:이벤트\s*)?카드", line):
        return "HELP CARDS"
    if _COURTESY.match(line.strip()):
        return line
    return None


def to_english(line: str, names: Iterable[str] = (), *, invited: bool = False) -> str:
    """One reply line -> the English command language (unchanged when it has no Hangul)."""
    if not has_hangul(line) or _ENGLISH_SAY_RE.match(line):
        return line  # English, or table talk: the player's words as they wrote them
    names = [n for n in names if n]
    whole = _setting_or_meta(line)
    if whole is not None:
        return whole
    english = _english_command(line, names)
    if english is not None:
        return english
    if invited:
        if INVITE_YES.match(line.strip()):
            return "yes"
        if INVITE_NO.match(line.strip()):
            return "no"
    text = _phrases(_join_counted(_spelling(line)))
    clauses: list[tuple[str, _Clause]] = [("", _Clause())]
    negation = False
    for raw in re.split(r"[\s,;/]+|(?<=[가-힣])(?=[.!?~])", text):
        word = raw.strip(".!?~()[]\"'")
        if "?" in raw:
            clauses[-1][1].question = True
        if not word:
            clause = clauses[-1][1]
            if re.search(r"[.!?]", raw) and clause.verbs:
                clauses.append(("sentence", _Clause()))
            elif re.search(r"[.!?]", raw) and not (clause.numbers or clause.args
                                                   or clause.bare):
                clauses[-1] = ("", _Clause())  # "제 차례죠?": a sentence with no command
            continue
        said = len(clauses[-1][1].verbs) + len(clauses[-1][1].weak_verbs)
        brk = _read_word(word, clauses[-1][1], names)
        if negation:
            current = clauses[-1][1]
            if word.startswith(_DO_FORMS) or len(current.verbs) + len(current.weak_verbs) > said:
                current.negated = True  # "공격 안 해요", "안 공격해요"
            negation = False
        if brk == "neg":
            negation = True
        if brk.startswith("correction:"):
            clauses.append(("", _Clause(correction=brk.split(":", 1)[1])))
        elif brk == "or-number":
            clauses[-1][1].numbers.append("or")
        elif brk in ("or", "and", "instead"):
            clauses.append((brk, _Clause()))
    parts: list[str] = []
    for joint, clause in clauses:
        english = clause.english()
        if not english:
            continue
        if parts and joint == "or":
            parts.append("or")
        elif parts and joint == "and":
            parts.append("then")
        elif parts and joint == "instead":
            parts[-1] += ","
        elif parts and joint == "sentence":
            parts[-1] += "."
        parts.append(english)
    return " ".join(parts) if any(c.verbs or c.weak_verbs or c.numbers or c.args or c.counts
                                  or (c.bare and not c.treasure) or c.correction
                                  for _, c in clauses) else line


def to_english_lines(lines: Iterable[str], names: Mapping[int, str] | Iterable[str] = (),
                     *, invited: bool = False) -> list[str]:
    """Every line through :func:`to_english` (the parser's hook; English lines unchanged)."""
    values = list(names.values()) if isinstance(names, Mapping) else list(names)
    return [to_english(line, values, invited=invited) for line in lines]
