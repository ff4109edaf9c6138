"""A ratio (a speedup, a concurrency) keeps its significant digits: 0.0077x, never 0.01x (values.ratio_text)."""

from __future__ import annotations

import pytest

from clirun import cli
from specscope.values import ratio_text


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.2345, "1.23x"),
        (0.1, "0.10x"),
        (0.04, "0.04x"),
        (0.004, "0.004x"),
        (0.0449, "0.045x"),
        (0.0999, "0.10x"),
        (0.013092222976690243, "0.013x"),
        (0.007670605160779667, "0.0077x"),
        (0.0, "0.00x"),
        (-0.004, "-0.004x"),
        (3e-12, "3.0e-12x"),
    ],
)
def test_ratio_text_keeps_significant_digits(x, text):
    assert ratio_text(x) == text


def test_ratio_text_with_three_decimals():
    assert ratio_text(1.23456, 3) == "1.235x" and ratio_text(0.0042, 3) == "0.0042x" and ratio_text(0.05, 3) == "0.050x"


def test_predict_prints_a_tiny_speedup_with_its_digits(tmp_path, capsys, monkeypatch):
    argv = ["predict", "--bytes-per-step", "17.61GB", "--bandwidth", "273GB/s", "--per-position", "0.5"]
    code, out, err = cli([*argv, "--draft-bytes", "2000GB", "--max-k", "2"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert " 1        1.500     0.20   0.013x" in out and " 2        1.750     0.12  0.0077x" in out, out
    assert "0.01x" not in out and "0.00x" not in out
