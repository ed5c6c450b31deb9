"""Fill a translated sentence with its named values: ``str.format`` plus particles.

A catalogue's sentence names its values (``{who} moved to {to}.``). A language whose words
take a particle that depends on the word before it writes the choice in the placeholder's
format spec, ``{to:으로/로/로}``: the first form after a syllable closed by a final
consonant, the second after an open syllable, the optional third after a syllable closed by
ㄹ. The choice is read from the value's last Hangul syllable (a value without one takes the
second form). Any other language writes plain ``{name}`` placeholders.
"""

from __future__ import annotations

import string
from typing import Any

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_FINALS = 28
_RIEUL = 8  # the final ㄹ


def particle(word: str, closed: str, open_: str, rieul: str | None = None) -> str:
    """``word`` followed by the form of a particle its last syllable takes."""
    last = word.rstrip()[-1:]
    if not last or not _HANGUL_FIRST <= ord(last) <= _HANGUL_LAST:
        return word + open_
    final = (ord(last) - _HANGUL_FIRST) % _FINALS
    if final == _RIEUL and rieul is not None:
        return word + rieul
    return word + (closed if final else open_)


class _Formatter(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        if "/" in format_spec:
            forms = format_spec.split("/")
            return particle(str(value), forms[0], forms[1], forms[2] if len(forms) > 2 else None)
        return str(super().format_field(value, format_spec))


_FORMATTER = _Formatter()


def fill(sentence: str, **values: Any) -> str:
    """``sentence`` with its ``{name}`` / ``{name:A/B}`` placeholders filled."""
    return _FORMATTER.format(sentence, **values)
