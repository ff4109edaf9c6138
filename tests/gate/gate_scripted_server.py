"""A scripted OpenAI-compatible server on 127.0.0.1 (aiohttp.web) that answers each gate probe as a good model
would, or as a broken one would (thinking that never closes, prose that loops), for the gate suite tests.

It recognises a probe by its prompt text (the suite's own data files). ``/tokenize`` counts whitespace-separated
words, so thinking-token counts are exact and known to the test.
"""

from __future__ import annotations

import asyncio
import json
import threading

from aiohttp import web

from hangguard import HANG_S
from specscope.gate.probes import load_suite
from specscope.gate.profile import GateProfile

SOLUTIONS = {
    "is_palindrome": "def is_palindrome(s):\n    t = [c.lower() for c in s if c.isalnum()]\n    return t == t[::-1]\n",
    "running_max": "def running_max(xs):\n    out = []\n    for x in xs:\n        out.append(x if not out else "
    "max(out[-1], x))\n    return out\n",
    "fizzbuzz": (
        "def fizzbuzz(n):\n    r = []\n    for i in range(1, n + 1):\n        s = ('Fizz' if i % 3 == 0 else "
        "'') + ('Buzz' if i % 5 == 0 else '')\n"
        "        r.append(s or str(i))\n    return r\n"
    ),
    "merge_intervals": (
        "def merge_intervals(iv):\n    out = []\n    for a, b in sorted(iv):\n        if out and a <= out[-1][1]:\n"
        "            out[-1][1] = max(out[-1][1], b)\n        else:\n            out.append([a, b])\n    return out\n"
    ),
}

PROSE = (
    "The keeper climbed the stairs before dawn, counting the steps out of habit. Outside, the sea was grey and "
    "restless, and a gull watched him from the railing. He trimmed the wick, wiped the lens, and wrote the wind "
    "direction in the log."
)
LOOP = "The keeper climbed the stairs and looked at the sea. " * 30
REASONING = "First I will work through this carefully step by step and check the arithmetic twice."


class ScriptedServer:
    """Run with ``with ScriptedServer(mode) as srv: srv.base_url``. ``mode``: ``good``, ``broken`` or ``slow``.

    ``slow``: a good model that takes 30 s per answer (a run to interrupt).

    ``broken``: thinking never closes (finish ``length``), prose loops, compare answers reworded on the odd
    probes (same final number); every other gate is answered right.
    """

    def __init__(self, mode: str, profile: GateProfile | None = None):
        self.mode = mode
        self.requests: list[dict] = []
        self.auth: list[str | None] = []  # each chat request's Authorization header
        suite = load_suite(profile or GateProfile())
        self.by_prompt = {}
        for gate, probes in suite.items():
            for i, p in enumerate(probes):
                key = p.messages[-1]["content"]
                if gate == "long_context":  # filler length varies with the tokenizer; the question ends it
                    self.long_context = (gate, i, p)
                    key = key[key.rindex("\n\n") :]
                self.by_prompt[key] = (gate, i, p)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""

    def _lookup(self, content: str):
        if content in self.by_prompt:
            return self.by_prompt[content]
        if "\n\n" in content and content[content.rindex("\n\n") :] in self.by_prompt:
            return self.by_prompt[content[content.rindex("\n\n") :]]
        return None

    def _answer(self, req: dict) -> dict:
        content = req["messages"][-1]["content"]
        found = self._lookup(content)
        msg: dict = {"role": "assistant", "content": ""}
        finish = "stop"
        tokens = None
        if found is None:
            msg["content"] = "I do not know."
        else:
            gate, i, probe = found
            exp = probe.expected
            if gate == "thinking":
                if self.mode == "broken":
                    msg["reasoning_content"] = (REASONING + " ") * (req["max_tokens"] // 15 + 1)
                    finish = "length"
                else:
                    msg["reasoning_content"] = REASONING
                    msg["content"] = f"The final answer is {exp['answer']}."
            elif gate in ("arithmetic", "compare"):
                text = f"Working it out carefully.\nAnswer: {exp['answer']}"
                if gate == "compare" and self.mode == "broken" and i % 2 == 1:
                    text = f"Let me compute.\nAnswer: {exp['answer']}"
                msg["content"] = text
                tokens = text.split(" ")
            elif gate == "code":
                msg["content"] = "Here it is:\n```python\n" + SOLUTIONS[exp["function"]] + "```\n"
            elif gate == "tool_call":
                msg["tool_calls"] = [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": exp["tool"], "arguments": json.dumps(exp["arguments"])},
                    }
                ]
                finish = "tool_calls"
            elif gate == "long_context":
                msg["content"] = exp["answer"]
            elif gate == "repetition":
                msg["content"] = LOOP if self.mode == "broken" else PROSE
                finish = "length"
        all_text = (msg.get("reasoning_content") or "") + " " + (msg.get("content") or "")
        completion = len(all_text.split())
        if finish == "length":
            completion = req["max_tokens"]
        choice = {"index": 0, "message": msg, "finish_reason": finish}
        if req.get("logprobs") and tokens is not None:
            choice["logprobs"] = {"content": [{"token": t, "logprob": 0.0} for t in tokens]}
        return {
            "id": "x",
            "object": "chat.completion",
            "model": "scripted",
            "choices": [choice],
            "usage": {
                "prompt_tokens": len(content.split()),
                "completion_tokens": completion,
                "total_tokens": completion + len(content.split()),
            },
        }

    async def _chat(self, request: web.Request) -> web.Response:
        req = await request.json()
        self.requests.append(req)
        self.auth.append(request.headers.get("Authorization"))
        if self.mode == "slow":
            await asyncio.sleep(30.0)
        return web.json_response(self._answer(req))

    async def _models(self, _request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": "scripted", "object": "model"}]})

    async def _tokenize(self, request: web.Request) -> web.Response:
        body = await request.json()
        text = body.get("prompt") or body.get("content") or ""
        words = text.split()
        return web.json_response({"count": len(words), "tokens": list(range(len(words)))})

    def __enter__(self) -> ScriptedServer:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application(client_max_size=16 * 1024 * 1024)
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            app.router.add_post("/tokenize", self._tokenize)
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            site = web.TCPSite(runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            self.base_url = f"http://127.0.0.1:{port}"
            self._runner = runner
            ready.set()
            loop.run_forever()
            loop.run_until_complete(runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        if not ready.wait(HANG_S):
            raise RuntimeError("scripted server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._thread is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
