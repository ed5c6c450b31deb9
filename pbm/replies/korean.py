"""Korean replies, read like any language's: by :mod:`pbm.replies.native` with Korean's
reply words (``pbm/locale/ko/replies.toml``). This module keeps the names the Korean
tests and the demo's simulated players use."""

from __future__ import annotations

from pbm.replies.native import to_english, to_english_lines
from pbm.replies.reply_words import reply_words

__all__ = ["has_hangul", "to_english", "to_english_lines"]


def has_hangul(text: str) -> bool:
    """True if ``text`` has a Hangul syllable or letter (Korean's ``script``)."""
    words = reply_words("ko")
    return bool(words and words.script.search(text))
