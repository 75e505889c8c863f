"""The one parser for numbers a user types (CLI arguments, ``name=value`` pairs, API strings).

Accepted: ASCII decimal notation only, ``[+-]digits[.digits][e[+-]digits]``
(``0.25``, ``-3``, ``1e-6``, ``.5``) or a ratio of integers ``[+-]digits/digits``
(``3/7``).  The value is an exact :class:`fractions.Fraction` ("0.1" is 1/10).
Refused, each in one line naming the value: non-ASCII digits (``١``, ``１``,
``²``), underscores (``1_0``), ``inf``/``nan``, ``10**400``, hexadecimal,
empty text, text longer than :data:`MAX_CHARS`, and magnitudes outside
[10^-MAX_EXPONENT, 10^MAX_EXPONENT].  The exponent is bounded *before* any
power of ten is built, so ``1e999999999`` is refused at once instead of
building a billion-digit integer.  Nothing is ever passed to eval or sympify.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from dpcheck.errors import InputError

#: The longest number text accepted (characters).
MAX_CHARS = 400
#: Numbers must satisfy 10^-MAX_EXPONENT <= |x| <= 10^MAX_EXPONENT (or be 0).
MAX_EXPONENT = 1000

_DECIMAL = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?(?:[eE](?P<exp>[+-]?[0-9]+))?",
    re.ASCII,
)
_RATIO = re.compile(r"(?P<num>[+-]?[0-9]+)/(?P<den>[0-9]+)", re.ASCII)
_SPACE = " \t\n\r"
EXPECTED = "expected ASCII decimal notation, e.g. 0.25, 1e-6 or 3/7"


#: integers above this many bits are never turned into decimal text for a message
#: (Python refuses int -> str beyond 4 300 digits, and a message need not show them)
_HUGE_BITS = 3000


def _huge(value: object) -> bool:
    """An int, or a Fraction with a part, too long to be written out in a message."""
    if isinstance(value, Fraction):
        return max(value.numerator.bit_length(), value.denominator.bit_length()) > _HUGE_BITS
    return isinstance(value, int) and value.bit_length() > _HUGE_BITS


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)`` cut to about ``limit`` characters, so an error never echoes a huge value
    (an integer or Fraction too long to print at all is named by its size)."""
    if _huge(value):
        return f"{short(value)} ({type(value).__name__})"  # type: ignore[arg-type]
    try:
        text = repr(value)
    except ValueError:  # a container holding an integer too long to print
        return f"<{type(value).__name__} too long to print>"
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[: limit - 8]}...' ({size} characters)"


def short(value: Fraction | int) -> str:
    """An exact number for a message: itself if short, else 6 significant digits."""
    if not _huge(value):
        text = str(value)
        if len(text) <= 40:
            return text
    import mpmath

    with mpmath.workdps(10):
        approx = mpmath.mpf(Fraction(value).numerator) / Fraction(value).denominator
        return "about " + mpmath.nstr(approx, 6)


def _magnitude_error(name: str, text: object) -> InputError:
    return InputError(
        f"{name}={shown(text)} is beyond the ceiling of magnitudes 10^-{MAX_EXPONENT}"
        f" .. 10^{MAX_EXPONENT} (or 0)"
    )


def _check_magnitude(name: str, text: object, value: Fraction) -> Fraction:
    if value == 0:
        return value
    size = abs(value)
    # compare via bit lengths first: cheap, and exact below
    bits = size.numerator.bit_length() - size.denominator.bit_length()
    limit_bits = int(MAX_EXPONENT * 3.3219280948873626) + 2
    if abs(bits) > limit_bits or not (Fraction(1, 10**MAX_EXPONENT) <= size <= 10**MAX_EXPONENT):
        raise _magnitude_error(name, text)
    return value


