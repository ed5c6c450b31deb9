"""A third language is data: a pseudo-locale built at test time renders every message.

The pseudo-locale ``en-XA`` (as Chrome and Android call theirs) is English accented and
lengthened ("Reply" -> "Ŕééþļý"), generated from ``pbm/locale/messages.pot`` into a folder
of its own: its catalogue, its ``language.toml``, its glossary words and its help files,
nothing else. ``LOCALE_PATH`` points at it. Every message kind (the golden cases and
messages of random games) is rendered by email (text and HTML) and SMS, in English and in
the pseudo-locale, and every reason a reply's answer can carry; a plain-ASCII word of three
letters or more that the English rendering has and the pseudo rendering still has escaped
translation. Not words: players' and games' names, what players wrote (their lines, table
talk, the admin's pause reason, the invitation's note), commands and codes (upper case),
numbers, addresses, zone abbreviations, and the words CLDR has no pseudo-locale for
(:data:`CLDR_WORDS`: Babel formats dates and lengths of time in English's CLDR data).
"""

from __future__ import annotations

import dataclasses
import html
import re
import string
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from engine import reasons as engine_reasons
from pbm.i18n import glossary, languages
from pbm.i18n.translate import reading
from pbm.messages import Channel, MessageContext, MessageKind
from pbm.render import reasons as reason_table
from pbm.render import render
from pbm.render.names import HELP_DIR
from pbm.replies.quote_patterns import REPLY_MARKER
from tests.fixtures.messages import context_for, fields_of, simulated_states
from tests.pbm.test_render_golden import cases

