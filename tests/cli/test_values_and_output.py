"""One parser per kind of value (specscope.values), used by every command with the same units and the same refusal;
output: -o FILE picks the format from its suffix and prints the path, a pipe gets a fixed width and no cut value."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from paths import DATA
from quickrun import make_quick_run
from specscope.cli import main
from specscope.errors import ConfigError
from specscope.values import parse_bandwidth, parse_bytes, parse_duration_s, parse_pairs, parse_rate_list

CSV = str(DATA / "advise" / "one_repeat.csv")
PUBLISHED = ["--per-position", "0.9,0.7", "--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB"]
PUBLISHED += ["--bandwidth", "273GB/s"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 30.0), (30, 30.0), ("500ms", 0.5), ("2us", 2e-06), ("2µs", 2e-06), ("1m30s", 90.0), ("1.5h", 5400.0)],
)
def test_durations(text, seconds) -> None:
    assert parse_duration_s(text) == pytest.approx(seconds, rel=1e-12)


@pytest.mark.parametrize("text", ["", "2x", "-1s", "0", "inf", "nan", "s", "1 m s", True])
def test_a_bad_duration_is_refused_with_found_expected_fix(text) -> None:
    with pytest.raises(ConfigError) as err:
        parse_duration_s(text, "--read-timeout")
    assert err.value.found == text and "e.g. 30s, 500ms" in str(err.value.expected) and err.value.fix


def test_sizes_bandwidths_rates_and_pairs() -> None:
    assert parse_bytes("17.61GB") == 17.61e9 and parse_bytes("1GiB") == 2**30 and parse_bytes(850) == 850.0
    assert parse_bandwidth("273GB/s") == 273e9 and parse_bandwidth("h200", named={"h200": 4.8e12}) == 4.8e12
    assert parse_rate_list("1,2/s,0.5", "--request-rate") == (1.0, 2.0, 0.5)
    assert parse_pairs(["a=1", "b=2"], "--x", "a=1", int) == {"a": 1, "b": 2}
    for bad in (
        lambda: parse_bytes("-3GB"),
        lambda: parse_rate_list("1,1", "--request-rate"),
        lambda: parse_pairs("a=1,a=2", "--x", ""),
    ):
        with pytest.raises(ConfigError):
            bad()


def test_every_duration_option_agrees(capsys) -> None:
    """advise --slo, bench --slo, bench's timeouts, serve --start-timeout and predict --overhead: one parser, one
    unit set, one refusal."""
    code, out, _ = _run(["bench", "--slo", "ttft=2us", "--read-timeout", "2ms", "--print-run-file"], capsys)
    assert code == 0 and "read-timeout = 0.002\n" in out and "ttft = 2e-06\n" in out  # a timeout is >= 1ms
    code, _, err = _run(["advise", "--from-csv", CSV, "--mix", "prose=1", "--slo", "ttft=2us"], capsys)
    assert code == 0 and err == ""  # 2 microseconds: a valid (strict) SLO here too
    refusals = {
        "bench --slo": ["bench", "--slo", "ttft=2x", "--print-run-file"],
        "bench --read-timeout": ["bench", "--read-timeout", "2x", "--print-run-file"],
        "advise --slo": ["advise", "--from-csv", CSV, "--mix", "prose=1", "--slo", "ttft=2x"],
        "serve --start-timeout": ["serve", "--list", "--start-timeout", "2x"],
        "predict --overhead": ["predict", *PUBLISHED, "--overhead", "2x"],
    }
    lines = {}
    for what, argv in refusals.items():
        code, out, err = _run(argv, capsys)
        assert code == 2 and out == "", (what, err)
        lines[what] = err.strip().split("; found: ", 1)[1]
    for slo in ("bench --slo", "advise --slo"):  # an item of NAME=VALUE: named, and its fix's example is an item
        assert lines[slo].startswith("ttft=2x;") and lines[slo].endswith(" (as an item: e.g. --slo ttft=2s)"), slo
        lines[slo] = lines[slo].removeprefix("ttft=").removesuffix(" (as an item: e.g. --slo ttft=2s)")
    assert set(lines.values()) == {
        "2x; expected: a number of seconds or a number with a unit (ns, us, ms, s, m, h, d), e.g. 30s, 500ms, 2us, "
        "1m30s; fix: write a number and a unit, e.g. 30s, 500ms or 2us"
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    return make_quick_run(tmp_path_factory.mktemp("quick") / "run")


@pytest.mark.parametrize(
    ("name", "head"), [("r.md", "# "), ("r.json", "{"), ("r.txt", "headline: "), ("r.html", "<!DOCTYPE")]
)
def test_output_file_takes_its_format_from_the_suffix_and_prints_its_path(run, tmp_path, capsys, name, head) -> None:
    target = tmp_path / name
    code, out, err = _run(["report", str(run), "-o", str(target)], capsys)
    assert code == 0 and out == f"{target}\n" and err == ""
    assert target.read_text().lstrip().startswith(head)


def test_an_output_suffix_that_names_no_format_is_refused(run, tmp_path, capsys) -> None:
    code, out, err = _run(["report", str(run), "-o", str(tmp_path / "r.yaml")], capsys)
    assert code == 2 and "cannot tell the format from the file name; found: r.yaml" in err
    assert not (tmp_path / "r.yaml").exists()
    code, out, _ = _run(["report", str(run), "-o", str(tmp_path / "r.yaml"), "-f", "json"], capsys)
    assert code == 0 and json.loads((tmp_path / "r.yaml").read_text())


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_advise_writes_markdown_and_json(run, capsys, fmt) -> None:
    code, out, err = _run(["advise", str(run), "--mix", "prose=0.2,code=0.3,edit=0.5", "-f", fmt], capsys)
    assert code == 0 and err == ""
    if fmt == "json":
        assert json.loads(out)["baseline"] == "base"
    else:
        assert "## Advice vs base" in out and out.startswith("# specscope advise")


@pytest.mark.parametrize(
    "argv",
    [
        ["report", "{run}"],
        ["advise", "{run}", "--mix", "prose=0.2,code=0.3,edit=0.5"],
        ["predict", "{run}", "--bytes-per-step", "17.61GB"],
        ["advise", "{run}", "--level-mix", "1=0.6,2=0.4"],
    ],
)
def test_to_a_pipe_tables_have_a_fixed_width_and_cut_no_value(run, capsys, monkeypatch, argv) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, err = _run([a.replace("{run}", str(run)) for a in argv], capsys)
    assert code == 0, err
    assert not re.search(r"\S…", out), out  # a cut value ends in an ellipsis; "1.10x … 1.12x" is an interval
    assert max(len(line) for line in out.splitlines()) <= 120


def test_a_bandwidth_outside_what_a_memory_has_is_refused(capsys) -> None:
    """`predict --bandwidth 1e-300B/s` printed "roofline 0.00 tok/s at 0 GB/s; no-draft decode reaches inf% of it"
    (hunt of 2026-12-06); 1e308TB/s overflowed to inf. Both are refused with the range; the bounds are accepted."""
    assert parse_bandwidth("1MB/s") == 1e6 and parse_bandwidth("1PB/s") == 1e15
    for text in ("1e-300B/s", "999kB/s", "1e308TB/s", "2PB/s"):
        with pytest.raises(ConfigError) as ei:
            parse_bandwidth(text)
        assert ei.value.expected.startswith("a size per second from 1MB/s to 1PB/s"), text
    code, out, err = _run(["predict", *PUBLISHED[:-2], "--bandwidth", "1e-300B/s"], capsys)
    assert code == 2 and out == "" and "--bandwidth takes a bandwidth" in err and "inf" not in err


@pytest.mark.parametrize(
    ("text", "found"),
    [("1e300GB", "1e300GB (more bytes than a number holds)"), ("1e400", "1e400 (more bytes than a number holds)")],
)
def test_a_size_past_any_number_is_named_not_sent_to_write_a_unit(text, found):
    """``1e300GB`` overflows to inf: the error told the user to "write the number with a unit", which it had."""
    with pytest.raises(ConfigError) as err:
        parse_bytes(text, "--bytes-per-step")
    assert str(err.value).startswith(f"--bytes-per-step takes a finite byte size; found: {found};")
