"""``python -m pbm.cli``: the ``pbm`` command without its installed script."""

from pbm.cli import app

app()
