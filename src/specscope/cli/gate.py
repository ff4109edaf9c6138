"""``specscope gate``: run the quality gates against servers (or the embedded engine) and store a gate run.

Exit codes: 0 every gate passed; 1 the suite ran and at least one gate failed; 2 bad input (unknown gate or
config, invalid profile, unreachable server, an --out folder holding another kind of run).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import enum
import functools
import json
from pathlib import Path
from typing import Annotated

import typer

from specscope.errors import ConfigError


class GateFormat(str, enum.Enum):
    table = "table"
    markdown = "markdown"
    json = "json"


def _parse_servers(servers: list[str], names: list[str]) -> list[tuple[str, str]]:
    """``URL`` or ``NAME=URL`` per --server; unnamed servers take --config names by position, else server1..."""
    out: list[tuple[str, str]] = []
    for i, spec in enumerate(servers):
        if "=" in spec and not spec.split("=", 1)[0].startswith("http"):
            name, url = spec.split("=", 1)
        else:
            name, url = (names[i] if i < len(names) else f"server{i + 1}"), spec
        if not url.startswith(("http://", "https://")):
            raise ConfigError(
                "--server is not an http URL",
                found=spec,
                expected="http://HOST:PORT or NAME=http://HOST:PORT",
                fix="e.g. --server base=http://127.0.0.1:8000",
            )
        out.append((name, url))
    if len({n for n, _ in out}) != len(out):
        raise ConfigError(
            "two servers share a name",
            found=[n for n, _ in out],
            expected="distinct names",
            fix="name them with NAME=URL or --config",
        )
    return out


@contextlib.contextmanager
def _launch_vllm(recipe, log_path: Path):  # type: ignore[no-untyped-def]
    """Launch vLLM for one recipe while its gates run; yields (base_url, model)."""
    from specscope.launch.process import VllmServer

    with VllmServer(recipe, log_path) as server:
        yield server.base_url, server.model_name


def register(app: typer.Typer) -> None:
    @app.command("gate")
    def gate(
        server: Annotated[
            list[str] | None,
            typer.Option(
                "--server",
                help="OpenAI-compatible server: URL or NAME=URL; repeat to gate and compare several "
                "(the first is the baseline).",
            ),
        ] = None,
        config: Annotated[
            list[str] | None,
            typer.Option(
                "--config",
                help="Config names: with --server, names of the servers by position; with --embedded, "
                "engine configs to start (default base and ngram).",
            ),
        ] = None,
        embedded: Annotated[
            bool, typer.Option("--embedded", help="Start the embedded llama.cpp engine configs.")
        ] = False,
        recipe: Annotated[
            list[str] | None,
            typer.Option(
                "--recipe",
                help="vLLM recipe to launch and gate (repeatable; one server at a time; the first is the "
                "baseline of the base-vs-speculative comparison).",
            ),
        ] = None,
        recipes: Annotated[
            Path | None, typer.Option(help="Recipes TOML for --recipe (default: the shipped file).")
        ] = None,
        profile: Annotated[Path | None, typer.Option(help="Gate profile TOML (overrides the defaults).")] = None,
        gates: Annotated[list[str] | None, typer.Option("--gate", help="Run only this gate (repeatable).")] = None,
        limit: Annotated[int | None, typer.Option(min=1, help="At most this many probes per gate.")] = None,
        max_tokens: Annotated[
            int | None, typer.Option("--max-tokens", min=1, help="Cap every gate's max_tokens (quick runs).")
        ] = None,
        context_tokens: Annotated[
            int | None, typer.Option("--context-tokens", min=64, help="Long-context filler length, tokens.")
        ] = None,
        out: Annotated[Path, typer.Option(help="Folder that receives the run folder.")] = Path("runs"),
        format: Annotated[
            GateFormat, typer.Option("--format", "-f", help="Output: table, markdown or json.")
        ] = GateFormat.table,
        print_profile: Annotated[
            bool, typer.Option("--print-profile", help="Print the default profile and exit.")
        ] = False,
        no_preflight: Annotated[
            bool, typer.Option("--no-preflight", help="--recipe: skip the audit of each recipe's model/draft.")
        ] = False,
    ) -> None:
        """Run the quality gates (thinking termination, arithmetic, code, tool call, long context, repetition,
        base vs speculative) and store the run (manifest.json with kind "gate" + gate.json).

        Exit codes: 0 every gate passed; 1 a gate failed; 2 bad input or an unreachable server."""
        from rich.console import Console

        from specscope.gate import (
            Target,
            load_profile,
            render_gate_markdown,
            render_gate_table,
            render_thinking_table,
            run_gate_suite,
            write_gate_run,
        )
        from specscope.gate.model import GATES
        from specscope.gate.profile import default_profile_text

        if print_profile:
            typer.echo(default_profile_text(), nl=False)
            return
        names = list(config or [])
        checked: dict[str, dict[str, object]] = {}
        if sum((embedded, bool(server), bool(recipe))) != 1:
            raise ConfigError(
                "choose exactly one of --server, --recipe and --embedded",
                found=f"--server {server or []}, --recipe {recipe or []}, --embedded {embedded}",
                expected="one of them",
                fix="pass --server URL, --recipe NAME or --embedded",
            )
        for g in gates or ():
            if g not in GATES:
                raise ConfigError("unknown gate", found=g, expected=", ".join(GATES), fix="pick a gate from the list")
        prof = load_profile(profile)
        overrides: dict[str, dict] = {}
        for g in GATES:
            sec = prof.section(g)
            o: dict = {}
            if limit is not None:
                o["limit"] = limit
            if max_tokens is not None and sec.max_tokens > max_tokens:
                o["max_tokens"] = max_tokens
            if o:
                overrides[g] = o
        if context_tokens is not None:
            overrides.setdefault("long_context", {})["context_tokens"] = context_tokens
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = out / f"gate-{stamp}"
        console = Console(stderr=True)

        def on_result(r) -> None:  # type: ignore[no-untyped-def]
            mark = "[green]pass[/]" if r.check.passed else "[red]FAIL[/]"
            console.print(
                f"{r.config:>10} {r.gate:<12} {r.probe_id:<24} {mark} {r.check.why[:90]}", markup=True, highlight=False
            )

        with contextlib.ExitStack() as stack:
            if embedded:
                from specscope.engine import EmbeddedServer, get_config

                names = names or ["base", "ngram"]
                cfgs = [get_config(n) for n in names]
                # the long-context prompt must fit one slot of the smallest engine context
                room = min(c.ctx_per_slot_tokens for c in cfgs) - prof.long_context.max_tokens - 256
                lc = overrides.setdefault("long_context", {})
                lc["context_tokens"] = max(64, min(lc.get("context_tokens", prof.long_context.context_tokens), room))
                run_dir.mkdir(parents=True, exist_ok=True)
                targets = []
                for c in cfgs:
                    srv = stack.enter_context(EmbeddedServer(c, run_dir / f"engine-{c.name}.log"))
                    targets.append(Target(c.name, srv.base_url, srv.model_name))
            elif recipe:
                from specscope.launch.recipes import load_recipes

                book = load_recipes(recipes)
                chosen = [book.get(r) for r in recipe]  # unknown names fail before anything starts
                from specscope.cli.serve import preflight_recipe

                checked = {
                    n: preflight_recipe(rec, skip=no_preflight, name=n) for n, rec in zip(recipe, chosen, strict=True)
                }
                run_dir.mkdir(parents=True, exist_ok=True)
                targets = [
                    Target(name, launch=functools.partial(_launch_vllm, rec, run_dir / f"vllm-{name}.log"))
                    for name, rec in zip(recipe, chosen)
                ]
            else:
                targets = [Target(n, u) for n, u in _parse_servers(list(server or []), names)]
            if overrides:
                prof = prof.with_overrides(**overrides)
            run = run_gate_suite(targets, prof, gates=list(gates) if gates else None, on_result=on_result)
        write_gate_run(
            run, run_dir, extra_manifest={"embedded": embedded, "recipes": list(recipe or []), "preflight": checked}
        )
        console.print(f"run folder: {run_dir}")
        if format is GateFormat.json:
            typer.echo(json.dumps({"run_folder": str(run_dir), **run.to_dict()}, indent=2, ensure_ascii=False))
        elif format is GateFormat.markdown:
            typer.echo(render_gate_markdown(run), nl=False)
        else:
            stdout = Console()
            stdout.print(render_gate_table(run))
            if any(r.gate == "thinking" for r in run.results):
                stdout.print(render_thinking_table(run))
        if not run.passed:
            raise typer.Exit(1)
