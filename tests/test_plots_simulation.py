"""The figures of Liu (2019) §4 (Figure 1, Figures 2-5, S1-S2) from small-reps runs."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from dpcheck.errors import InputError
from dpcheck.plots import simulation as plots
from dpcheck.simulation.covariance import Study1Design, run_study1
from dpcheck.simulation.proportions import APPROACHES, Study2Design, run_study2

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def study1():
    return run_study1(Study1Design(reps=50, sizes=(50, 200, 400, 800)))


@pytest.fixture(scope="module")
def study2():
    # two epsilons keep the rendering quick; the layout is the same for three
    return run_study2(Study2Design(reps=50, epsilons=(0.1, 1.0), sizes=(50, 200, 500)))


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the IHDR chunk, after checking the PNG signature."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def assert_figure(path: Path, written: Path) -> None:
    import matplotlib.pyplot as plt

    assert written == path
    assert path.stat().st_size > 20_000
    width, height = png_size(path)
    assert 1000 <= width <= 2500 and 700 <= height <= 1600 and width > height
    assert plt.get_fignums() == [], "the figure is closed after saving"


def test_study1_png(study1, tmp_path):
    out = tmp_path / "study1.png"
    assert_figure(out, plots.plot_study1(study1, out))


@pytest.mark.parametrize("approach", APPROACHES)
def test_study2_png(study2, tmp_path, approach):
    out = tmp_path / f"study2_{approach}.png"
    assert_figure(out, plots.plot_study2(study2, approach, out))


def test_pairwise_sums_png(study2, tmp_path):
    out = tmp_path / "sums.png"
    assert_figure(out, plots.plot_pairwise_sums(study2, out))


def test_study2_with_mc_se_bars(study2, tmp_path):
    out = tmp_path / "bars.png"
    assert_figure(out, plots.plot_study2(study2, "rescaling", out, mc_se=True))


def test_pdf_suffix(study2, tmp_path):
    out = tmp_path / "study2.pdf"
    assert plots.plot_study2(study2, "uh", out) == out
    assert out.read_bytes()[:5] == b"%PDF-"


def test_unknown_approach(study2, tmp_path):
    out = tmp_path / "x.png"
    with pytest.raises(InputError, match="'rescale'") as err:
        plots.plot_study2(study2, "rescale", out)
    message = str(err.value)
    assert "\n" not in message and all(a in message for a in APPROACHES)
    assert not out.exists()


def test_missing_folder(study1, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        plots.plot_study1(study1, tmp_path / "no" / "such.png")
