"""``specscope truth-server``: run the ground-truth streaming server in the foreground.

Exit codes: 0 stopped with SIGTERM; 130 stopped with Ctrl-C (SIGINT), like every command; 2 bad script file,
port or address (one-line error).
"""

from __future__ import annotations

import json

import typer

from specscope.cli.command_options import FirehoseOption, HostOption, TruthPortOption, TruthScriptOption
from specscope.cli.options import OutputOption, TextJsonFormatOption
from specscope.cli.vocab import VocabCommand


def register(app: typer.Typer) -> None:
    @app.command("truth-server", cls=VocabCommand)
    def truth_server(
        port: TruthPortOption = 8123,
        host: HostOption = "127.0.0.1",
        script: TruthScriptOption = None,
        format: TextJsonFormatOption = None,
        output: OutputOption = None,
        firehose: FirehoseOption = False,
    ) -> None:
        """Serve an OpenAI-compatible chat stream whose timing, chunks, failures and /metrics are scripted.

        The address it listens on is printed once it listens, or written to -o FILE (a script's way to learn
        the port --port 0 chose)."""
        from specscope.cli.options import TEXT_JSON
        from specscope.cli.output import emit, report_target
        from specscope.truth.process import read_script
        from specscope.truth.script import TruthScript
        from specscope.truth.server import serve_forever

        fmt, out = report_target(format, output, TEXT_JSON, reads=(script,))
        plan = read_script(script) if script is not None else TruthScript()
        if firehose:
            plan = plan.model_copy(update={"firehose": True})

        def announce(url: str) -> None:
            if fmt == "json":
                emit(json.dumps({"base_url": url}) + "\n", out)
            else:
                emit(f"truth-server listening on {url} (Ctrl-C to stop)\n", out)

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
