"""Mutation testing of the claim checks: can a check fail when its transcription is wrong?

Every transcription of a document (each :class:`~dpcheck.papers.equation.Equation`
reachable from its papers module's ``ALL``, else ``__all__``, else its public
module attributes, descending into lists, tuples and dicts; for the supplement
also every printed sensitivity of
:data:`dpcheck.papers.liu2019s_sensitivity.PRINTED`) gets one-place *mutants*,
each swapped into the live object in place while the claims that read it run
again.  The steps:

1. **Generate** (:func:`generate`).  For a SymPy ``expr`` (Tuples element by
   element), five kinds:

   * ``sign``: one additive term of one sum negated (a non-sum element is
     negated as a whole);
   * ``constant``: one number changed: an integer k to k+1 (-1 to -2, so that a
     subtraction is not deleted), a fraction p/q to p/(q+1) (1/2 to 1/3); numbers
     in indices and summation limits included;
   * ``exponent``: one power's exponent k to k+1 (numeric or symbolic; k-1 where
     k+1 would be 0);
   * ``swap``: every occurrence of two symbols exchanged, for the pairs c0/c1,
     p/q, s/m, n/m (zz2016's symbols), x/x' and y/y' (the supplement), when both
     occur;
   * ``symbol``: one occurrence of a free symbol (or indexed base) replaced by
     another of the same kind (same SymPy assumptions; another indexed base),
     taken from the expression itself, else from the papers module's symbols.
     Bound summation/integration variables are never touched.

   A printed sensitivity is a Python function, so its mutants wrap it: the
   value negated (``sign``), times 3/2 or 2/3 (``constant``), the size n read as
   n+1 or n-1 and the eligible groups read as all groups (``symbol``).

2. **Select and drop equivalents** (:func:`select`).  At most N mutants per
   transcription, taken round-robin over the kinds in a fixed spread order, so
   every kind that has a candidate is represented.  A candidate is first
   evaluated at seeded random points (symbols by their assumptions, finite sums
   unrolled, indexed values and undefined functions such as P, F as free
   values); a numeric difference there shows it is *not* equivalent.  Otherwise
   it is tested exactly: :func:`dpcheck.symbolic.rational.is_identically_zero`
   of the difference, then ``sympy.simplify`` and ``equals``; equivalent ones
   are dropped and counted.  A candidate equal at every point that neither
   test shows equal is counted as *undecided* and not run.  Printed sensitivities
   are compared on a grid of sizes and group layouts instead (a finite test).

3. **Usage map** (:func:`record_usage`).  Every registered claim (of every
   document: a claim may read another document's transcription) runs once
   with each transcription's class swapped to a recording subclass whose
   ``expr`` (``normalised``) logs the claim reading it.  Each read also walks the
   Python stack: a ``functools`` cache whose function is on the stack while a
   transcription is read depends on transcriptions, and is cleared before and
   after every mutant run (every ``dpcheck`` cache is cleared once before
   recording so that such reads are seen).  Reads made while proof modules are
   imported are recorded as ``(import)``: a mutant cannot reach them.

4. **Baseline and run** (:func:`run`).  The claims that read any transcription
   run once more unmutated, under the same cache clearing as the mutant runs:
   that is the baseline (a claim whose signature differs between the recording
   and the baseline run is *unstable*; only its status is compared).  Each
   mutant is set with ``object.__setattr__(eq, "expr", mutant)`` and restored in
   a ``finally``; the claims that read it run through
   :func:`dpcheck.claims.runner.run_one` (so the verdict rules apply), each
   mutant with a time budget, optionally in forked worker processes.

**Killed.**  A mutant is *killed by status* when some claim that reads it gets a
different status than in the baseline, and *killed by outcome* when no status
changes but some claim's *outcome signature* does.  The outcome signature of a
verdict (:func:`outcome_signature`) is the sorted set of ``(path, value)`` over
the leaves of its evidence (path = the dict keys and list indices leading to
the leaf) whose value is

* a boolean;
* a status word (``holds``, ``holds as printed``, ``holds only under the
  reading``, ``false``, ``true``, ``proved``, ``verified``, ``refuted``,
  ``inconclusive``, ``undecided``, ``equal``, ``loose``, ``wrong``, ``not
  shown``, ``supported``, ``contradicted``, ``crashed``), the whole string or its
  first words before `` (``;
* an integer under a key that is such a word (``outcomes: {equal: 28, ...}``);
* the value of a ``first_broken_line`` key (a line label).

Everything else (formulas, numbers, witnesses, prose findings) is left out, so
a mutant is not "killed" merely because its text is echoed back.  Dict keys
that contain the text of the mutated transcription (or of the mutant) have that
text masked before the comparison.

A mutant that no claim reads is a survivor (``no claim reads it``).  A mutant whose
claims exceed the time budget is counted apart (``timed out``) and is not killed.
The kill rate of a document is killed / every selected non-equivalent mutant (run,
unreached and timed out alike); "undecided" and equivalent mutants are not in it.
"""

