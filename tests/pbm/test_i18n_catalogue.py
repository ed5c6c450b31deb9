"""The gettext catalogues (issue 24): every message id extracted from pbm/ and templates/
has a Korean translation with the same placeholders, and the committed .mo files are the
compiled .po files (run ./dev i18n after changing a message)."""

from __future__ import annotations

import re
from io import BytesIO

from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from pbm.i18n import languages, translate

POT = languages.LOCALE_DIR / "messages.pot"
#: a placeholder's name: ``{who}``, ``{to:으로/로}`` (a particle chosen after it), ``%(n)s``
PLACEHOLDER = re.compile(r"\{[a-z_]*(?=[:}])|%\([a-z_]+\)s")


def _po(lang: str):  # type: ignore[no-untyped-def]
    with open(languages.LOCALE_DIR / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f)


def test_every_message_id_has_a_korean_translation_with_the_same_placeholders() -> None:
    with open(POT, "rb") as f:
        template = read_po(f)
    korean = _po("ko")
    ids = [(m.id, m.context) for m in template if m.id]
    assert len(ids) > 100
    missing = [i for i, c in ids if korean.get(i, context=c) is None or
               not korean.get(i, context=c).string]
    assert missing == [], f"{len(missing)} message ids without Korean (./dev i18n): {missing}"
    for message_id, context in ids:
        forms = korean.get(message_id, context=context).string
        for text in forms if isinstance(forms, tuple) else (forms,):  # (a plural: each)
            _check_korean(message_id, text)


def _check_korean(message_id: str | tuple[str, ...], text: str) -> None:
    """The same placeholders as the message id, and no English word left."""
    assert set(PLACEHOLDER.findall(text)) <= set(PLACEHOLDER.findall(str(message_id))), (
        message_id, text)
    # allowed Latin: placeholders, HTML, ship codes, zone names, ZONE, AWAY, SETTINGS
    # (no Korean word yet)
    plain = re.sub(r"\{[a-z_]*(?::[^{}]*)?\}|%\([a-z_]+\)s|</?(?:code|i|b)>|&[a-z]+;|FD|JR|"
                   r"KST|1667|"
                   r"ZONE|AWAY|SETTINGS|\b[A-Z][a-z]+/[A-Za-z_]+\b", "", text)
    assert not re.search(r"[A-Za-z]{4,}", plain), (message_id, text)


def test_the_committed_mo_is_the_compiled_po() -> None:
    korean = _po("ko")
    compiled = BytesIO()
    write_mo(compiled, korean)
    with open(languages.LOCALE_DIR / "ko" / "LC_MESSAGES" / "messages.mo", "rb") as f:
        committed = read_mo(f)
    fresh = read_mo(BytesIO(compiled.getvalue()))
    def entries(catalogue):  # type: ignore[no-untyped-def]  # (a plural's id is a list)
        return {str(m.id): str(m.string) for m in catalogue if m.id}

    assert entries(committed) == entries(fresh), "run ./dev i18n and commit the .mo"


def test_the_korean_catalogue_has_koreans_plural_rule() -> None:
    assert _po("ko").plural_forms == "nplurals=1; plural=0;"


def test_english_is_the_message_ids_and_korean_comes_from_the_catalogue() -> None:
    # translate._ is gettext's conventional public name, the call every module makes
    assert translate._("Reply ") == "Reply "
    with translate.reading("ko"):
        assert translate._("Reply ") == "답장 "
    with translate.reading("fr"):  # unknown: English
        assert translate.current() == "en"
