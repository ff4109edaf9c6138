"""Old option names (docs/cli.md): each still works, as a hidden alias printing one deprecation line, means what its
new name means, and is written nowhere in src but in its alias declaration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paths import DATA
from specscope.bench.spec import BENCH_SPEC
from specscope.cli import main
from specscope.cli.vocab import ALIASES, FORMAT_VALUE_ALIASES, aliases_of, rewrite_args

SRC = Path(__file__).resolve().parents[2] / "src" / "specscope"
OLD = sorted({a.old for aliases in ALIASES.values() for a in aliases} | {old for o in BENCH_SPEC for old in o.aliases})
#: an old name of one command that is the current name of the same idea in bench (gate's --profile FILE is now
#: --run-file; bench's --profile NAME stays): only gate's code is searched for it
SHARED = {"--profile": "gate"}
# an old bench name that another command takes as its own current option: `import --config NAME` (one config per
# import, issue 38's spelling), in the importers, its command module, where one command's options are declared and
# predict's fix that runs it (an imported run without one-stream cells)
# a peer tool's own flag of the same spelling, named where its result file is read (`aiperf profile --concurrency N`)
CURRENT_ELSEWHERE = {
    "--config": {"importers", "import_.py", "command_options.py", "predict_run.py"},
    "--concurrency": {"importers"},
}
CSV = str(DATA / "advise" / "one_repeat.csv")
PUBLISHED = ["--per-position", "0.9,0.7", "--bytes-per-step", "17.61GB", "--draft-bytes", "0.85GB"]
PUBLISHED += ["--bandwidth", "273GB/s"]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["bench", "--levels", "2,1"], ["bench", "--max-concurrency", "2,1"]),
        (["bench", "--rates=1,2"], ["bench", "--request-rate", "1,2"]),
        (["bench", "--context", "2k"], ["bench", "--context-tokens", "2k"]),
        (["bench", "--config", "base", "--config", "draft"], ["bench", "--configs", "base", "--configs", "draft"]),
    ],
)
def test_old_bench_names_mean_the_new_ones(old, new, capsys) -> None:
    code, out, err = _run([*old, "--print-run-file"], capsys)
    code_new, out_new, err_new = _run([*new, "--print-run-file"], capsys)
    assert code == code_new == 0 and out == out_new and err_new == ""
    (line,) = err.splitlines()  # one deprecation line, however often the old name was given
    assert line == f"warning: {old[1].split('=')[0]} is deprecated: use {new[1]}"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["--concurrency", "1"], ["--max-concurrency", "1"]),
        (["--slo-ttft", "2us"], ["--slo", "ttft=2us"]),
        (["--config", "ngram", "--acceptance", "0.5"], ["--acceptance-config", "ngram", "--acceptance", "0.5"]),
    ],
)
def test_old_advise_names_mean_the_new_ones(old, new, capsys) -> None:
    code, out, err = _run(["advise", "--from-csv", CSV, "--mix", "prose=1", *old], capsys)
    code_new, out_new, _ = _run(["advise", "--from-csv", CSV, "--mix", "prose=1", *new], capsys)
    assert code == code_new and out == out_new, err
    assert err.startswith(f"warning: {old[0]} is deprecated: use {new[0]}\n")


def test_old_predict_serve_gate_and_format_names(capsys) -> None:
    code, out, err = _run(["predict", *PUBLISHED, "--overhead-ms", "7.5"], capsys)
    assert (code, out) == _run(["predict", *PUBLISHED, "--overhead", "7.5ms"], capsys)[:2]
    assert err == "warning: --overhead-ms is deprecated: use --overhead\n"
    code, out, err = _run(["serve", "--list", "--start-timeout-s", "5"], capsys)
    assert code == 0 and err == "warning: --start-timeout-s is deprecated: use --start-timeout\n"
    code, out, err = _run(["gate", "--print-profile"], capsys)
    assert code == 0 and out == _run(["gate", "--print-run-file"], capsys)[1] and "deprecated" in err
    code, out, err = _run(["audit", "/nonexistent-checkpoint", "-f", "table"], capsys)
    assert err.startswith("warning: -f table is deprecated: use -f text\n") and code == 2


def test_every_alias_rewrites_to_a_current_flag() -> None:
    warned: list[str] = []
    assert rewrite_args(["--recipe", "m", "--recipe=n"], aliases_of("gate"), warned.append) == [
        "--configs",
        "m",
        "--launch",
        "vllm",
        "--configs",
        "n",
        "--launch",
        "vllm",
    ]
    assert rewrite_args(["--embedded", "--", "--embedded"], aliases_of("gate"), warned.append) == [
        "--launch",
        "embedded",
        "--",
        "--embedded",
    ]
    assert warned == [
        "warning: --recipe is deprecated: use --configs --launch vllm",
        "warning: --embedded is deprecated: use --launch",
    ]
    assert set(FORMAT_VALUE_ALIASES) == {"table"}


def test_old_names_are_written_only_in_their_alias_declarations() -> None:
    allowed = {SRC / "cli" / "vocab.py", SRC / "bench" / "spec.py"}
    found = []
    for path in SRC.rglob("*"):
        if path.suffix not in (".py", ".toml") or path in allowed:
            continue
        text = path.read_text(encoding="utf-8")
        for old in OLD:
            if old in SHARED and SHARED[old] not in path.parts:
                continue
            if set(path.parts) & CURRENT_ELSEWHERE.get(old, set()):
                continue
            for m in re.finditer(rf"{re.escape(old)}(?![\w-])", text):
                found.append(f"{path.relative_to(SRC)}:{text.count(chr(10), 0, m.start()) + 1}: {old}")
    assert found == [], found
    spec_text = (SRC / "bench" / "spec.py").read_text()
    assert all(f'aliases=("{old}",)' in spec_text for o in BENCH_SPEC for old in o.aliases)
