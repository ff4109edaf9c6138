"""One reading of the k a config name carries (:func:`specscope.kaxis.split_k_name`), one bound (K_MAX 1024).

Two parsers read it before: the k axis's ``NAME-kK`` (``bench --k``, the engine, ``import``'s k check, which also
dropped a k past 64) and the statistics' ``k(\\d{1,5})$`` (the report's and advise's k column, 0..1024). They gave
``mtpk3`` and ``k3`` k 3 in the report and none in ``import``; ``mtp-k0`` k 0 in the report; ``mtp-k65`` and
``mtp-k1024`` a k in the report that ``import`` did not check the file's own against. Now bench naming, the report's
k column and the import's k check give each name the same answer.
"""

from __future__ import annotations

import json

import pytest

from clirun import cli
from paths import DATA
from specscope.kaxis import k_name, parse_k_list, split_k_name

IMPORTS = DATA / "imports"
NINES = "mtp-k" + "9" * 30

#: name -> the k it carries (None: none)
NAMES = {
    "mtpk3": None,  # no "-k": a letter run into digits (mtpk3, network3) is no draft length
    "mtp-k3": 3,
    "ngram-k8": 8,
    "mtp-k0": None,  # 0 drafts nothing: no config of the k axis (--k takes 1..K_MAX)
    "mtp-k65": 65,
    "mtp-k1024": 1024,  # llama.cpp's --spec-ngram-mod-n-max takes up to 1024
    "mtp-k1025": None,
    NINES: None,  # a timestamp after "k"
    "run-k20261206": None,  # a date after "k"
    "k3": None,  # no base
}


def _server_k(run, config, capsys, monkeypatch, tmp_path) -> object:
    """The k column of ``report RUN -f json``'s Servers table for ``config``."""
    code, out, err = cli(["report", run, "-f", "json"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    tables = [t for s in json.loads(out)["sections"] for t in s["tables"] if t.get("key") == "server_facts"]
    (table,) = tables
    col = [c["name"] for c in table["columns"]].index("k")
    (row,) = [v for v in table["values"] if v[0] == config]
    return row[col]


@pytest.mark.parametrize(("name", "k"), NAMES.items(), ids=lambda v: str(v)[:12])
def test_bench_naming_reads_a_names_k_once(name, k):
    base, got = split_k_name(name)
    assert got == k
    if k is None:
        assert base == name
    else:  # the name bench --k writes for this k, and --k takes the k
        assert k_name(base, k) == name and parse_k_list(str(k)) == (k,)


@pytest.mark.parametrize(("name", "k"), NAMES.items(), ids=lambda v: str(v)[:12])
def test_the_reports_k_column_reads_the_name_as_bench_does(name, k, tmp_path, capsys, monkeypatch):
    # a file without its own k (no per-position rates): the report's k is the name's
    run = tmp_path / "run"
    assert (
        cli(
            ["import", IMPORTS / "vllm_cpu_base_r0.json", "--config", "base", "--out", run],
            capsys,
            monkeypatch,
            tmp_path,
        )[0]
        == 0
    )
    doc = json.loads((IMPORTS / "vllm_cpu_mtp_r0.json").read_text())
    del doc["spec_decode_per_position_acceptance_rates"]
    f = tmp_path / "mtp.json"
    f.write_text(json.dumps(doc))
    code, _, err = cli(["import", f, "--config", name, "--out", run], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    assert _server_k(run, name, capsys, monkeypatch, tmp_path) == k


@pytest.mark.parametrize(("name", "k"), NAMES.items(), ids=lambda v: str(v)[:12])
def test_the_imports_k_check_reads_the_name_as_bench_does(name, k, tmp_path, capsys, monkeypatch):
    # vllm_cpu_mtp_r0.json records k 3 (three per-position rates): refused against a name carrying another k,
    # imported under a name carrying 3 or none, and then the report's k is the file's
    run = tmp_path / "run"
    code, _, err = cli(
        ["import", IMPORTS / "vllm_cpu_mtp_r0.json", "--config", name, "--out", run], capsys, monkeypatch, tmp_path
    )
    if k in (None, 3):
        assert code == 0, err
        assert _server_k(run, name, capsys, monkeypatch, tmp_path) == 3
    else:
        assert code == 2
        assert f"--config {name} names k {k}" in err and f"--config {split_k_name(name)[0]}-k3" in err
        assert not run.exists()


@pytest.mark.parametrize("asked", ["0", "1025", "9" * 30])
def test_a_k_asked_for_past_the_bound_is_refused_in_one_line(asked, tmp_path, capsys, monkeypatch):
    code, out, err = cli(
        ["bench", "--configs", "base,draft", "--k", asked, "--out", tmp_path / "run"], capsys, monkeypatch, tmp_path
    )
    assert code == 2 and "Traceback" not in err
    assert f"found: {asked}; expected: comma-separated whole numbers 1..1024; fix: e.g. --k 1,2,4" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("asked", ["²", "9" * 5000])
def test_predict_holdout_not_a_draft_length_is_exit_2(asked, tmp_path, capsys, monkeypatch):
    # was an internal error: "²".isdigit() holds but int() refuses it; 5,000 digits passed isdigit() and int() refused
    # them (ValueError, exit 3 with a crash log)
    from quickrun import make_quick_run

    run = make_quick_run(tmp_path / "run", k_sweep=True)
    code, _, err = cli(["predict", run, "--holdout", asked], capsys, monkeypatch, tmp_path)
    assert code == 2 and "internal error" not in err
    assert "--holdout takes draft lengths in tokens" in err and "expected: comma-separated whole numbers 1..1024" in err
