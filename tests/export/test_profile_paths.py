"""``export --to profile -o``: where the profiles go (issue 50 item 1).

``-o p.json`` on a run of several profiles wrote ``p-CONFIG-WORKLOAD-N-all.json`` files and ``p.specscope.json``
but no ``p.json``: the file the user named was never written. The producer's schema (specdec_bench's
``speculation_profile.json``) holds one profile per file, so: ``-o FILE.json`` is that file when the run has one
profile and refused (naming the profiles, exit 2) when it has several; ``-o FOLDER`` (a folder, or a name without a
suffix) holds one ``CONFIG-WORKLOAD-LEVEL-PHASE.json`` per profile and ``specscope.json`` beside them. A speculative
config that never drafted has no profile, and a note says so."""

from __future__ import annotations

import json

from clirun import cli
from paths import DATA


def _run(tmp_path, capsys, monkeypatch):
    """base, mtp and eagle (two profiles) and ngram, whose files have no draft count (vLLM's baseline files)."""
    run = tmp_path / "run"
    for stem, config in (
        ("vllm_cpu_base", "base"),
        ("vllm_cpu_mtp", "mtp"),
        ("vllm_mtp", "eagle"),
        ("vllm_base", "ngram"),
    ):
        files = [DATA / "imports" / f"{stem}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    return run


def test_o_file_with_several_profiles_is_refused_naming_them(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path, capsys, monkeypatch)
    code, _, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 2 and "2 profiles" in err and "eagle / imported / N=2 / all" in err and "mtp / imported" in err
    assert f"-o {tmp_path / 'p'}" in err  # the fix: the folder of the same name
    assert not list(tmp_path.glob("p*"))


def test_o_folder_holds_one_file_per_profile_and_says_each(tmp_path, capsys, monkeypatch):
    run = _run(tmp_path, capsys, monkeypatch)
    folder = tmp_path / "profiles"
    code, out, err = cli(["export", run, "--to", "profile", "-o", folder], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["eagle-imported-2-all.json", "mtp-imported-2-all.json", "specscope.json"]
    for name in names:
        assert str(folder / name) in out  # every path written is printed
    assert json.loads((folder / "mtp-imported-2-all.json").read_text())["schema_version"] == "1.0"
    side = json.loads((folder / "specscope.json").read_text())
    assert [p["file"] for p in side["profiles"]] == [str(folder / n) for n in names[:2]]
    # ngram (a method by its name) has no draft count in its files (a baseline's): no profile, and the note says which
    # group and why (absent, not 0)
    assert "note: ngram / imported / N=2: no profile: none of its 2 ok cells carries a draft count" in err


def test_o_file_with_one_profile_is_exactly_that_file(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for stem, config in (("vllm_cpu_base", "base"), ("vllm_cpu_mtp", "mtp")):
        files = [DATA / "imports" / f"{stem}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob("p*")) == ["p.json", "p.specscope.json"]
    assert f"{tmp_path / 'p.json'}  (mtp" in out


def test_a_group_whose_server_reported_zero_drafts_is_named():
    # counters that count drafts and read 0 (an n-gram drafter on prose), against none at all (absent, not 0)
    from cellsummary import make_cell
    from specscope.export.profile import _idle
    from specscope.records import SpecCounters

    zero = SpecCounters(drafts=0.0, draft_tokens=0.0, accepted_tokens=0.0, present=frozenset({"spec"}))
    shape = dict(output_tokens=64, duration_s=2.0, ttft_p50_s=0.1, ttft_p95_s=0.1)
    cells = [make_cell("ngram", "prose", 1, r, 30.0, counters=zero, **shape) for r in (0, 1)]
    cells.append(make_cell("ngram", "prose", 1, 2, 30.0, **shape))
    assert _idle("ngram / prose / N=1", cells) == (
        "ngram / prose / N=1: no profile: its server reported 0 drafts in 2 of 3 ok cells (it did not draft)"
    )


def test_not_a_run_is_said_before_the_missing_o(tmp_path, capsys, monkeypatch):
    """user63: ``export NOT_A_RUN --to profile`` (no -o) asked for -o first; the run is checked first, by the one
    opener of run folders (store.open_run), so the user fixes the folder before learning about -o."""
    from clirun import one_error

    for folder in (tmp_path / "nowhere", DATA / "imports"):
        code, _, err = cli(["export", folder, "--to", "profile"], capsys, monkeypatch, tmp_path)
        line = one_error(err)
        assert code == 2 and line.startswith(f"error: {folder} is not a run folder; found: "), line
        assert "needs -o" not in line, line
