"""``dpcheck compare diffprivlib``: diffprivlib 0.6.6's bounded Laplace mechanisms vs exact values.

What each class's ``randomise()`` samples (diffprivlib 0.6.6,
``diffprivlib/mechanisms/laplace.py``), with λ = Δ/(ε - log(1-δ)) computed in
floating point exactly as ``Laplace.randomise`` does:

* ``LaplaceTruncated``: clamp(value + Lap(0, λ)) to [lower, upper], the BIT law
  of Liu (2019) Definition 2(b) (point masses at the bounds);
  ``bias()``/``variance()`` are closed forms at λ = Δ/ε (δ ignored);
* ``LaplaceFolded``: value + Lap(0, λ) reflected into [lower, upper], the
  folded law of :mod:`dpcheck.symbolic.folding`; ``bias()`` is a closed form
  at Δ/ε, ``variance()`` raises NotImplementedError;
* ``LaplaceBoundedDomain``: Lap(clamp(value), b) conditioned on [lower, upper]
  (rejection sampling), the truncated law of Definition 2(a), at the scale b
  of ``_find_scale()`` (Holohan et al. 2018/2020, "The bounded Laplace
  mechanism in differential privacy": the fixed point of
  b = Δ/(ε - log ΔC(b) - log(1-δ))); ``effective_epsilon()`` is Δ/b.

The exact side takes the float inputs at their exact binary values
(``Fraction(float)``), derives the law randomise() samples, and evaluates
with mpmath (:mod:`dpcheck.numeric.laws_at`): bias = E[output] - value,
variance = Var[output]; the calibrated scale is the root of the exact
worst-case loss (:func:`dpcheck.numeric.privacy.privacy_loss`) = ε - log(1-δ).

Discrepancy: |lib - exact| / max(|exact|, floor), with floor = 1e-12 · min(λ, R)^k
(k = 1 for the bias, 2 for the variance; R = upper - lower; for a point mass
1e-12 · max(1, |lower|, |upper|, |value|)^k): an exact 0 (the bias at the
midpoint) is not divided by 0, and errors below 1e-12 of the law's natural
size are not magnified.  The law of randomise() is tested with N seeded draws
against the exact CDF by the DKW inequality (Massart's constant),
P(sup|F_n - F| > t) <= 2 exp(-2 n t²), at false-alarm probability ALPHA/2, and
for ``LaplaceTruncated`` the counts at each bound by an exact two-sided
binomial test at ALPHA/4 each: a correct sampler is flagged at a point with
probability <= ALPHA = 1e-6.

The package, one job a module (imports point down this list, no cycles):

* :mod:`.points`: :class:`Point`, the default grid and law points;
* :mod:`.library`: calls into diffprivlib (construct, call, ``_find_scale`` cache);
* :mod:`.exact`: the law randomise() samples, its exact bias/variance and the
  exact calibrated scale; the relative error and its floors;
* :mod:`.rows`: :class:`Row`, one comparison, and its number formatting;
* :mod:`.moments`: ``bias()``/``variance()`` rows and their diagnosis;
* :mod:`.scales`: ``_find_scale()`` and ``effective_epsilon()`` rows;
* :mod:`.law_test`: the DKW and binomial tests of randomise();
* :mod:`.report`: ranking, summaries, rich tables and JSON;
* :mod:`.command`: the CLI options, their validation, :func:`compare` and :func:`run`.

:mod:`dpcheck.peers.diffprivlib_compare` re-exports the public names.
"""
