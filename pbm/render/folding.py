"""Translated sentences written into the compiled templates: ``{{ _("The board") }}``
becomes the template's own text in the environment's language, once, at compile time;
``_("Hello %(player)s.", player=player)`` becomes the translated sentence and a plain
filter that fills it in.

Jinja's newstyle gettext runs at every render (two context calls, the catalogue,
``Markup``, ``%`` formatting through MarkupSafe's escaping helper): about twenty calls an
email, nearly all of them sentences with arguments. A sentence always gives the same text
for one language, and the output is the same as the call's:

- no arguments and no ``%``: ``Markup(text) % {}`` is ``text``, and template data is not
  escaped either, so ``{{ _("The board") }}`` is written as template data;
- arguments that are all ``%(name)s``: ``Markup(text) % variables`` writes each used
  variable escaped (``escape(value)``) into the unescaped text, which is what
  ``translated_format`` does with one dict and ``str.__mod__`` (in a template that does not
  autoescape, ``text % variables`` as before). A Jinja filter is called directly by the
  compiled template; a global function (``_``) goes through ``Context.call``.

Anything else (``%%``, ``%d``, a sentence spread over several string tokens, ``x._(...)``)
is left to run as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

from jinja2 import Environment
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.nodes import EvalContext
from jinja2.utils import pass_eval_context
from markupsafe import Markup, escape

#: variable_begin, name "_", "(", a string, ")", variable_end
_SHAPE = ("variable_begin", "name", "lparen", "string", "rparen", "variable_end")

#: the filter a sentence with arguments becomes
FORMAT = "translated_format"

_FIELD = re.compile(r"%\((\w+)\)s")


def _fields(text: str) -> tuple[str, ...] | None:
    """The names ``text`` fills in, in order; None if it has any other ``%``."""
    if "%" in _FIELD.sub("", text):
        return None
    return tuple(dict.fromkeys(_FIELD.findall(text)))


@lru_cache(maxsize=2048)
def _fields_of(text: str) -> tuple[str, ...]:
    """The ``%(name)s`` fields a translated text uses (read once per text)."""
    return _fields(text) or ()


@pass_eval_context
def translated_format(eval_ctx: EvalContext, text: str, /, **variables: Any) -> str:
    """``text`` (already translated) filled in as Jinja's newstyle gettext fills it:
    escaped values in unescaped text when the template autoescapes."""
    if not eval_ctx.autoescape:
        return text % variables
    used = _fields_of(text)
    return Markup(text % {name: escape(variables[name]) for name in used})


class FoldGettext(Extension):
    """Replace ``{{ _("literal") }}`` by the literal in the environment's language
    (``environment.fold_gettext``, set by whoever installs the catalogue), and
    ``_("literal", name=value, ...)`` by ``"translated" | translated_format(name=value,
    ...)``."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters[FORMAT] = translated_format

    def filter_stream(self, stream: TokenStream) -> Iterable[Token]:
        translate: Callable[[str], str] | None = getattr(self.environment, "fold_gettext", None)
        if translate is None:
            return stream
        return _with_arguments(_folded(iter(stream), translate), translate)


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


def _with_arguments(tokens: Iterator[Token], translate: Callable[[str], str]) -> list[Token]:
    """``_ ( "literal" , ...`` -> ``"translated" | translated_format ( ...`` and
    ``_ ( "literal" )`` -> ``"translated" | translated_format``, where both the literal and
    its translation fill in nothing but ``%(name)s`` (a template is a few hundred tokens:
    compiled once, read as a list)."""
    source = list(tokens)
    out: list[Token] = []
    at = 0
    while at < len(source):
        token = source[at]
        if (token.type == "name" and token.value == "_"
                and (at == 0 or source[at - 1].type != "dot")
                and [t.type for t in source[at + 1:at + 3]] == ["lparen", "string"]
                and at + 3 < len(source) and source[at + 3].type in ("comma", "rparen")):
            literal = source[at + 2].value
            text = translate(literal)
            if _fields(literal) is not None and _fields(text) is not None:
                out += (Token(token.lineno, "string", text), Token(token.lineno, "pipe", "|"),
                        Token(token.lineno, "name", FORMAT))
                if source[at + 3].type == "rparen":  # _("text")
                    at += 4
                else:  # the arguments and the closing parenthesis follow as they are
                    out.append(Token(token.lineno, "lparen", "("))
                    at += 4
                continue
        out.append(token)
        at += 1
    return out
