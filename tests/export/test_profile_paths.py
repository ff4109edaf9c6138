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
    """base, mtp and eagle (two profiles) and ngram, whose server reported no drafts (vLLM's baseline files)."""
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
    # ngram never drafted: no profile, and the note says which group and why
    assert "note: ngram / imported / N=2: no profile: its server reported 0 drafts in its 2 ok cells" in err


def test_o_file_with_one_profile_is_exactly_that_file(tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    for stem, config in (("vllm_cpu_base", "base"), ("vllm_cpu_mtp", "mtp")):
        files = [DATA / "imports" / f"{stem}_r{i}.json" for i in (0, 1)]
        assert cli(["import", *files, "--config", config, "--out", run], capsys, monkeypatch, tmp_path)[0] == 0
    code, out, err = cli(["export", run, "--to", "profile", "-o", tmp_path / "p.json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.glob("p*")) == ["p.json", "p.specscope.json"]
    assert f"{tmp_path / 'p.json'}  (mtp" in out
