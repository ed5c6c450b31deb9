"""The email templates' environment (``pbm.render.email._Environment``: its globals one
plain dict) renders as Jinja's own does."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from jinja2 import Environment, StrictUndefined, UndefinedError

from pbm.render.email import _Environment, env_for

TEMPLATE = ("{{ d.turn }} {{ d['turn'] }} {{ d.items()|list|length }} {{ d.get('turn') }} "
            "{{ d.keys is defined }} {{ d.missing is defined }} {{ o.real }} {{ dd.x }} "
            "{{ dd|length }} {{ s.upper() }}")


def rendered(env: Environment, **values: Any) -> str:
    return env.from_string(TEMPLATE).render(**values)


def test_a_dict_key_reads_as_jinja_reads_it_and_a_dicts_methods_stay_methods() -> None:
    values: dict[str, Any] = {"d": {"turn": 3, "items": "not the method", "keys": 1},
                              "o": 2 + 5j, "s": "ab"}
    fast = rendered(_Environment(), **values, dd=defaultdict(int))
    slow = rendered(Environment(), **values, dd=defaultdict(int))
    assert fast == slow == "3 3 3 3 True False 2.0 0 1 AB"


def test_a_missing_key_is_still_an_error_in_the_email_templates() -> None:
    env = env_for("en")
    assert isinstance(env, _Environment) and env.undefined is StrictUndefined
    with pytest.raises(UndefinedError):
        env.from_string("{{ d.missing }}").render(d={"turn": 3})
