"""One wording for a value an option refuses, whichever command took it (issue 37): ``-f yaml`` and an
out-of-bounds number read ``error: invalid value for FLAG; found: X; expected: Y; fix: Z`` with exit 2, in
``bench`` (its own option spec) as in every other command (typer's checks), and nothing is asked of a server."""

from __future__ import annotations

import pytest

from clirun import cli, one_error

DEAD = "http://127.0.0.1:9"  # nothing listens: a command that reached a server would say "cannot be reached"


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "one of text, markdown, json, html"),
        (["report", "x"], "one of text, markdown, json, html"),
        (["advise", "x"], "one of text, markdown, json, html"),
        (["gate"], "one of text, markdown, json"),
        (["predict", "x"], "one of text, json"),
        (["counters", "a", "b"], "one of text, json"),
        (["audit", "x"], "one of text, json"),
    ],
)
def test_an_unknown_format_reads_the_same_in_every_command(argv, expected, capsys, monkeypatch, tmp_path):
    code, out, err = cli([*argv, "-f", "yaml"], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert one_error(err) == (
        f"error: invalid value for --format; found: yaml; expected: {expected}; fix: e.g. --format text"
    )


@pytest.mark.parametrize(
    ("argv", "flag", "found", "bound", "fix"),
    [
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "--max-tokens", "0", "a value >= 1", "1 or more"),
        (["bench", "--server", f"base={DEAD}", "--dry-run"], "--repeats", "0", "a value >= 1", "1 or more"),
        (["gate"], "--max-tokens", "0", "a value >= 1", "1 or more"),
        (["gate"], "--limit", "0", "a value >= 1", "1 or more"),
        (["predict", "x"], "--max-k", "99", "a value <= 64", "64 or less"),
    ],
)
def test_an_out_of_bounds_value_reads_the_same_in_every_command(
    argv, flag, found, bound, fix, capsys, monkeypatch, tmp_path
):
    code, out, err = cli([*argv, flag, found], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    line = f"error: invalid value for {flag}; found: {found}; expected: {bound}; fix: give {flag} {fix}"
    assert one_error(err) == line


#: every unit parse_bytes reads (its prefix table): decimal and binary, each named once
UNITS = "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB"


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        ("1e999", f"check the number and its unit ({UNITS}), e.g. 17.61GB"),
        ("5XB", f"write the number with a unit ({UNITS}), e.g. --max-bytes 0.85GB"),
    ],
)
def test_a_bad_byte_size_lists_one_set_of_units(value, fix, capsys, monkeypatch, tmp_path):
    code, out, err = cli(["counters", "a", "b", "--max-bytes", value], capsys, monkeypatch, tmp_path)
    assert code == 2 and one_error(err).endswith(f"; fix: {fix}")


def test_every_unit_listed_is_read():
    from specscope.values import BYTE_UNITS, parse_bytes

    assert BYTE_UNITS == UNITS
    decimal = [2 * 1000.0**i for i in range(6)]
    binary = [2 * 1024.0**i for i in range(1, 6)]
    assert [parse_bytes(f"2{u}") for u in UNITS.split(", ")] == decimal + binary


@pytest.mark.parametrize("url", ["http://", "https://", "http:///v1", "http://:8000"])
@pytest.mark.parametrize("dry_run", [["--dry-run"], []])
def test_a_server_url_with_no_host_is_a_bad_value_before_any_request(url, dry_run, capsys, monkeypatch, tmp_path):
    """``--server x=http://`` was tried: "cannot be reached: UnsupportedProtocol"; it names no host to ask."""
    import httpx

    def no_request(*args, **kwargs):
        raise AssertionError("a request was sent")

    monkeypatch.setattr(httpx.Client, "send", no_request)
    argv = ["bench", "--server", f"x={url}", *dry_run, "--out", tmp_path / "runs"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and not (tmp_path / "runs").exists()
    assert one_error(err) == (
        f"error: --server URL is not valid; found: {url}: it names no host; expected: http://HOST:PORT; "
        "fix: fix the URL"
    )


@pytest.mark.parametrize(
    ("argv", "flag", "found"),
    [
        (["counters", "a", "b"], "--timeout", "0"),
        (["counters", "a", "b"], "--max-bytes", "0"),
        (["counters", "a", "b"], "--timeout", "100d"),
        (["predict", "--bandwidth", "1GB/s"], "--bytes-per-step", "0"),
        (["predict", "--bandwidth", "1GB/s", "--draft-bytes", "1GB"], "--bytes-per-step", "1e-300B"),
    ],
)
def test_a_duration_or_size_out_of_bounds_reads_as_every_other_bound(argv, flag, found, capsys, monkeypatch, tmp_path):
    """``--timeout 0`` said "--timeout must be > 0" and ``--timeout 100d`` "--timeout takes a duration from ..."
    where ``--max-tokens 0`` says "invalid value for --max-tokens": a value read but out of bounds, one wording."""
    code, out, err = cli([*argv, flag, found], capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    assert one_error(err).startswith(f"error: invalid value for {flag}; found: {found}")


def test_a_rate_out_of_bounds_reads_as_every_other_bound(capsys, monkeypatch, tmp_path):
    """``--request-rate 1e9`` said "--request-rate takes a rate from 0.001 to 100,000 per second"."""
    argv = ["bench", "--server", f"base={DEAD}", "--dry-run", "--request-rate", "1e9"]
    code, out, err = cli(argv, capsys, monkeypatch, tmp_path)
    assert code == 2 and out == ""
    line = "error: invalid value for --request-rate; found: 1e9; expected: a number per second"
    assert one_error(err).startswith(line)
