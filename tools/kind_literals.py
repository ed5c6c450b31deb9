"""Count kind words compared as bare strings in pbm/ and workers/ (migrations left out):
``m.channel == "sms"`` where ``Channel.SMS`` is meant, ``kind == "VOTE"`` for
``DecisionKind.VOTE``, ``"table.talk"`` for ``ServiceEventKind.TABLE_TALK``.

A word counts when it is compared (``==``, ``!=``, ``in``, ``not in``, also as an element
of the tuple or set compared against) or is a metric label of ``SWEEPS``. Values of the
enums named in ``KINDS``; the service event kinds are listed here as well, for the count
before their enum existed. ``status_literals.py`` counts status words the same way.

Run: ``.venv/bin/python tools/kind_literals.py [root]`` (one line per word, then the count).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tools import service_sources

KINDS = {
    "MessageKind": ("invitation", "game_started", "prompt", "notice", "vote_result",
                    "reminder", "final_warning", "timed_out", "paused", "resumed",
                    "seat_replaced", "table_talk", "reply", "status", "game_over"),
    "Channel": ("email", "sms"),
    "DecisionKind": ("PLACE", "ACTION", "VOTE", "CHOOSE", "LETTER_OF_MARQUE", "SHOOT", "GIVE",
                     "TAKE", "FOUNTAIN"),
    "ServiceEventKind": ("game.started", "game.paused", "game.resumed", "game.aborted",
                         "seat.replaced", "seat.away", "seat.back", "table.talk"),
}
WORDS = {word: enum for enum, words in KINDS.items() for word in words}
#: words that are also command verbs or English: counted only where a kind or a channel
#: is compared (``kind == "VOTE"``, not ``verb == "VOTE"`` or ``tok in ("reply", ...)``)
AMBIGUOUS = frozenset(KINDS["DecisionKind"] + KINDS["MessageKind"] + KINDS["Channel"])


def _words(node: ast.AST) -> list[ast.Constant]:
    elements = node.elts if isinstance(node, ast.Tuple | ast.Set | ast.List) else [node]
    return [e for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _about_a_kind(compare: ast.Compare) -> bool:
    """``kind == ...``, ``decision.get("kind") == ...``, ``row.channel == ...``."""
    text = ast.unparse(compare.left).lower()
    return "kind" in text or "channel" in text


def kind_literals(root: Path) -> list[str]:
    """``path:line: 'word' (Enum)`` for each kind word compared as a bare string."""
    found = []
    for path in service_sources(root):
        for node in ast.walk(ast.parse(path.read_text())):
            words: list[ast.Constant] = []
            if isinstance(node, ast.Compare):
                words = [w for side in [node.left, *node.comparators] for w in _words(side)
                         if w.value not in AMBIGUOUS or _about_a_kind(node)]
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "SWEEPS.labels":
                words = [w for arg in node.args for w in ast.walk(arg)
                         if isinstance(w, ast.Constant) and w.value in ("ok", "error")]
                found += [f"{path.relative_to(root)}:{w.lineno}: {w.value!r} (SWEEPS)"
                          for w in words]
                continue
            found += [f"{path.relative_to(root)}:{w.lineno}: {w.value!r} ({WORDS[w.value]})"
                      for w in words if w.value in WORDS]
    return found


if __name__ == "__main__":
    lines = kind_literals(Path(sys.argv[1] if len(sys.argv) > 1 else "."))
    print("\n".join(lines))
    print(f"{len(lines)} kind words compared as bare strings")
