"""``specscope truth-server``: run the ground-truth streaming server in the foreground.

Exit codes: 0 stopped with Ctrl-C; 2 bad script file (one-line error).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from specscope.errors import ConfigError


def register(app: typer.Typer) -> None:
    @app.command("truth-server")
    def truth_server(
        port: int = typer.Option(8123, help="TCP port on 127.0.0.1 (0: any free port)."),
        host: str = typer.Option("127.0.0.1", help="Address to bind."),
        script: Path | None = typer.Option(None, help="JSON TruthScript (default plan: 16 tokens, no delays)."),
        format: str = typer.Option("text", "--format", "-f", help="text or json: how the listening line is printed."),
        firehose: bool = typer.Option(False, "--firehose", help="No delays, raw asyncio server (client benchmarks)."),
    ) -> None:
        """Serve an OpenAI-compatible chat stream whose timing, chunks, failures and /metrics are scripted."""
        from pydantic import ValidationError

        from specscope.truth.script import TruthScript
        from specscope.truth.server import serve_forever

        if format not in ("text", "json"):
            raise ConfigError("unknown --format", found=format, expected="text or json", fix="use -f text or -f json")
        plan = TruthScript()
        if script is not None:
            try:
                plan = TruthScript.model_validate_json(script.read_text())
            except OSError as exc:
                raise ConfigError(
                    "cannot read the script file",
                    found=f"{script}: {exc.strerror}",
                    expected="a readable JSON file",
                    fix="check the --script path",
                ) from exc
            except ValidationError as exc:
                first = exc.errors()[0]
                raise ConfigError(
                    "the script is not a valid TruthScript",
                    found=f"{script}: {'.'.join(map(str, first['loc']))}: {first['msg']}",
                    expected="fields of specscope.truth.script.TruthScript",
                    fix="fix the named field",
                ) from exc

        if firehose:
            plan = plan.model_copy(update={"firehose": True})

        def announce(url: str) -> None:
            if format == "json":
                typer.echo(json.dumps({"base_url": url}))
            else:
                typer.echo(f"truth-server listening on {url} (Ctrl-C to stop)")

        serve_forever(plan, host, port, announce)
