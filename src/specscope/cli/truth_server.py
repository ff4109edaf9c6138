"""``specscope truth-server``: run the ground-truth streaming server in the foreground.

Exit codes: 0 stopped with SIGTERM; 130 stopped with Ctrl-C (SIGINT), like every command; 2 bad script file,
port or address (one-line error).
"""

from __future__ import annotations

import json

import typer

from specscope.cli.command_options import FirehoseOption, HostOption, TruthPortOption, TruthScriptOption
from specscope.cli.options import TextJsonFormatOption
from specscope.cli.vocab import VocabCommand


def register(app: typer.Typer) -> None:
    @app.command("truth-server", cls=VocabCommand)
    def truth_server(
        port: TruthPortOption = 8123,
        host: HostOption = "127.0.0.1",
        script: TruthScriptOption = None,
        format: TextJsonFormatOption = None,
        firehose: FirehoseOption = False,
    ) -> None:
        """Serve an OpenAI-compatible chat stream whose timing, chunks, failures and /metrics are scripted."""
        from specscope.truth.process import read_script
        from specscope.truth.script import TruthScript
        from specscope.truth.server import serve_forever

        plan = read_script(script) if script is not None else TruthScript()
        if firehose:
            plan = plan.model_copy(update={"firehose": True})

        def announce(url: str) -> None:
            if format == "json":
                typer.echo(json.dumps({"base_url": url}))
            else:
                typer.echo(f"truth-server listening on {url} (Ctrl-C to stop)")

        try:
            serve_forever(plan, host, port, announce)
        except OSError as exc:  # port in use, address not on this machine: the user's choice, not a bug
            from specscope.errors import ConfigError

            raise ConfigError(
                "cannot listen",
                found=f"{host}:{port}: {exc.strerror or exc}",
                expected="a free port on an address of this machine",
                fix="choose another --port (0: any free port) or --host 127.0.0.1",
            ) from None
