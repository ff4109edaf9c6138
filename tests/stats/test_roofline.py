"""One roofline: stats.roofline.roofline_tok_s (also stats.predict's and the audit's name for it), on a
hand-computed example."""

from __future__ import annotations

import pytest

from specscope.audit.census import roofline_tokens_per_s
from specscope.errors import ConfigError
from specscope.stats import predict
from specscope.stats.roofline import roofline_tok_s

BANDWIDTH_BYTES_S = 4.8e12  # 4.8 TB/s
TARGET_BYTES_PER_STEP = 16e9  # 16 GB read per decode step


def test_roofline_is_bandwidth_over_bytes_per_step():
    # 4.8e12 bytes/s / 16e9 bytes per token = 300 tokens/s, computed by hand
    assert roofline_tok_s(TARGET_BYTES_PER_STEP, BANDWIDTH_BYTES_S) == 300.0


def test_predict_and_audit_use_the_same_function():
    assert predict.roofline_tok_s is roofline_tok_s
    assert roofline_tokens_per_s(TARGET_BYTES_PER_STEP, BANDWIDTH_BYTES_S) == 300.0
    with pytest.raises(ConfigError):
        roofline_tokens_per_s(0, BANDWIDTH_BYTES_S)
