"""The build's one mapping: the top-level ``templates/`` (the source of every message,
help file and admin page) travels in the wheel as ``pbm/templates/``, where
``pbm.resources`` finds it in an installed package. Everything else is in pyproject.toml."""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

TEMPLATES = Path(__file__).resolve().parent / "templates"


class BuildWithTemplates(build_py):
    """``build_py`` that also copies ``templates/`` into the built ``pbm`` package (not in
    an editable install: there ``pbm.resources`` reads the checkout's ``templates/``)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "pbm" / "templates"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(TEMPLATES, target,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".*"))


setup(cmdclass={"build_py": BuildWithTemplates})