from __future__ import annotations

from dpcheck.claims.mutation.equivalents import (
    NUMERIC_POINTS,
    NUMERIC_SEED,
    SIMPLIFY_SECONDS,
    equivalence,
    exactly_equal,
    numeric_differs,
    printed_equal,
)
from dpcheck.claims.mutation.harness import (
    DocumentReport,
    Plan,
    plan,
    reports,
    run,
)
from dpcheck.claims.mutation.mutants import (
    KINDS,
    Candidate,
    Mutant,
    Path,
    bump,
    constant_candidates,
    exponent_candidates,
    expr_mutants,
    generate,
    nodes,
    printed_mutants,
    replace_at,
    sign_candidates,
    swap_candidates,
    swap_pairs,
    symbol_candidates,
)
from dpcheck.claims.mutation.running import (
    Context,
    MutantResult,
    baseline_context,
    compare,
    run_all,
    run_claims_for,
    run_mutant,
    swapped,
)
from dpcheck.claims.mutation.selection import (
    Selection,
    select,
    spread,
)
from dpcheck.claims.mutation.signatures import (
    OUTCOME_WORDS,
    Signature,
    first_change,
    outcome_signature,
    signature,
)
from dpcheck.claims.mutation.timeouts import (
    MutantTimeout,
    budget,
)
from dpcheck.claims.mutation.transcription import (
    DOCUMENTS,
    PAPERS,
    Transcription,
    transcriptions,
)
from dpcheck.claims.mutation.usage import (
    IMPORT,
    Usage,
    cached_functions,
    clear,
    record_usage,
    recording,
)

__all__ = [
    "Candidate",
    "Context",
    "DOCUMENTS",
    "DocumentReport",
    "IMPORT",
    "KINDS",
    "Mutant",
    "MutantResult",
    "MutantTimeout",
    "NUMERIC_POINTS",
    "NUMERIC_SEED",
    "OUTCOME_WORDS",
    "PAPERS",
    "Path",
    "Plan",
    "SIMPLIFY_SECONDS",
    "Selection",
    "Signature",
    "Transcription",
    "Usage",
    "baseline_context",
    "budget",
    "bump",
    "cached_functions",
    "clear",
    "compare",
    "constant_candidates",
    "equivalence",
    "exactly_equal",
    "exponent_candidates",
    "expr_mutants",
    "first_change",
    "generate",
    "nodes",
    "numeric_differs",
    "outcome_signature",
    "plan",
    "printed_equal",
    "printed_mutants",
    "record_usage",
    "recording",
    "replace_at",
    "reports",
    "run",
    "run_all",
    "run_claims_for",
    "run_mutant",
    "select",
    "sign_candidates",
    "signature",
    "spread",
    "swap_candidates",
    "swap_pairs",
    "swapped",
    "symbol_candidates",
    "transcriptions",
]
