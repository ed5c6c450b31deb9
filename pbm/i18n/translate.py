"""Messages in the reader's language: gettext catalogues managed with Babel (issue 24).

The catalogues live in ``pbm/locale/<lang>/LC_MESSAGES/messages.po`` (the template is
``pbm/locale/messages.pot``); ``./dev i18n`` extracts every marked string from ``pbm/`` and
``templates/`` (``babel.cfg``), updates the ``.po`` files and compiles them to ``.mo``. The
compiled ``.mo`` files are committed (a clean clone, CI included, runs without compiling);
``tests/pbm/test_i18n_catalogue.py`` fails when a ``.mo`` is older than its ``.po`` or a
message id has no translation.

Rendering one message sets the reader's language for the time it takes
(``with reading(ctx.language): ...``); the render code marks its words with :func:`_` and
:func:`ngettext`, which translate into that language. English is the message ids
themselves (``NullTranslations``), so an English message is exactly what it was before.
Templates use Jinja2's ``jinja2.ext.i18n`` with the same translations
(:func:`install_jinja`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pbm.i18n.languages import languages, translations

_current: ContextVar[str] = ContextVar("message_language", default="en")


def language_of(value: str | None) -> str:
    """A known message language ("en" for anything else)."""
    return value if value in languages() else "en"


def current() -> str:
    """The language of the message being written ("en" outside :func:`reading`)."""
    return _current.get()


@contextmanager
def reading(lang: str | None) -> Iterator[str]:
    """Write messages in ``lang`` inside this block (render one message for one reader)."""
    token = _current.set(language_of(lang))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def _(message: str) -> str:
    """``message`` in the current reader's language."""
    if _current.get() == "en":
        return message
    return translations(_current.get()).gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for extraction where it is defined; translate it with :func:`_`
    where it is used (tables of sentences)."""
    return message


def pgettext(context: str, message: str) -> str:
    """``message`` in the reader's language, where ``context`` tells it apart from the same
    English word used elsewhere (``pgettext("vote card", "British")``)."""
    if _current.get() == "en":
        return message
    return translations(_current.get()).pgettext(context, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, by the catalogue's plural rule."""
    if _current.get() == "en":
        return singular if n == 1 else plural
    return translations(_current.get()).ngettext(singular, plural, n)


def install_jinja(env: Any, lang: str) -> None:
    """Jinja2's i18n extension on ``env`` with the catalogue of ``lang`` (newstyle:
    ``{{ _("Reply %(n)s", n=3) }}`` formats after translating)."""
    env.install_gettext_translations(translations(lang), newstyle=True)
