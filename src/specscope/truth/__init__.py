"""specscope.truth: the ground-truth streaming server (scripted timing, chunks, failures, exact /metrics)."""

from specscope.truth.process import TruthServer
from specscope.truth.script import MetricsPlan, ResponsePlan, TruthScript

__all__ = ["TruthServer", "TruthScript", "ResponsePlan", "MetricsPlan"]
