"""Help and error lines that say what the code does: serve reads any engine's log, audit takes .gguf, export's RUN
is required, --workloads names every pack it accepts, --configs' fix names the embedded engine's configs."""

from __future__ import annotations

from clirun import cli
from specscope.engine.config import named_configs
from specscope.workload.packs import PACK_NAMES


def test_serve_summary_says_any_engine(tmp_path, capsys, monkeypatch):
    _, out, _ = cli(["--help"], capsys, monkeypatch, tmp_path)
    assert "parse a vLLM log" not in out and "any engine's" in out


def test_audit_target_help_names_gguf(tmp_path, capsys, monkeypatch):
    _, out, _ = cli(["audit", "--help"], capsys, monkeypatch, tmp_path)
    assert ".gguf" in out


def test_export_run_is_required(tmp_path, capsys, monkeypatch):
    _, out, _ = cli(["export", "--help"], capsys, monkeypatch, tmp_path)
    assert "[RUN]" not in out and "RUN" in out
    code, _, err = cli(["export"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "RUN" in err and "fix:" in err


def test_workloads_help_names_every_pack(tmp_path, capsys, monkeypatch):
    _, out, _ = cli(["bench", "--help"], capsys, monkeypatch, tmp_path)
    assert all(p in out for p in PACK_NAMES)
    code, _, err = cli(["bench", "--workloads", "nosuch"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "edit-prefill" in err


def test_configs_expected_and_fix_agree(tmp_path, capsys, monkeypatch):
    code, _, err = cli(["bench", "--configs", "nosuch"], capsys, monkeypatch, tmp_path)
    fix = err.split("fix:", 1)[1]
    assert code == 2 and all(c in fix for c in named_configs()) and "has base, ngram and draft;" not in err


def test_bench_baseline_help_states_the_default_rule():
    """`--baseline` said '(default: base)'; with no config named base the run takes the first config named like one,
    else the first config (BenchOptions.baseline_config): `--server vanilla=URL --server mtp=URL` runs against
    vanilla (new-user finding, 2026-12-06)."""
    from specscope.bench.spec import BENCH_SPEC
    from specscope.config import BenchOptions

    (opt,) = [o for o in BENCH_SPEC if o.name == "baseline"]
    assert opt.help == (
        "The config speedups are measured against (default: base, else the first config whose name contains base, "
        "else the first config)."
    )
    assert BenchOptions(configs=("mtp", "my-base")).baseline_config() == "my-base"
    assert BenchOptions(configs=("vanilla", "mtp")).baseline_config() == "vanilla"


def test_bench_help_states_the_quick_profile_that_runs(tmp_path, capsys, monkeypatch):
    """`bench --help` said the quick profile was "base, ngram, draft ... prose, code, edit, concurrency 1 and 2"
    while it runs base, ngram-k8, draft x prose, code, repeat at N=1 (`bench --print-run-file`)."""
    _, out, _ = cli(["bench", "--help"], capsys, monkeypatch, tmp_path)
    flat = " ".join(out.replace("│", " ").split())
    assert "configs base, ngram-k8, draft and the A/A control" in flat
    assert "workloads prose, code, repeat, concurrency 1, 4 repeats, 48 tokens per request" in flat
    assert "concurrency 1 and 2" not in flat


def test_configs_help_names_the_k_form_the_default_runs(tmp_path, capsys, monkeypatch):
    """The quick profile runs `ngram-k8`, but --configs' help listed only base, ngram, draft, ... (fresh user)."""
    _, out, _ = cli(["bench", "--help"], capsys, monkeypatch, tmp_path)
    flat = " ".join(out.replace("│", " ").split())
    assert "NAME-kK, e.g. ngram-k8" in flat


def test_bench_help_shows_each_profiles_default_from_the_profiles(tmp_path, capsys, monkeypatch):
    """`--max-tokens N  max_tokens of each request.` said no default; the value comes from the profile (quick 48,
    card 512), so the help shows both, read from ``config.PROFILES`` (fresh-user finding, 2026-12-07)."""
    monkeypatch.setenv("COLUMNS", "400")
    _, out, _ = cli(["bench", "--help"], capsys, monkeypatch, tmp_path)
    lines = {line.split()[1]: " ".join(line.split()) for line in out.splitlines() if line.split()[1:2] != []}
    assert "(default: quick 48; card 512)" in lines["--max-tokens"]
    assert "(default: quick 4; card 6)" in lines["--repeats"]
    assert "(default: quick 1; card 1,2,4,6,8,12,16,24,32,64)" in lines["--max-concurrency"]
    assert "(default: 1)" in lines["--threads"]


def test_bench_help_duration_is_readmes(tmp_path, capsys, monkeypatch):
    """Finding (2026-12-07): the help's first example said "(about 5 minutes)" while README measured `specscope bench`
    alone at 2 min 15 s: the example states README's measure."""
    import re
    from pathlib import Path

    from specscope.cli.bench import EXAMPLES

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    measured = re.search(r"`specscope bench` alone took (\d+ min \d+ s)", readme)
    assert measured, "README no longer states how long `specscope bench` alone took"
    first = EXAMPLES.splitlines()[2]
    assert first.startswith("  specscope bench ") and "5 minutes" not in first
    assert f"({measured.group(1)} on 2 quiet cores)" in first, first
