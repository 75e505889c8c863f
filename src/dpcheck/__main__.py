"""``python -m dpcheck``."""

from dpcheck.cli import run

run()
