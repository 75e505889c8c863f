"""``dpcheck derive`` for law objects (issue 35): the derivation of a shipped law or of a
user's law, its closed forms those of the law, and its cross-checks able to fail."""

from __future__ import annotations

from pathlib import Path

import flint
import pytest
import sympy as sp
from cli_subprocess import assert_refused, run_cli

from dpcheck.cli import main
from dpcheck.derivations import noise_laws
from dpcheck.derivations.mechanisms import render
from dpcheck.laws import registry
from dpcheck.laws.numeric import Ball, Evaluator


def test_the_laplace_derivation_shows_the_law_s_own_closed_forms():
    law = registry.get("laplace")
    text = render(noise_laws.derivation(law))
    assert f"\\mathbb{{E}} Z^2 = {sp.latex(law.moment(2))}" in text
    assert f"P(Z \\ge u) = {sp.latex(law.tail(1))}" in text
    assert "Log-concavity: proved" in text and "worst pair is $(0, \\Delta)$" in text
    assert text.count("\\paragraph{Step") == 7 and text.isascii()


def test_a_law_without_closed_forms_says_so_and_is_checked_against_the_plain_sum():
    text = render(noise_laws.derivation(registry.get("discrete-gaussian")))
    assert "no closed form: SymPy leaves the sum" in text  # the tails
    assert text.count("Jacobi theta function (arb)") >= 4 + 4  # four steps, four checks
    assert "the plain sum of the pmf" in text


def test_the_staircase_is_not_called_log_concave_and_privacy_is_refused_in_words():
    text = render(noise_laws.derivation(registry.get("staircase")))
    assert "Log-concavity: not proved" in text and "refuses" in text
    assert "\\lfloor" in text and "d \\xi" not in text  # no derivative of a step shown


def test_a_wrong_moment_is_caught_by_the_cross_check(monkeypatch):
    """Mutation: the certified moment off by 1e-25 relative must fail the derivation."""
    real = Evaluator.moment

    def off(self, order):
        ball = real(self, order)
        return Ball(ball.ball * (1 + flint.arb(10) ** -25), ball.how, ball.certified)

    monkeypatch.setattr(Evaluator, "moment", off)
    for name in ("discrete-gaussian", "laplace"):
        with pytest.raises(AssertionError, match="E Z"):
            noise_laws.derivation(registry.get(name))


def test_derive_a_user_law_from_its_density(tmp_path: Path, capsys):
    args = ["derive", "--density", r"\frac{1}{2b}e^{-|z|/b}", "--param", "b>0",
            "--out", str(tmp_path)]
    assert main(args) == 0
    text = (tmp_path / "law-user.tex").read_text()
    assert "\\mathbb{E} Z^2 = 2 b^{2}" in text
    assert "Reproduce: \\texttt{dpcheck derive --density" in text
    assert "dpcheck eval var b=1 --dps 30 --density" in text


def test_derive_a_user_law_that_is_not_log_concave(tmp_path: Path):
    assert main(["derive", "--density", r"e^{-|z|} + e^{-|z|/3}", "--param", "b>0",
                 "--out", str(tmp_path)]) == 0
    text = (tmp_path / "law-user.tex").read_text()
    assert "Log-concavity: not proved" in text and "refuses" in text


@pytest.mark.parametrize(
    "args",
    [
        ["derive", "law-laplace", "--density", "e^{-|z|/b}", "--param", "b>0"],
        ["derive", "--density", "e^{-|z|/c}", "--param", "b>0"],
        ["derive", "--density", "-e^{-|z|/b}", "--param", "b>0"],
        ["derive", "law-nothing"],
    ],
)
def test_derive_refusals_are_one_line(args, tmp_path):
    assert_refused(run_cli([*args, "--out", str(tmp_path)]))
