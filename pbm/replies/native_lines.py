"""Whole-line forms of a reply in another language: settings (ZONE, AWAY, LANG, STOP),
table talk (SAY), HELP and questions about the rules, courtesy. Read before the words,
from ``replies.toml`` ``lines`` / ``help`` / ``last_lines``."""

from __future__ import annotations

import re

from pbm.i18n import languages
from pbm.i18n.glossary import section
from pbm.replies.native_words import strip_particle
from pbm.replies.reply_words import LineForm, ReplyWords


def _form_reply(form: LineForm, words: ReplyWords, line: str) -> str | None:
    found = form.pattern.match(line)
    if not found:
        return None
    if form.as_written:
        return line
    said = next((g for g in found.groups() if g), "").strip()
    if form.map == "language":
        said = (languages.language_named(said) or said).upper()
    elif form.map:
        said = words.tables[form.map].get(said, said)
    return form.reply.replace("{}", said)


def _unpolite(words: ReplyWords, text: str) -> str:
    polite = words.help.polite
    while polite is not None and polite.search(text):
        text = polite.sub("", text).strip()
    return text


def _event_word(words: ReplyWords, key: str) -> str:
    return section("events")[key].words.get(words.lang, "")


def help_topic(words: ReplyWords, line: str) -> str | None:
    """The English HELP topic of a HELP line ("도움말 설정" -> "SETTINGS", "권총 설명" ->
    "Pistol", "도움말" -> ""); None when the line is no HELP with a known topic."""
    line = _unpolite(words, line.strip())
    for pattern in (words.help.first, words.help.last):
        found = pattern.match(line) if pattern is not None else None
        if not found:
            continue
        rest = _unpolite(words, found.group(1).strip()).strip(":： ")
        if not rest and pattern is words.help.first:
            return ""
        word = strip_particle(words, rest)[0]
        for key in (rest, word):
            if key in words.help_topics:
                return words.help_topics[key]
            for name, term in section("events").items():
                native = _event_word(words, name)
                if key and native and key.replace(" ", "") == native.replace(" ", ""):
                    return term.word("en")
    return None


def question_topic(words: ReplyWords, line: str) -> str | None:
    """The HELP topic of a question about a card, an action or a setting ("반란이
    뭐예요?"); None when the line is no such question (or holds a number: "3번 뭐예요?"
    asks about a card on the table)."""
    asking = words.help.asking
    if asking is None or not asking.search(line) or re.search(r"\d", line):
        return None
    squeezed = line.replace(" ", "")
    events = sorted(section("events"), key=lambda k: -len(_event_word(words, k)))
    for key in events:
        native = _event_word(words, key).replace(" ", "")
        if len(native) >= 2 and native in squeezed:
            return section("events")[key].word("en").upper()
    for setting_words, topic in words.help.settings:
        if any(w.replace(" ", "") in squeezed for w in setting_words):
            return topic
    for word, topic in sorted(words.help_topics.items(), key=lambda w: -len(w[0])):
        if len(word) >= 2 and word in squeezed:
            return topic
    for word, verb in sorted(words.commands.items(), key=lambda w: -len(w[0])):
        if len(word) >= 2 and word.replace(" ", "") in squeezed and verb.isupper():
            return verb
    return None


def whole_line(words: ReplyWords, line: str) -> str | None:
    """The English of a whole-line form (a setting, SAY, HELP, courtesy), or None."""
    for form in words.lines:
        reply = _form_reply(form, words, line)
        if reply is not None:
            return reply
    topic = help_topic(words, line)
    if topic is None:
        topic = question_topic(words, line)
    if topic is not None:
        return f"HELP {topic}".strip()
    for form in words.last_lines:
        reply = _form_reply(form, words, line)
        if reply is not None:
            return reply
    return None
