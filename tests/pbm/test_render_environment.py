"""The email templates' environment: a missing key is an error, not an empty string."""

from __future__ import annotations

import pytest
from jinja2 import StrictUndefined, UndefinedError

from pbm.render.email import env_for


def test_a_missing_key_is_still_an_error_in_the_email_templates() -> None:
    env = env_for("en")
    assert env.undefined is StrictUndefined
    with pytest.raises(UndefinedError):
        env.from_string("{{ d.missing }}").render(d={"turn": 3})