def _from_text(name: str, raw: str) -> Fraction:
    if len(raw) > MAX_CHARS:
        raise InputError(
            f"{name}={shown(raw)} is longer than the ceiling of {MAX_CHARS} characters ({EXPECTED})"
        )
    text = raw.strip(_SPACE)
    ratio = _RATIO.fullmatch(text)
    if ratio is not None:
        den = int(ratio["den"])
        if den == 0:
            raise InputError(f"{name}={shown(raw)} divides by zero ({EXPECTED})")
        return _check_magnitude(name, raw, Fraction(int(ratio["num"]), den))
    m = _DECIMAL.fullmatch(text)
    if m is None or not (m["int"] or m["frac"]):
        if text and not text.isascii():
            raise InputError(f"{name}={shown(raw)} contains non-ASCII characters ({EXPECTED})")
        raise InputError(f"{name}={shown(raw)} is not a number ({EXPECTED})")
    digits = (m["int"] or "") + (m["frac"] or "")
    exponent = int(m["exp"] or 0) - len(m["frac"] or "")
    significant = digits.lstrip("0")
    if not significant:
        return Fraction(0)
    # the decimal order of the value, known before 10**exponent is built
    order = len(significant) - 1 + exponent
    if abs(order) > MAX_EXPONENT + 1:
        raise _magnitude_error(name, raw)
    mantissa = int(digits) * (-1 if m["sign"] == "-" else 1)
    value = mantissa * Fraction(10) ** exponent
    return _check_magnitude(name, raw, value)


def parse_number(name: str, text: object) -> Fraction:
    """An exact rational from a user value; one-line :class:`InputError` otherwise.

    ``text`` may be a str (ASCII decimal notation, see the module docstring),
    an int, a finite float or a Fraction; bools and everything else are refused.
    """
    if isinstance(text, (bool, np.bool_)):
        raise InputError(f"{name}={text!r} is not a number")
    if isinstance(text, Fraction):
        return _check_magnitude(name, text, text)
    if isinstance(text, (int, np.integer)):
        return _check_magnitude(name, text, Fraction(int(text)))
    if isinstance(text, (float, np.floating)):
        if not np.isfinite(text):
            raise InputError(f"{name}={float(text)!r} is not a finite number")
        return Fraction(float(text))
    if isinstance(text, str):
        return _from_text(name, text)
    raise InputError(f"{name}={shown(text)} is not a number ({EXPECTED})")


def parse_count(
    name: str, value: object, minimum: int = 0, maximum: int | None = None, limit: str = ""
) -> int:
    """An integer in [minimum, maximum] from an int or text such as '1000000' or '1e6'.

    Shared by every size, count and seed a user gives (CLI and API); a value
    above ``maximum`` is refused with ``limit`` naming the ceiling.
    """
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name}={value!r} is not an integer")
    if not isinstance(value, (int, np.integer, str, float, np.floating, Fraction)):
        raise InputError(f"{name}={shown(value)} is not an integer")
    number = parse_number(name, value)
    if number.denominator != 1:
        raise InputError(f"{name}={shown(value)} is not an integer")
    count = int(number)
    said = (
        f"{name} {_short_int(count)}" if name.startswith("--") else f"{name} = {_short_int(count)}"
    )
    if count < minimum:
        raise InputError(f"{said} must be an integer >= {minimum}")
    if maximum is not None and count > maximum:
        raise InputError(f"{said} is above {limit or f'the ceiling of {maximum}'}")
    return count


def _short_int(value: int) -> str:
    if abs(value) < 10**30:
        return str(value)
    import mpmath

    with mpmath.workdps(30):
        return f"about 10^{int(mpmath.floor(mpmath.log10(abs(value))))}"


def parse_real(name: str, value: object, ok, expected: str) -> float:  # type: ignore[no-untyped-def]
    """A float from a number or text (parsed by :func:`parse_number`), refused unless ``ok``."""
    number = parse_number(name, value)
    try:
        x = float(number)
    except OverflowError:
        raise InputError(f"{name}={shown(value)} must be {expected}") from None
    if not ok(x) or (x == 0 and number != 0):
        raise InputError(f"{name}={shown(value)} must be {expected}")
    return x


__all__ = [
    "EXPECTED",
    "MAX_CHARS",
    "MAX_EXPONENT",
    "parse_count",
    "parse_number",
    "parse_real",
    "short",
    "shown",
]
