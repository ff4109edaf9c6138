"""Fixes that run: every command line the code can print (audit fixes, vLLM failure signatures, error messages,
alarms, help) and every ``specscope ...`` line of README.md and docs/ parses against the CLI, in the current
vocabulary (no deprecated name); and an audit finding's fix, run on the case's checkpoint, makes the finding go."""

from __future__ import annotations

import contextlib
import io
import shlex
import shutil
from pathlib import Path

import pytest
import typer

from fixcommands import Suggested, collect, from_docs, from_sources, from_tables
from paths import CASES
from specscope.cli import app


def parse_error(line: str) -> str | None:
    """Why ``specscope LINE`` does not parse (None: it does): a usage error, a value the option refuses, an old
    name (a deprecation line), or a line the shell cannot split."""
    from specscope.bench.runfile import given_options
    from specscope.errors import SpecscopeError

    try:
        words = shlex.split(line)
    except ValueError as exc:
        return f"shell: {exc}"
    cmd, name = typer.main.get_command(app), "specscope"
    while hasattr(cmd, "commands") and words and not words[0].startswith("-"):
        sub = cmd.commands.get(words[0])  # type: ignore[attr-defined]
        if sub is None:
            return f"no command {words[0]!r}"
        name, cmd, words = words[0], sub, words[1:]
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            ctx = cmd.make_context(name, list(words))
            if name == "bench":
                given_options(ctx.params)  # bench's values are read by its spec: check them too
    except SpecscopeError as exc:
        return exc.one_line()
    except typer.Exit as exc:  # --help, --version: a command that ends where it should
        return None if exc.exit_code == 0 else f"exit {exc.exit_code}"
    except Exception as exc:  # noqa: BLE001 - any click / typer usage error is the finding
        message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
        return f"{type(exc).__name__}: {message}"
    if "deprecated" in err.getvalue():
        return err.getvalue().strip()
    return None


def test_every_printed_or_documented_command_parses(capsys) -> None:
    found = collect()
    by = {"tables": len(from_tables()), "sources": len(from_sources()), "docs": len(from_docs())}
    with capsys.disabled():
        print(f"\nfix-command test: {len(found)} command lines ({', '.join(f'{k} {v}' for k, v in by.items())})")
    assert by["tables"] >= 15 and by["sources"] >= 10 and by["docs"] >= 20  # the collector finds them
    bad = [f"{s.where}: specscope {s.line} -> {e}" for s in found if (e := parse_error(s.line))]
    assert bad == [], "\n".join(bad)


@pytest.mark.parametrize(
    ("line", "ok"),
    [
        ("surgery patch-config /m --exclude-unquantized mtp. --out NEW_FOLDER", True),
        ("bench --levels 1,2", False),  # an old name
        ("bench --max-concurrency 1,x", False),
        ("surgery, share_global_scale", False),
        ("advise RUN --slo ttft=2us", True),
    ],
)
def test_the_parse_check_can_fail(line: str, ok: bool) -> None:
    from fixcommands import extract

    words = [s.line for s in extract("specscope " + line, "test")]
    assert (words != [] and parse_error(words[0]) is None) is ok, (words, words and parse_error(words[0]))


def _fix_lines(report) -> list[tuple[str, str]]:
    """``(code, command line)`` of every finding whose fix is a surgery command with only NEW_FOLDER to fill."""
    from fixcommands import extract

    out = []
    for f in report.findings:
        for s in extract(f.fix or "", f.code):
            words = shlex.split(s.line)
            placeholders = [w for w in words if w.isupper() and w != "NEW_FOLDER"]
            if words[0] == "surgery" and not placeholders:
                out.append((f.code, s.line))
    return out


CHECKPOINTS = sorted(p.parent for p in CASES.glob("*/checkpoint/config.json")) + sorted(
    p.parent for p in CASES.glob("*/*/config.json") if p.parent.name != "checkpoint"
)


@pytest.mark.parametrize("case", CHECKPOINTS, ids=lambda p: str(p.relative_to(CASES)))
def test_running_an_audit_fix_on_its_case_makes_the_finding_go(case: Path, tmp_path: Path, capsys) -> None:
    from specscope.audit import audit_checkpoint
    from specscope.cli import main

    work = tmp_path / "ckpt"
    shutil.copytree(case, work)
    fixes = _fix_lines(audit_checkpoint(str(work)))
    if not fixes:
        pytest.skip("no finding of this case suggests a surgery command")
    for code, line in fixes:
        out = tmp_path / f"fixed-{code}"
        argv = [w if w != "NEW_FOLDER" else str(out) for w in shlex.split(line)]
        with pytest.raises(SystemExit) as ran:
            main(argv)
        err = capsys.readouterr().err
        assert ran.value.code in (0, 1), (line, err)  # 1: written, but the audit of the result has other errors
        fixed = out if out.exists() else work
        left = [f.code for f in audit_checkpoint(str(fixed)).findings]
        assert code not in left, (case, line, left)


