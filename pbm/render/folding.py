"""Translated sentences written into the compiled templates: ``{{ _("The board") }}``
becomes the template's own text in the environment's language, once, at compile time.

Jinja's newstyle gettext runs at every render (a context call, the catalogue, ``Markup``,
``%`` formatting): about forty calls an email, a fifth of the render. A sentence with no
arguments and no ``%`` always gives the same text for one language, and the output is the
same as the call's: ``Markup(text) % {}`` is ``text``, and template data is not escaped
either. Sentences with arguments (``_("turn %(n)s", n=...)``) are left to run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream

#: variable_begin, name "_", "(", a string, ")", variable_end
_SHAPE = ("variable_begin", "name", "lparen", "string", "rparen", "variable_end")


class FoldGettext(Extension):
    """Replace ``{{ _("literal") }}`` by the literal in the environment's language
    (``environment.fold_gettext``, set by whoever installs the catalogue)."""

    def filter_stream(self, stream: TokenStream) -> Iterable[Token]:
        translate: Callable[[str], str] | None = getattr(self.environment, "fold_gettext", None)
        if translate is None:
            return stream
        return _folded(iter(stream), translate)


def _folded(tokens: Iterator[Token], translate: Callable[[str], str]) -> Iterator[Token]:
    window: list[Token] = []
    for token in tokens:
        window.append(token)
        while window and not _could_start(window):
            yield window.pop(0)
        if len(window) == len(_SHAPE):
            literal = window[3].value
            text = translate(literal)
            if "%" in literal or "%" in text:
                yield from window  # formatted at render time, as before
            else:
                yield Token(window[0].lineno, "data", text)
            window = []
    yield from window


def _could_start(window: list[Token]) -> bool:
    """True while ``window`` is a prefix of ``{{ _("...") }}``."""
    for token, kind in zip(window, _SHAPE, strict=False):
        if token.type != kind or (kind == "name" and token.value != "_"):
            return False
    return True
