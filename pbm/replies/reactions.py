"""Phone reactions: a tapback on one of our messages ("Liked “Tortuga ...”", "Reacted 😮 to
“...”") reaches us as a text of its own. It is not a reply: it is recognised and ignored,
and never answered (an answer would cost an SMS for nothing).

A reaction is a whole message made of a reaction phrase (in the languages phones send
them) and the quoted text of the message reacted to, in any kind of quotes.
"""

from __future__ import annotations

import re

#: The text of the message reacted to, in the quotes phones use.
_QUOTED = (r"(?:“[^”]*”?|\"[^\"]*\"?|„[^“”]*[“”]?|«[^»]*»?|「[^」]*」?|『[^』]*』?"
           r"|‘[^’]*’?|'[^']*'?)")

#: The reaction phrase before the quoted text (iMessage, Google Messages, Samsung ...).
_BEFORE = (
    r"(?:liked|loved|disliked|laughed\s+at|emphasi[sz]ed|questioned|"
    r"removed\s+(?:a\s+)?(?:like|heart|dislike|laugh|exclamation|question\s+mark|"
    r"emphasis)\s+from|"
    r"reacted\s+\S{1,12}\s+to|removed\s+\S{1,12}\s+from|"
    # German
    r"gef[äa]llt(?:\s+mir)?(?:\s+nicht)?|"
    # Spanish
    r"le\s+gust[óo]|le\s+encant[óo]|no\s+le\s+gust[óo]|se\s+ri[óo]\s+de|enfatiz[óo]|"
    r"cuestion[óo]|pregunt[óo]\s+por|reaccion[óo]\s+con\s+\S{1,12}\s+a|"
    # French
    r"a\s+aim[ée]|a\s+ador[ée]|n['’]a\s+pas\s+aim[ée]|a\s+ri\s+de|"
    r"a\s+mis\s+en\s+(?:évidence|evidence|doute|avant)|a\s+r[ée]agi\s+\S{1,12}\s+à|"
    # Italian, Portuguese, Dutch
    r"ha\s+messo\s+(?:\"mi\s+piace\"|mi\s+piace|un\s+cuore)\s+a|ha\s+amato|"
    r"ha\s+riso\s+(?:di|per)|ha\s+enfatizzato|ha\s+messo\s+in\s+dubbio|"
    r"curtiu|amou|riu\s+de|enfatizou|questionou|"
    r"vond\s+[\"“]?leuk[\"”]?|vond\s+[\"“]?geweldig[\"”]?|"
    r")"
)

#: The reaction phrase after the quoted text (German, Korean, Japanese word order).
_AFTER = (
    r"(?:geliebt|gemocht|hervorgehoben|in\s+frage\s+gestellt|gelacht|"
    r"nicht\s+gemocht|mit\s+\S{1,12}\s+reagiert|"
    r"(?:에|을|를|을\(를\))?\s*(?:좋아요|좋아함|하트|강조|웃음|물음표|싫어요|반응)\S*(?:\s+\S+)?|"
    r"(?:に|を)?\s*(?:「?いいね」?|「?ハート」?|「?笑」?|「?強調」?|「?\?」?|「?よくないね」?)"
    r"(?:しました|を付けました|を送信しました|\S*)|"
    r"(?:に)?\s*\S{1,12}\s*(?:でリアクションしました))"
)

_REACTION_RE = re.compile(
    rf"^\s*(?:{_BEFORE}\s*:?\s*{_QUOTED}|{_QUOTED}\s*{_AFTER}"
    rf"|hat\s+{_QUOTED}\s*{_AFTER}|[^\w\s]{{1,8}}\s+(?:to|on)\s+{_QUOTED})\s*[.!]?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def is_reaction(text: str) -> bool:
    """True when the whole text is a phone reaction to a message (quoted in it)."""
    body = text.strip()
    if not body or len(body) > 2000 or not re.search(r"[“”\"„«»「」『』‘’']", body):
        return False
    return bool(_REACTION_RE.match(body))
