#!/usr/bin/env bash
# A separate virtual environment with compressed-tensors and NVIDIA ModelOpt (and torch 2.13.0 CPU, which pip takes
# from this machine's local wheel store): the reference NVFP4 exporters the surgery tests compare against
# (tests/surgery/test_ct_roundtrip.py, test_ct_bitexact.py) and benchmarks/quantize_draft.py runs.
# (ModelOpt imports requests without declaring it.) Reused when healthy. Path: $SPECSCOPE_CT_VENV or ~/.cache/specscope-test-venvs/ct.
set -euo pipefail
VENV="${SPECSCOPE_CT_VENV:-$HOME/.cache/specscope-test-venvs/ct}"
if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import compressed_tensors, torch, safetensors, modelopt.torch.quantization.qtensor.nvfp4_tensor" 2>/dev/null; then
  exit 0
fi
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check torch==2.13.0 compressed-tensors nvidia-modelopt requests safetensors numpy \
  2> >(grep -v "^WARNING: Location" >&2) || { echo "compressed-tensors venv could not be built: the round-trip test will be skipped" >&2; exit 0; }
