"""``dpcheck compare diffprivlib``: options, their validation, the driver and ``run``.

:func:`add_arguments` declares the options; :func:`point_from_args` and
``_validate`` check them as diffprivlib 0.6.6's constructors do;
:func:`compare` runs every check (bias/variance of ``LaplaceTruncated``,
``LaplaceFolded``, ``LaplaceBoundedDomain``; ``_find_scale()`` and
``effective_epsilon()`` against Holohan et al. 2018's calibration; the law of
``randomise()`` against Liu 2019 Definition 2) and :func:`run` prints the report.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from typing import Any

import mpmath

from dpcheck.errors import InputError
from dpcheck.inputs import limits
from dpcheck.numeric.params import parse_count, parse_number, shown
from dpcheck.peers.diffprivlib.exact import DPS
from dpcheck.peers.diffprivlib.law_test import law_rows
from dpcheck.peers.diffprivlib.library import _library
from dpcheck.peers.diffprivlib.moments import moment_row
from dpcheck.peers.diffprivlib.points import (
    APPLIES,
    LAW_POINTS,
    MECHANISMS,
    QUANTITIES,
    Point,
    grid,
    law_points,
)
from dpcheck.peers.diffprivlib.report import print_tables, rank, render_json, summarise
from dpcheck.peers.diffprivlib.rows import Row
from dpcheck.peers.diffprivlib.scales import effective_epsilon_row, scale_row

DEFAULT_SAMPLES = 2000
DEFAULT_SEED = 2018


def compare(
    points: Sequence[Point] | None = None,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    quantities: Sequence[str] = QUANTITIES,
    mechanisms: Sequence[str] = MECHANISMS,
) -> list[Row]:
    """All rows: bias, variance, scale, effective ε on ``points`` (default :func:`grid`),
    and the law on the same points (default :func:`law_points`, draw i seeded seed + i)."""
    _library()
    for q in quantities:
        if q not in QUANTITIES:
            raise InputError(f"unknown quantity {q!r} (expected one of: {', '.join(QUANTITIES)})")
    if points is None:
        chosen, sampled = grid(mechanisms), law_points(mechanisms)
    else:
        chosen = sampled = [p for p in points if p.mechanism in mechanisms]
    rows: list[Row] = []
    seen: set[tuple[Any, ...]] = set()
    with mpmath.workdps(DPS + 10):
        for point in chosen:
            for q in ("bias", "variance"):
                if q in quantities and q in APPLIES[point.mechanism]:
                    rows.append(moment_row(point, q))
            if point.mechanism != "LaplaceBoundedDomain" or point.setting in seen:
                continue
            seen.add(point.setting)
            if "scale" in quantities:
                rows.append(scale_row(point))
            if "effective_epsilon" in quantities:
                rows.append(effective_epsilon_row(point))
        if "law" in quantities:
            for i, point in enumerate(sampled):
                rows.extend(law_rows(point, samples, seed + i))
    return rows


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``dpcheck compare diffprivlib``."""
    parser.add_argument("--mechanism", choices=MECHANISMS, help="only this diffprivlib class")
    parser.add_argument("--quantity", choices=QUANTITIES, help="only this quantity")
    for name in ("epsilon", "delta", "sensitivity", "lower", "upper", "value"):
        parser.add_argument(
            f"--{name}", help="with all six of these: compare this single point only"
        )
    parser.add_argument(
        "--samples",
        default=str(DEFAULT_SAMPLES),
        help=f"draws of randomise() per law point (default {DEFAULT_SAMPLES})",
    )
    parser.add_argument(
        "--seed",
        default=str(DEFAULT_SEED),
        help=f"random_state of the first law point (default {DEFAULT_SEED})",
    )
    parser.add_argument("--top", default="15", help="rows shown per group (default 15)")
    parser.add_argument("--json", action="store_true", help="JSON instead of tables")


_POINT_OPTIONS = ("epsilon", "delta", "sensitivity", "lower", "upper", "value")


def _parse_float(name: str, text: str) -> float:
    """A float from the user, through the exact parser; ε may be 'inf' (the API allows it)."""
    if name == "epsilon" and isinstance(text, str) and text.strip() in ("inf", "+inf"):
        return math.inf
    number = parse_number(name, text)
    try:
        value = float(number)
    except OverflowError:
        raise InputError(f"{name}={shown(text)} is too large for a float") from None
    if math.isinf(value):
        raise InputError(f"{name}={shown(text)} is too large for a float")
    return value


def point_from_args(args: argparse.Namespace, mechanism: str) -> Point:
    """The single point given on the command line, validated as the API validates it."""
    v = {name: _parse_float(name, getattr(args, name)) for name in _POINT_OPTIONS}
    if v["epsilon"] < 0:
        raise InputError(f"epsilon={v['epsilon']!r} must be >= 0 (inf allowed)")
    if not 0 <= v["delta"] <= 1:
        raise InputError(f"delta={v['delta']!r} must be in [0, 1]")
    if v["epsilon"] == 0 and v["delta"] == 0:
        raise InputError("epsilon and delta are both 0 (diffprivlib needs one of them > 0)")
    if v["sensitivity"] < 0:
        raise InputError(f"sensitivity={v['sensitivity']!r} must be >= 0")
    if v["lower"] > v["upper"]:
        raise InputError(f"lower={v['lower']!r} must not be greater than upper={v['upper']!r}")
    return Point(mechanism, **v)


def _validate(args: argparse.Namespace) -> tuple[list[Point] | None, list[str], list[str]]:
    given = [n for n in _POINT_OPTIONS if getattr(args, n, None) is not None]
    if given and len(given) < len(_POINT_OPTIONS):
        missing = [f"--{n}" for n in _POINT_OPTIONS if n not in given]
        raise InputError(
            f"single-point mode needs all of --epsilon --delta --sensitivity --lower --upper"
            f" --value; missing {' '.join(missing)}"
        )
    args.samples = limits.count("compare diffprivlib", "--samples", args.samples, 10)
    limit = 2**32 - 1 - len(LAW_POINTS) * len(MECHANISMS)
    args.seed = parse_count("seed", args.seed, 0, limit)
    args.top = parse_count("top", args.top, 1, 10**6)
    mechanisms = [args.mechanism] if args.mechanism else list(MECHANISMS)
    quantities = [args.quantity] if args.quantity else list(QUANTITIES)
    if args.mechanism and args.quantity and args.quantity not in APPLIES[args.mechanism]:
        raise InputError(
            f"--quantity {args.quantity} does not apply to {args.mechanism} (expected one of:"
            f" {', '.join(APPLIES[args.mechanism])})"
        )
    points = None
    if given:
        points = [point_from_args(args, m) for m in mechanisms]
    return points, mechanisms, quantities


def run(args: argparse.Namespace) -> int:
    """Compare, print the ranked tables (or JSON); 0 when the comparison ran."""
    points, mechanisms, quantities = _validate(args)
    _library()
    rows = compare(points, args.samples, args.seed, quantities, mechanisms)
    groups = rank(rows)
    summaries = summarise(rows)
    if args.json:
        print(render_json(groups, summaries, args.top))
        return 0
    print_tables(groups, summaries, args.top)
    return 0
