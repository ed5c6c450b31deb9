"""Where the package's data lies: the templates (messages, help files, admin pages).

In the wheel the build puts the top-level ``templates/`` inside the package
(``pbm/templates``, see ``setup.py``) and ``importlib.resources`` finds it there; in a
checkout (an editable install, the tests) it is the checkout's own ``templates/``."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path


@cache
def templates_dir() -> Path:
    """The folder of every Jinja template and help file."""
    packaged = Path(str(files("pbm").joinpath("templates")))
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[1] / "templates"
