"""The one exception type for bad input, anywhere in dpcheck.

The CLI turns it into a one-line message and exit code 2 (DESIGN.md,
"Contracts"); library callers can catch it as a ``ValueError``.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: the message names the offending value and what was expected."""
