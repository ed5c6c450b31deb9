"""A third language's replies are read from data alone: a pseudo-language (accented,
lengthened English, as Chrome and Android pseudo-locales write) is a folder in
``LOCALE_PATH`` with a catalogue, ``language.toml`` and ``replies.toml``, and no Python.
Its replies go through the reader the pipeline uses (``read_sms_reply``)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo

from pbm.admin_input import check_language
from pbm.games import PlayerSpec
from pbm.i18n import languages
from pbm.replies import read_sms_reply, reply_words
from tests.fixtures.seatviews import scenario

PSEUDO = "qps"
#: The pseudo-language's reply words: its letters, two command words, a number marker
#: glued after the number ("3ëmë": the third), chatter, a self-correction, an "or" and a
#: whole-line form (LANG, by the language's name).
REPLIES = """
script = '[àâäéèêëïîôöùûüçñ]'
letters = 'a-zàâäéèêëïîôöùûüçñ'
counters = ["ëmë"]
particles = ["-là"]
filler = ["ët", "plëäsé"]
or_words = ["öù"]
[corrections]
"ñöñ" = "no wait"
[commands]
"vïéééw" = "VIEW"
"rëëvéààl" = "REVEAL"
[[lines]]
pattern = '^\\s*lâñgüâgé\\s+({languages})\\s*$'
reply = "LANG {}"
map = "language"
"""


def _pseudo_folder(base: Path, *, replies: bool) -> None:
    folder = base / PSEUDO
    (folder / "LC_MESSAGES").mkdir(parents=True)
    with open(folder / "LC_MESSAGES" / "messages.mo", "wb") as mo:
        write_mo(mo, Catalog(locale="en"))  # an empty catalogue: the language exists
    (folder / "language.toml").write_text('names = ["pséüdö"]\n', encoding="utf-8")
    if replies:
        (folder / "replies.toml").write_text(REPLIES, encoding="utf-8")


@pytest.fixture
def pseudo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    _pseudo_folder(tmp_path, replies=True)
    monkeypatch.setenv("LOCALE_PATH", str(tmp_path))
    languages.refresh()
    yield
    monkeypatch.delenv("LOCALE_PATH")
    languages.refresh()


def _read(text: str) -> tuple[list[str], int]:
    result = read_sms_reply(text, scenario("turn"))
    return [u.text for u in result.understood], len(result.not_understood)


@pytest.mark.parametrize(("text", "commands"), [
    ("vïéééw 1 3", ["VIEW 1 3"]),
    ("1ëmë ët 3ëmë vïéééw plëäsé", ["VIEW 1 3"]),  # the verb last, markers glued on
    ("3ëmë rëëvéààl", ["REVEAL 3"]),
    ("rëëvéààl 2-là", ["REVEAL 2"]),  # a particle glued to the number
    ("rëëvéààl 2, ñöñ, rëëvéààl 4", ["REVEAL 4"]),  # a self-correction
    ("REVEAL 3", ["REVEAL 3"]),  # English stays English
])
def test_a_pseudo_language_reply_is_read_into_its_commands(
        pseudo: None, text: str, commands: list[str]) -> None:
    assert PSEUDO in languages.languages()
    assert _read(text) == (commands, 0)


def test_a_whole_line_form_names_the_language_by_its_name(pseudo: None) -> None:
    result = read_sms_reply("lâñgüâgé pséüdö", scenario("turn"))
    assert [(m.name, m.arg) for m in result.meta] == [("SET", "LANG QPS")]
    assert languages.language_named("QPS") == PSEUDO  # what the LANG setting reads


def test_two_commands_joined_by_its_or_are_asked_back(pseudo: None) -> None:
    commands, not_understood = _read("rëëvéààl 2 öù rëëvéààl 4")
    assert commands == [] and not_understood == 1


def test_without_its_reply_words_the_language_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same folder without replies.toml: the catalogue alone reads no reply.
    _pseudo_folder(tmp_path, replies=False)
    monkeypatch.setenv("LOCALE_PATH", str(tmp_path))
    languages.refresh()
    try:
        assert PSEUDO in languages.languages()
        assert _read("3ëmë rëëvéààl") == ([], 1)
    finally:
        monkeypatch.delenv("LOCALE_PATH")
        languages.refresh()


def test_a_misspelt_key_in_the_reply_words_is_refused() -> None:
    data = tomllib.loads(REPLIES.replace("or_words", "or_word"))
    with pytest.raises(ValueError, match=re.escape("unknown keys ['or_word']")):
        reply_words.parse(PSEUDO, data)


def test_a_player_may_be_given_the_language_by_its_code_or_name(pseudo: None) -> None:
    assert languages.language_named("pséüdö") == PSEUDO
    assert check_language("Pséüdö", "Ann") == PSEUDO
    PlayerSpec(name="Ann", email="ann@example.org", language=PSEUDO).validate()
