"""``bench --print-run-file`` prints the configs and workloads in force (docs/cli.md: every matrix option in force is
printed), with and without ``--like RUN``, and ``bench --run-file`` reads the printed file back to the same matrix.
Before: neither key was printed (the two matrix options had no ``field``, which in_force_values required)."""

from __future__ import annotations

from clirun import cli
from quickrun import make_quick_run
from specscope.bench.runfile import given_options, read_run_file
from specscope.bench.setup import matrix_in_force
from specscope.bench.spec import BENCH_SPEC
from specscope.cli.vocab import key_aliases

DEFAULT_MATRIX = (
    'configs = [\n    "base",\n    "ngram-k8",\n    "draft",\n]\n'
    'workloads = [\n    "prose",\n    "code",\n    "repeat",\n]\n'
)


def _printed(argv, capsys, monkeypatch, tmp_path) -> str:
    code, out, err = cli(["bench", *argv, "--print-run-file"], capsys, monkeypatch, tmp_path)
    assert code == 0, err
    return out


def _in_force(options) -> dict:
    """Every option's value in force in ``options`` (a default left as None and the same default written out agree)."""
    return {o.name: o.in_force(options) for o in BENCH_SPEC if o.field or o.effective}


def _matrix_of(argv_given: dict, tmp_path, text: str):
    """The matrix in force for ``argv_given``, and for the printed ``text`` read back as a run file."""
    f = tmp_path / "printed.toml"
    f.write_text(text)
    back = given_options({}, run_file=read_run_file(f, BENCH_SPEC, aliases=key_aliases("bench")), spec=BENCH_SPEC)
    first = matrix_in_force(given_options(argv_given, spec=BENCH_SPEC), BENCH_SPEC)
    return _in_force(first), _in_force(matrix_in_force(back, BENCH_SPEC))


def test_defaults_print_configs_and_workloads_and_read_back_the_same(capsys, monkeypatch, tmp_path):
    text = _printed([], capsys, monkeypatch, tmp_path)
    assert DEFAULT_MATRIX in text
    first, back = _matrix_of({}, tmp_path, text)
    assert (back["configs"], back["workloads"]) == (["base", "ngram-k8", "draft"], ["prose", "code", "repeat"])
    assert back == first
    assert _printed(["--run-file", str(tmp_path / "printed.toml")], capsys, monkeypatch, tmp_path) == text


def test_servers_name_the_printed_configs(capsys, monkeypatch, tmp_path):
    argv = ["--server", "a=http://127.0.0.1:9", "--server", "b=http://127.0.0.1:10"]
    text = _printed(argv, capsys, monkeypatch, tmp_path)
    assert 'configs = [\n    "a",\n    "b",\n]\n' in text
    first, back = _matrix_of({"server": argv[1::2]}, tmp_path, text)
    assert back["configs"] == ["a", "b"] and back == first


def test_like_prints_the_stored_runs_configs_and_workloads(capsys, monkeypatch, tmp_path):
    run = make_quick_run(tmp_path / "runs")
    assert DEFAULT_MATRIX in _printed(["--like", str(run)], capsys, monkeypatch, tmp_path)


def test_a_workload_file_names_the_workloads_so_no_packs_are_printed(capsys, monkeypatch, tmp_path):
    """The file's name is the matrix's workload: printing the default packs too would add them on read-back."""
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n')
    text = _printed(["--workload", str(mine)], capsys, monkeypatch, tmp_path)
    assert "\nworkloads = " not in text and "configs = [" in text
    (tmp_path / "printed.toml").write_text(text)
    assert _printed(["--run-file", str(tmp_path / "printed.toml")], capsys, monkeypatch, tmp_path) == text
