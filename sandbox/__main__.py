"""``python -m sandbox``: the ``sandbox`` command line."""

from .cli import main

main()
