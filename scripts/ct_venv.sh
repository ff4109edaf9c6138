#!/usr/bin/env bash
# A separate virtual environment with compressed-tensors (and torch 2.13.0 CPU, which pip takes from this
# machine's local wheel store), used only by tests/surgery/test_ct_roundtrip.py as an independent NVFP4 reader.
# Reused when healthy. Path: $SPECSCOPE_CT_VENV or ~/.cache/specscope-test-venvs/ct.
set -euo pipefail
VENV="${SPECSCOPE_CT_VENV:-$HOME/.cache/specscope-test-venvs/ct}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import compressed_tensors, torch, safetensors" 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check torch==2.13.0 compressed-tensors safetensors numpy \
  2> >(grep -v "^WARNING: Location" >&2) || { echo "compressed-tensors venv could not be built: the round-trip test will be skipped" >&2; exit 0; }