def test_the_audit_fixes_that_run_cover_the_cases(capsys) -> None:
    from specscope.audit import audit_checkpoint

    runnable = {
        c.relative_to(CASES).as_posix(): sorted({code for code, _ in _fix_lines(audit_checkpoint(str(c)))})
        for c in CHECKPOINTS
    }
    with capsys.disabled():
        print(f"\naudit fixes run on their case: {runnable}")
    assert sum(1 for codes in runnable.values() if codes) >= 4
    assert "MTP_UNQUANTIZED_NOT_EXCLUDED" in runnable["C06/checkpoint"]  # patch-config with --exclude-unquantized


def test_a_crash_signature_fix_names_the_level_the_run_showed_stable() -> None:
    from serverfacts import run_facts
    from specscope.report.server_facts import server_tables

    failure = {"code": "illegal_memory_access", "line_number": 7, "explanation": "e.", "fix": "f"}
    facts = run_facts({"mtp": {"log_facts": {"failures": [failure]}}})
    (table,) = [t for t in server_tables(facts, "base", {"mtp": 16}) if t.key == "failures"]
    assert table.cells[0][2].text == "line 7: e. Fix: f (this run measured mtp without a failed cell up to N=16)"
    (table,) = [t for t in server_tables(facts, "base") if t.key == "failures"]
    assert table.cells[0][2].text == "line 7: e. Fix: f"


def test_suggested_is_a_plain_record() -> None:
    assert Suggested("audit X", "here").line == "audit X"


@pytest.mark.parametrize(
    ("model", "fix"),
    [
        ("default", "audit MODEL"),  # the truth server's served name: no checkpoint audit can open
        ({"name": "default"}, "audit MODEL"),
        (None, "audit MODEL"),
        ("Qwen/Qwen3-8B", "audit Qwen/Qwen3-8B"),  # vLLM serves a hub model under its repo id
        ({"name": "m", "path": "/models/m-NVFP4"}, "audit /models/m-NVFP4"),
    ],
)
def test_an_acceptance_alarm_fix_audits_a_checkpoint_not_a_served_name(model, fix) -> None:
    from cellsummary import make_cell
    from fixcommands import extract
    from serverfacts import run_facts
    from specscope.report.alarms import judgement_alarms

    counters = {"drafts": 60.0, "draft_tokens": 120.0, "accepted_tokens": 2.4}  # 2 % accepted: near zero
    shape = {"output_tokens": 64, "duration_s": 6.4, "ttft_p50_s": 0.05, "ttft_p95_s": 0.08}
    cell = make_cell("mtp", "prose", 1, 0, 10.0, counters=counters, **shape)
    facts = run_facts({} if model is None else {"mtp": {"model": model}})
    (alarm,) = judgement_alarms(None, facts, [cell])
    (suggested,) = extract(alarm.fixes[0], alarm.code)
    assert suggested.line == fix and parse_error(suggested.line) is None
    if fix.endswith("MODEL"):  # what the user must choose is named
        assert alarm.fixes[0].endswith("(MODEL: the checkpoint folder or hub repo id that mtp's server loads)")


def test_a_refused_mix_fix_is_the_command_with_the_runs_own_workloads(tmp_path, capsys) -> None:
    from quickrun import make_quick_run
    from specscope.cli import main

    run = make_quick_run(tmp_path / "run")
    for argv in (["advise", str(run), "--mix", "bogus=1"], ["advise", str(run), "--mix", "prose=x"]):
        with pytest.raises(SystemExit) as ended:
            main([*argv, "--width", "120"])
        err = capsys.readouterr().err
        assert ended.value.code == 2, err
        fix = err.strip().rpartition("; fix: ")[2]
        assert fix == f"specscope advise {run} --mix code=1,edit=1,prose=1", err
        assert parse_error(fix.removeprefix("specscope ")) is None
        with pytest.raises(SystemExit) as fixed:
            main(shlex.split(fix)[1:] + ["-f", "json"])
        assert fixed.value.code == 0, capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", str(run), "--mix", "bogus=1"])
    assert capsys.readouterr().err.strip().endswith(f"fix: specscope report {run} --mix code=1,edit=1,prose=1")
