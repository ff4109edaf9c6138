"""`surgery compare` with NaN / Inf: counted per side, left out of cosine and max abs diff, valid JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import write_safetensors
from specscope.cli import main
from specscope.surgery import compare_checkpoints


def _pair(tmp_path, a, b):
    for name, arr in (("a", a), ("b", b)):
        (tmp_path / name).mkdir()
        write_safetensors(tmp_path / name / "model.safetensors", {"mtp.w": arr})
    return tmp_path / "a", tmp_path / "b"


def _no_constants(token):
    raise AssertionError(f"bare {token} in JSON output")


def test_ones_vs_all_nan_is_not_a_zero_difference(tmp_path, capsys, monkeypatch):
    a, b = _pair(tmp_path, np.ones((4, 8), np.float32), np.full((4, 8), np.nan, np.float32))
    (row,) = compare_checkpoints(a, b, "mtp.")
    assert (row.nonfinite_a, row.nonfinite_b) == (0, 32)
    assert row.max_abs_diff is None and row.cosine is None and not row.identical
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as info:
        main(["surgery", "compare", str(a), str(b), "--prefix", "mtp.", "--format", "json"])
    assert info.value.code == 0
    rows = json.loads(capsys.readouterr().out, parse_constant=_no_constants)
    assert rows[0]["max_abs_diff"] is None and rows[0]["nonfinite_b"] == 32


def test_some_nonfinite_elements_are_left_out_of_the_figures(tmp_path):
    x = np.arange(1, 9, dtype=np.float32)
    y = x.copy()
    y[0], y[1], y[7] = np.nan, np.inf, 10.0  # the finite positions differ by 2.0 at index 7 only
    a, b = _pair(tmp_path, x, y)
    (row,) = compare_checkpoints(a, b, "mtp.")
    assert (row.nonfinite_a, row.nonfinite_b) == (0, 2)
    assert row.max_abs_diff == 2.0
    xs, ys = x[2:].astype(np.float64), np.array([3, 4, 5, 6, 7, 10], np.float64)
    assert row.cosine == pytest.approx(float(xs @ ys / np.linalg.norm(xs) / np.linalg.norm(ys)), abs=1e-12)


def test_text_output_names_the_nonfinite_counts(tmp_path, capsys, monkeypatch):
    a, b = _pair(tmp_path, np.ones((4, 8), np.float32), np.full((4, 8), np.inf, np.float32))
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    with pytest.raises(SystemExit) as info:
        main(["surgery", "compare", str(a), str(b), "--prefix", "mtp."])
    assert info.value.code == 0
    assert "mtp.w: NaN/Inf elements A 0, B 32 (left out of cosine and max abs diff)" in capsys.readouterr().out


def test_a_blank_side_makes_cosine_undefined_not_zero(tmp_path, capsys, monkeypatch):
    """All zeros vs trained weights is the blank-head signature: the cosine is undefined, and the output says why."""
    a, b = _pair(tmp_path, np.zeros((4, 8), np.float32), np.ones((4, 8), np.float32))
    (row,) = compare_checkpoints(a, b, "mtp.")
    assert (row.cosine, row.all_zero, row.max_abs_diff) == (None, "a", 1.0)
    monkeypatch.delenv("SPECSCOPE_DEBUG", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        main(["surgery", "compare", str(a), str(b), "--prefix", "mtp."])
    out = capsys.readouterr().out
    assert "undefined (A all zeros)" in out and "0.0000000" not in out
    assert "mtp.w: A is all zeros: cosine undefined (a blank, never-trained head looks like this)" in out
