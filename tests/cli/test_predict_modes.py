"""``specscope predict``: an option its mode does not read is refused by name (never silently ignored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.ckmaker import dense_config, dense_model, write
from clirun import cli, one_error
from quickrun import make_quick_run

ROOF = ["--bytes-per-step", "1GB", "--bandwidth", "100GB/s"]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--per-position", "0.8,0.6"], "--per-position"),
        (["--measured", "12"], "--measured"),
        (["--lm-head-bytes", "0.1GB"], "--lm-head-bytes"),
    ],
)
def test_run_less_options_with_run_are_refused(extra, named, tmp_path, capsys, monkeypatch):
    run = make_quick_run(tmp_path / "run")
    code, _, err = cli(["predict", run, "--bytes-per-step", "0.27GB", *extra], capsys, monkeypatch, tmp_path)
    assert code == 2 and named in err and f"{named} applies only without RUN" in err and "fix:" in err


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--holdout", "3"], "--holdout needs RUN"),
        (["--baseline", "base"], "--baseline needs RUN"),
        (["--lm-head-bytes", "0.1GB"], "--lm-head-bytes needs --per-position"),
    ],
)
def test_run_options_without_run_are_refused(extra, named, tmp_path, capsys, monkeypatch):
    code, _, err = cli(["predict", *ROOF, *extra], capsys, monkeypatch, tmp_path)
    assert code == 2 and named in err and "fix:" in err


def test_measured_zero_is_refused(tmp_path, capsys, monkeypatch):
    code, out, err = cli(["predict", *ROOF, "--measured", "0"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "--measured must be a finite number >= 0.001" in err and not out


def test_bytes_per_step_with_checkpoint_says_which_wins(tmp_path, capsys, monkeypatch):
    ck = write(tmp_path / "ck", dense_model(2, 64), dense_config(2, 64))
    code, out, err = cli(["predict", "--checkpoint", ck, *ROOF, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert "--bytes-per-step 1GB wins over the byte census of --checkpoint" in err
    assert '"target_bytes": 1000000000.0' in out


@pytest.mark.parametrize("value", ["0", "1025", "1,x"])
def test_a_bad_holdout_names_holdout(value, tmp_path, capsys, monkeypatch):
    """``predict RUN --holdout 0`` said "--k takes draft lengths in tokens ... fix: e.g. --k 1,2,4": an option
    predict does not have. The error names the option given."""
    run = make_quick_run(tmp_path / "run", k_sweep=True)
    code, _, err = cli(["predict", run, "--holdout", value], capsys, monkeypatch, tmp_path)
    assert code == 2
    assert f"error: --holdout takes draft lengths in tokens; found: {value}; " in err
    assert "fix: e.g. --holdout 1,2,4" in err and "--k" not in err


@pytest.mark.parametrize(
    ("extra", "what"),
    [
        (["--overhead", "0s"], "--overhead applies only to the run-less prediction"),
        (["--overhead", "0s", "--compare", "1=20"], "--overhead, --compare apply only to the run-less prediction"),
        (["--measured", "12", "--lm-head-bytes", "0.1GB"], "--measured, --lm-head-bytes apply only without RUN"),
    ],
)
def test_a_run_less_option_with_run_is_refused_in_grammatical_words(extra, what, tmp_path, capsys, monkeypatch):
    """``predict RUN --overhead 0s`` said "--overhead only apply": one option applies, several apply."""
    run = make_quick_run(tmp_path / "run")
    code, _, err = cli(["predict", run, "--bytes-per-step", "0.27GB", *extra], capsys, monkeypatch, tmp_path)
    assert code == 2 and one_error(err).startswith(f"error: {what}; found: ")


@pytest.mark.parametrize(
    ("run", "found"),
    [
        (True, "found: a RUN folder (tests/data/runs/schema1); "),
        (False, "found: no --per-position; "),
    ],
)
def test_a_run_less_option_out_of_its_mode_says_which_was_found(run, found, capsys, monkeypatch, tmp_path):
    """Issue 37 (round 53): ``predict tests/data/runs/schema1 --overhead 0s`` said "found: a RUN folder, or no
    --per-position": which of the two was found is said."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    argv = ["predict", *(["tests/data/runs/schema1"] if run else []), "--overhead", "0s", "--bytes-per-step", "1GB"]
    code, _, err = cli(argv, capsys, monkeypatch, tmp_path)
    want = f"error: --overhead applies only to the run-less prediction; {found}"
    assert code == 2 and one_error(err).startswith(want)


def test_a_run_with_no_usable_baseline_cell_names_the_run_in_its_fix(tmp_path, capsys, monkeypatch):
    """``predict RUN`` on a run whose baseline cells all failed told the user to run ``specscope bench --like RUN``
    with the placeholder ``RUN``, though it had the run's path (fresh-user finding, user59): the fix names it."""
    run = make_quick_run(tmp_path / "failed run", failed=True)
    code, _, err = cli(["predict", run], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2 and "no usable concurrency-1 cell of the baseline 'base'" in line
    assert f"`specscope bench --like '{run}'`" in line, line
    assert "--like RUN" not in line


def test_a_baseline_not_in_the_run_is_named_as_advise_names_it(tmp_path, capsys, monkeypatch):
    """``predict RUN --baseline nope`` said "bytes read per decode step are unknown" on a run whose bytes were known
    once the baseline was right (fresh-user finding, user59): the unknown baseline is refused first, in advise's
    words (one check, the judgement's)."""
    run = make_quick_run(tmp_path / "run")
    code, _, err = cli(["predict", run, "--baseline", "nope"], capsys, monkeypatch, tmp_path)
    line = one_error(err)
    assert code == 2
    assert line.startswith(
        "error: baseline config 'nope' is not in the run; found: nope; expected: one of the run's configs: base, "
    ), line
    code, _, err2 = cli(["advise", run, "--baseline", "nope"], capsys, monkeypatch, tmp_path)
    assert one_error(err2) == line


def test_a_drafter_that_drafts_every_step_gets_no_drafted_share_note(tmp_path, capsys, monkeypatch):
    """The quick run's drafters draft on every verify step (tests/quickrun's counters: generated = steps + accepted
    + one prefill token per request): ``predict`` names no drafted share (it said ``draft/edit: drafted on 91.7% of
    its verify steps`` while the stand-in left the prefill token out)."""
    run = make_quick_run(tmp_path / "run")
    code, out, err = cli(["predict", run], capsys, monkeypatch, tmp_path)
    assert code == 0
    assert "of its verify steps" not in out + err
