"""A gate run file with ``inf`` or ``nan`` (TOML reads both as floats): refused by name, exit 2. ``temperature = inf``
was an internal error (the request body could not be written as JSON) after the server had been found."""

from __future__ import annotations

import pytest

from clirun import cli


@pytest.mark.parametrize(
    ("section", "key", "value"),
    [("request", "temperature", "inf"), ("request", "timeout_s", "inf"), ("code", "timeout_s", "nan")],
)
def test_a_value_that_is_not_finite_is_refused(section, key, value, capsys, monkeypatch, tmp_path):
    prof = tmp_path / "p.toml"
    prof.write_text(f"[{section}]\n{key} = {value}\n")
    argv = ["gate", "--server", "http://127.0.0.1:9", "--run-file", prof, "--out", tmp_path / "runs"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"invalid gate profile {prof}; found: {section}.{key}: Input should be a finite number" in err


@pytest.mark.parametrize(
    ("section", "value", "bound"),
    [
        ("request", "1e-9", "greater than or equal to 0.001"),
        ("code", "1e-9", "greater than or equal to 0.001"),
        ("request", "1e9", "less than or equal to 86400"),
    ],
)
def test_a_timeout_outside_1ms_to_1day_is_refused(section, value, bound, capsys, monkeypatch, tmp_path):
    """``[request] timeout_s = 1e-9`` ran every probe into a timeout and blamed the server; the gate's timeouts now
    take the bounds of every other timeout (values.TIMEOUT_BOUNDS_S: 1 ms to 1 day)."""
    prof = tmp_path / "p.toml"
    prof.write_text(f"[{section}]\ntimeout_s = {value}\n")
    argv = ["gate", "--server", "http://127.0.0.1:9", "--run-file", prof, "--out", tmp_path / "runs"]
    code, _out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and f"found: {section}.timeout_s: Input should be {bound}" in err, err
    assert not (tmp_path / "runs").exists()
