"""Sentences without arguments translated once, when a template is compiled
(``pbm.render.folding``), with the output of the call they replace."""

from __future__ import annotations

from jinja2 import DictLoader, Environment
from markupsafe import Markup

from pbm.render.email import env_for
from pbm.render.folding import FoldGettext

TEMPLATE = ('{{ _("The board") }} | {{ _("turn %(n)s", n=3) }} | {{ _("100%% sure") }} | '
            '{{ _("a") ~ "b" }} | {{ x }}{{ _("<b>bold</b>") }} | '
            '{{ _("Hello %(who)s and %(who)s.", who=x) }} | {{ _("%(text)s!", text=y, z=x) }} | '
            '{{ _("turn %(n)s", n=3,) | upper }} | '
            '{{ "[" ~ _("<i>%(a)s</i> %(b)s", a=x, b=y) ~ "]" }} | {{ _("%(n)d%% done", n=7) }} | '
            '{% set s = _("a") %}{{ s }} | {{ ns._("a") }}')


def environment(fold: bool, *, html: bool = False) -> Environment:
    env = Environment(loader=DictLoader({"t.html" if html else "t.txt": TEMPLATE}),
                      extensions=["jinja2.ext.i18n", FoldGettext], autoescape=html)
    words = {"The board": "Das Brett", "turn %(n)s": "Zug %(n)s", "a": "A",
             "<b>bold</b>": "<b>fett</b>", "100%% sure": "100%% sicher",
             "%(text)s!": "%(text)s !", "%(n)d%% done": "%(n)d%% fertig"}
    env.install_gettext_callables(lambda s: words.get(s, s),
                                  lambda s, p, n: s if n == 1 else p, newstyle=True)
    if fold:
        env.extend(fold_gettext=lambda s: words.get(s, s))
    return env


def test_a_folded_template_says_what_the_calls_said() -> None:
    for html in (False, True):
        name = "t.html" if html else "t.txt"
        values = {"x": "<x>", "y": Markup("<y/>"), "ns": {"_": lambda s: s + "?"}}
        folded = environment(True, html=html).get_template(name).render(**values)
        called = environment(False, html=html).get_template(name).render(**values)
        assert folded == called
        assert folded.startswith("Das Brett | Zug 3 | 100% sicher | Ab | ")
        assert ("&lt;x&gt; and &lt;x&gt;" if html else "<x> and <x>") in folded
        assert "<y/> !" in folded and "ZUG 3" in folded and "7% fertig" in folded


def test_sentences_are_translated_when_compiled_and_only_odd_ones_call_gettext() -> None:
    """Without arguments: template data; with ``%(name)s`` arguments: the translation and
    a filter; ``%%``, ``%d`` and another object's ``_`` are called as before."""
    source = environment(True).compile(TEMPLATE, raw=True)
    assert "Das Brett" in source and "<b>fett</b>" in source
    assert "'turn %(n)s'" not in source and "translated_format" in source
    assert "Zug 3" in source  # constant arguments: Jinja's optimiser fills it in
    assert "'%(text)s !'" in source and "'A'" in source
    assert "'100%% sure'" in source and "'%(n)d%% done'" in source


def test_the_email_templates_are_compiled_with_their_language() -> None:
    assert "Your secrets" in env_for("en").compile(
        '{{ _("Your secrets &mdash; no one else sees these") }}', raw=True)
    korean = env_for("ko").compile('{{ _("The board") }}', raw=True)
    assert "The board" not in korean


def test_warming_compiles_every_email_template_in_every_language() -> None:
    from pbm.i18n import translate
    from pbm.render.email import TEMPLATES, warm

    count = warm()
    names = [p for p in (TEMPLATES / "email").iterdir() if p.suffix in (".txt", ".html")]
    assert count == len(names) * len(translate.languages()) > 90
    for lang in translate.languages():
        cache = env_for(lang).cache
        assert cache is not None
        cached = {name for _loader, name in cache}
        assert {f"email/{p.name}" for p in names} <= cached