PSEUDO = "en-XA"
_ACCENTED = dict(zip(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ", strict=True))
_VOWELS = set("aeiouAEIOU")
#: What the pseudo-locale keeps as it is: placeholders, printf fields, markup, entities,
#: upper-case words (commands and codes the player types), addresses.
_KEEP = re.compile(r"\{[^{}]*\}|%\([a-z_]+\)[sd]|%[sd]|</?(?:a|b|i|br|code|p|span|strong)\b[^<>]*>"
                   r"|&[a-z]+;|&#\d+;"
                   r"|\b[A-Z][A-Z0-9_]+\b|\S+@\S+|https?://\S+")
#: Words Babel writes from English's CLDR data (no CLDR pseudo-locale): lengths of time.
CLDR_WORDS = frozenset({"day", "days", "hour", "hours", "minute", "minutes"})


def pseudo(text: str) -> str:
    """``text`` accented and lengthened (each vowel twice), what ``_KEEP`` matches kept."""
    out, last = [], 0
    for kept in _KEEP.finditer(text):
        out.append(_accent(text[last:kept.start()]))
        out.append(kept.group())
        last = kept.end()
    out.append(_accent(text[last:]))
    return "".join(out)


def _accent(text: str) -> str:
    return "".join(_ACCENTED.get(c, c) * (2 if c in _VOWELS else 1) for c in text)


def build_pseudo_locale(root: Path) -> Path:
    """The folder of the pseudo-locale under ``root``: catalogue, traits, glossary, help."""
    folder = root / PSEUDO
    (folder / "LC_MESSAGES").mkdir(parents=True)
    with open(languages.LOCALE_DIR / "messages.pot", "rb") as f:
        template = read_po(f)
    catalogue = Catalog(locale="en", domain=languages.DOMAIN)
    for message in template:
        if not message.id:
            continue
        if message.context == "date pattern":  # CLDR fields, not words
            string: Any = "yyyy-MM-dd HH:mm"
        elif isinstance(message.id, (list, tuple)):
            string = tuple(pseudo(form) for form in message.id)
        else:
            string = pseudo(message.id)
        catalogue.add(message.id, string, context=message.context)
    with open(folder / "LC_MESSAGES" / "messages.mo", "wb") as f:
        write_mo(f, catalogue)
    (folder / "language.toml").write_text(
        'names = ["pseudo"]\nsms_alphabet = "ucs2"\nsms_parts = 4\n', encoding="utf-8")
    sections: dict[str, list[str]] = {}
    for (section, key), term in glossary.terms().items():
        sections.setdefault(section, []).append(f'{key} = "{pseudo(term.word("en"))}"')
    (folder / "glossary.toml").write_text(
        "".join(f"[{name}]\n" + "\n".join(rows) + "\n\n" for name, rows in sections.items()),
        encoding="utf-8")
    for path in HELP_DIR.glob("**/*.txt"):
        relative = path.relative_to(HELP_DIR)
        if relative.parts[0] in languages.languages():  # another language's own help
            continue
        target = folder / "help" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(pseudo(path.read_text(encoding="utf-8")), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def pseudo_locale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("locale")
    folder = build_pseudo_locale(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOCALE_PATH", str(root))
        languages.refresh()
        assert PSEUDO in languages.languages()
        yield folder
    languages.refresh()


# ---------------------------------------------------------------- what escaped


def _words(text: str) -> set[str]:
    """The plain-ASCII words of 3 letters or more, without addresses, zone identifiers
    (``Europe/Berlin``: what a player writes after ZONE) and the reply marker (read back
    in English by ``pbm.replies``)."""
    text = text.replace(REPLY_MARKER.strip("- "), " ")
    text = re.sub(r"https?://\S+|\S+@\S+|\b[A-Z][a-z]+/[A-Za-z_]+\b", " ", text)
    return set(re.findall(r"(?<![^\W\d_])[A-Za-z]{3,}(?![^\W\d_])", text))


def _html_text(page: str) -> str:
    body = re.sub(r"<style.*?</style>|<head.*?</head>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]*>", " ", body))


def _their_words(ctx: MessageContext) -> set[str]:
    """Words the message quotes rather than says: names, what players and admins wrote."""
    said: list[str] = [ctx.game_name, ctx.player_name]
    extra = fields_of(ctx)

    def add(value: Any) -> None:
        if isinstance(value, str):
            said.append(value)
        elif isinstance(value, Mapping):
            for item in value.values():
                add(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                add(item)

    for key in ("players", "inviter", "message", "speaker", "text", "old_name", "new_name",
                "who", "table_talk"):
        add(extra.get(key))
    if ctx.kind is MessageKind.PAUSED:
        add(extra.get("reason"))
    reply = extra.get("reply") or {}
    for group in ("understood", "meta", "not_understood"):
        for line in reply.get(group) or []:
            add([line.get("line"), line.get("arg")])
    add(reply.get("ignored"))
    view = ctx.seat_view or {}
    add([p.get("name") for p in (view.get("public") or {}).get("players") or []])
    return {w for text in said if text for w in _words(str(text))}


def escaped(english: str, pseudo_text: str, own: set[str]) -> set[str]:
    """The English words of ``english`` that ``pseudo_text`` still says as they are."""
    return {w for w in _words(pseudo_text) & _words(english)
            if w not in own and not w.isupper() and w.lower() not in CLDR_WORDS}


def _renderings(ctx: MessageContext) -> dict[str, str]:
    email = render(ctx, Channel.EMAIL)
    return {"text": email.subject + "\n" + email.text,
            "html": _html_text(email.html or ""),
            "sms": render(ctx, Channel.SMS).sms or ""}


def every_context() -> Iterator[tuple[str, MessageContext]]:
    """The golden cases and every message kind at every third state of random games."""
    yield from cases().items()
    for players, seed in ((5, 1), (3, 2)):
        for step in simulated_states(players, seed):
            if step.index % 3:
                continue
            for kind in MessageKind:
                seat = step.index % players
                yield (f"{kind.value}/{players}p{seed}s{step.index}",
                       context_for(kind, step.state, seat, step.events))


def test_the_pseudo_locale_is_a_folder_of_data(pseudo_locale: Path) -> None:
    assert languages.traits(PSEUDO).sms_alphabet == "ucs2"
    with reading(PSEUDO):
        assert glossary.term("ships", "FD", PSEUDO) == pseudo("Flying Dutchman")
    ctx = next(ctx for name, ctx in cases().items() if name == "prompt_turn")
    text = render(dataclasses.replace(ctx, language=PSEUDO), Channel.EMAIL).text
    assert pseudo("Reply by") in text


def test_every_message_kind_renders_with_no_english_left(pseudo_locale: Path) -> None:
    found: dict[str, set[str]] = {}
    kinds: set[MessageKind] = set()
    for name, ctx in every_context():
        kinds.add(ctx.kind)
        english = _renderings(dataclasses.replace(ctx, language="en"))
        translated = _renderings(dataclasses.replace(ctx, language=PSEUDO))
        own = _their_words(ctx)
        for channel, text in translated.items():
            for word in escaped(english[channel], text, own):
                found.setdefault(word, set()).add(f"{name}:{channel}:{word}")
    assert kinds == set(MessageKind)
    report = {w: sorted(where)[:3] for w, where in sorted(found.items())}
    assert not found, f"{len(found)} English words escaped translation: {report}"


def reason_texts() -> list[tuple[str, str]]:
    """Every reason a reply's answer can carry, once per code: (English, in the current
    language). The codes are ``engine.reasons.TEMPLATES`` (every declaring module is
    imported by ``pbm.render.reasons``); each placeholder gets a sample by its name."""
    out = []
    for code, template in engine_reasons.TEMPLATES.items():
        params: dict[str, Any] = {}
        for field in {f for _text, f, _spec, _conv in string.Formatter().parse(template) if f}:
            params.update(_REASON_SAMPLES.get(field, {field: "7"}))
        reason = engine_reasons.Reason(code, params)
        with reading("en"):
            english = reason_table.say(reason)
        out.append((english, reason_table.say(reason)))
    return out


#: Sample parameters by placeholder name (a moment or a length comes with its data).
_REASON_SAMPLES: dict[str, dict[str, Any]] = {
    "cmd": {"cmd": "REVEAL"}, "verb": {"verb": "VOTE"}, "setting": {"setting": "ZONE"},
    "name": {"name": "Ann"}, "names": {"names": "Ann"}, "game": {"game": "Nassau"},
    "games": {"games": "Nassau"}, "kind": {"kind": "number"}, "kinds": {"kinds": "VOTE"},
    "what": {"what": "position"}, "zone": {"zone": "Europe/Berlin"}, "where": {"where": "FD"},
    "until": {"until": "Mon 03 Mar 14:00 CET",
              "until_at": "2025-03-03T13:00:00+00:00 Europe/Berlin"},
    "end": {"end": "Mon 03 Mar 14:00 CET",
            "end_at": "2025-03-03T13:00:00+00:00 Europe/Berlin"},
    "now": {"now": "14:00", "now_at": "2025-03-03T13:00:00+00:00 Europe/Berlin"},
    "span": {"span": "3 days", "span_seconds": 259200},
}


def test_every_reason_renders_with_no_english_left(pseudo_locale: Path) -> None:
    found: dict[str, list[str]] = {}
    with reading(PSEUDO):
        said = reason_texts()
    assert len(said) >= 100
    for english, translated in said:
        for word in escaped(english, translated, _words("Ann Nassau")):
            found.setdefault(word, []).append(translated)
    assert not found, f"{len(found)} English words escaped translation: {found}"
