import subprocess
import sys

import specscope


def test_every_public_name_resolves():
    missing = [n for n in specscope.__all__ if getattr(specscope, n, None) is None]
    assert missing == []
    assert specscope.__version__ == "0.1.0"
    assert specscope.run_bench.__module__.startswith("specscope.bench")


def test_import_is_cheap():
    # `import specscope` must not pull the heavy stages in (the CLI imports them per command)
    code = "import sys, specscope; print(sorted(m for m in ('numpy', 'aiohttp', 'safetensors') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
