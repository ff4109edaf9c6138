"""The truth server's endpoints that drain on read, in the shapes of TensorRT-LLM's ``trtllm-serve``
(``tensorrt_llm/serve/openai_server.py`` @ 00057725, ``get_iteration_stats`` / ``get_perf_metrics``): with the
``/metrics`` style ``trtllm_json``, ``GET /metrics`` returns the iteration stats recorded since the previous GET and
``GET /perf_metrics`` the finished requests since the previous GET, each list emptied by its read.

Each finished response is recorded as one iteration carrying its whole plan's speculative counts
(``specDecodingStats.numDraftTokens`` = the plan's drafted tokens, ``numAcceptedTokens`` = its accepted tokens,
``numRequestsWithDraftTokens`` = its verify steps), ``numActiveRequests`` / ``numQueuedRequests`` as the server's gauges
stood, and ``iter`` numbered from 1; a GET of ``/metrics`` while nothing runs first records one idle iteration
(``numActiveRequests`` 0), as an engine that polls while idle would. So the sums over any set of GETs are exact.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DrainedLogs"]


class DrainedLogs:
    """The iteration stats and per-request perf metrics not yet read."""

    def __init__(self) -> None:
        self.iterations: list[dict[str, Any]] = []
        self.perf: list[dict[str, Any]] = []
        self.next_iter = 1

    def _iteration(self, running: int, waiting: int, spec: dict[str, Any] | None) -> int:
        n = self.next_iter
        self.next_iter += 1
        item: dict[str, Any] = {"iter": n, "iterLatencyMS": 1.0, "numActiveRequests": running}
        item["numQueuedRequests"] = waiting
        if spec is not None:
            item["specDecodingStats"] = spec
        self.iterations.append(item)
        return n

    def record(self, request_id: str, drafts: int, drafted: int, accepted: int, gauges: tuple[int, int]) -> None:
        """One finished response: its iteration (``gauges`` = running, waiting) and its perf-metrics item."""
        spec = {
            "numDraftTokens": drafted,
            "numAcceptedTokens": accepted,
            "numRequestsWithDraftTokens": drafts,
            "acceptanceLength": 1.0 + accepted / drafts if drafts else 0.0,
            "draftOverhead": 0.0,
            "iterLatencyMS": 1.0,
        }
        n = self._iteration(gauges[0], gauges[1], spec)
        perf: dict[str, Any] = {"first_iter": n, "last_iter": n, "timing_metrics": {}, "kv_cache_metrics": {}}
        if drafted > 0:
            perf["speculative_decoding"] = {
                "acceptance_rate": accepted / drafted,
                "total_accepted_draft_tokens": accepted,
                "total_draft_tokens": drafted,
            }
        self.perf.append({"request_id": request_id, "perf_metrics": perf})

    def drain_iterations(self, running: int, waiting: int) -> list[dict[str, Any]]:
        """The iterations since the last call (an idle one first when nothing runs), emptied."""
        if running == 0 and waiting == 0:
            self._iteration(0, 0, None)
        out, self.iterations = self.iterations, []
        return out

    def drain_perf(self) -> list[dict[str, Any]]:
        """The finished requests since the last call, emptied."""
        out, self.perf = self.perf, []
        return out
