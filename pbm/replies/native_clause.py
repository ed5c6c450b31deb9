"""One command of a reply line in another language, gathered word by word, written back in
English order (verb first, then numbers and arguments) for the parser."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Commands whose arguments may be a word we do not know (a player's name, a HELP topic).
NAME_VERBS = frozenset({"MAROON", "FORCE", "SHOOT", "GIVE", "MARQUE", "SAY", "move"})
_SYMBOL_ARGS = frozenset({"cannon", "torch", "water", "skull", "helm"})
_COUNT_WORDS = {2: "two", 3: "three", 4: "four"}
_META_KEYWORDS = frozenset({"HELP", "STATUS", "LOG", "JOIN", "DECLINE", "STOP", "START"})


@dataclass
class Clause:
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

    def says_something(self) -> bool:
        """True if the clause holds a command, a number, an argument or a correction."""
        return bool(self.verbs or self.weak_verbs or self.numbers or self.args or self.counts
                    or (self.bare and not self.treasure) or self.correction)

    def english(self) -> str:
        """The clause in the English command language ("" when it says nothing)."""
        verbs = [v for v in dict.fromkeys(self.verbs) if v != "move"] or list(
            dict.fromkeys(self.weak_verbs)) or (["move"] if "move" in self.verbs else [])
        args = list(dict.fromkeys(self.args))  # "지호님 ... 지호": one name
        if {"Tortuga", "to Tortuga"} & set(args):  # LAND, or where a MAROON sends
            args = [a for a in args if a not in ("Tortuga", "to Tortuga")]
            if verbs in ([], ["move"]):
                verbs = ["LAND"]
        if not verbs or set(verbs) & NAME_VERBS:
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
