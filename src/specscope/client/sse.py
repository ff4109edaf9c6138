"""SSE framing of one response body, incrementally: body bytes in, each complete event's ``data`` out.

The rules are the WHATWG event-stream format (HTML Living Standard, "Server-sent events", 9.2.6 "Interpreting an
event stream"): lines end with CRLF, LF or CR; ``field: value`` lines (one leading space of the value dropped), ``:``
comments ignored; a blank line dispatches the event, whose data is its ``data`` lines joined with LF; an event with
no data is not dispatched; a leading U+FEFF of the stream is dropped; an incomplete event at the end is discarded.
Only ``data`` matters here (OpenAI-style streams put everything there; ``event`` / ``id`` / ``retry`` are read and
ignored, as before), with one engine's field besides: llama.cpp's server before PR #16109 (e.g. b5630,
tools/server/server.cpp: ``server_sent_event(sink, "error", error_data)`` then ``data: [DONE]``) wrote an in-stream
error as a line ``error: {"code", "message", "type"}``, which the WHATWG rules ignore (an unknown field), so the
server's message was lost; :func:`error_field_as_data` reads that line as the data ``{"error": <its value>}``, the
envelope vLLM and SGLang send (:mod:`specscope.client.events`).

Two paths give the same events (tests/client/test_sse.py checks them against httpx-sse's decoders on random bodies):

- fast (every body a known engine sends, each a run of ``data: <json>\\n\\n``): per body read, a handful of C-level
  bytes operations (``rfind``, ``split(b"\\n\\ndata: ")``, ``count``) frame all of the read's complete events at
  once, with no Python code per event; the read is taken only when the count of LF bytes proves that every event in
  it is exactly one ``data:`` line (see :meth:`SSEFramer.feed`);
- general (anything else: CR line ends, comments, other fields, multi-line data, a leading BOM): httpx-sse's line
  and event decoders (``httpx_sse._decoders``), from that read to the end of the stream.

Measured (benchmarks/client_overhead.py ``--profile``): the fast path frames an event in ~0.2 us, the general
path took ~2 us.

Bounds: bytes that have not yet completed an event are held until they do; more than ``max_event_bytes`` of them
is a runaway (:attr:`SSEFramer.overflow`; the caller cuts the stream), so a server that never ends an event cannot
grow the client's memory.
"""

from __future__ import annotations

import codecs
import json

from httpx_sse._decoders import SSEDecoder, SSELineDecoder

__all__ = ["SSEFramer", "error_field_as_data"]


def error_field_as_data(line: str) -> str:
    """One decoded SSE line, with llama.cpp's ``error: <value>`` field (module doc) turned into the data line
    ``data: {"error": <value>}``: a JSON object or string value as it is, anything else as the text written. Every
    other line comes back unchanged. Only the general path sees such a line (the fast path's proof refuses it)."""
    if not line.startswith("error:"):
        return line
    text = line[6:].removeprefix(" ")
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if not isinstance(value, dict | str):
        value = text
    return "data: " + json.dumps({"error": value}, separators=(",", ":"))


_SEP = b"\n\ndata: "


class SSEFramer:
    """Incremental SSE framing for one stream (see the module doc).

    Args:
        max_event_bytes: most bytes held for one unfinished event (the runaway bound).
    """

    __slots__ = (
        "_held",
        "_held_bytes",
        "_lines",
        "_events",
        "_utf8",
        "_since_event",
        "_fresh",
        "max_event_bytes",
        "general",
        "overflow",
    )

    def __init__(self, max_event_bytes: int) -> None:
        self._held: list[bytes] = []  # bytes of the unfinished event, in order (joined only when it can end)
        self._held_bytes = 0
        self._fresh = True  # the held bytes start the stream (a leading BOM there is the stream's)
        self._lines: SSELineDecoder | None = None
        self._events: SSEDecoder | None = None
        self._utf8: codecs.IncrementalDecoder | None = None
        self._since_event = 0
        self.max_event_bytes = max_event_bytes
        #: True once this stream needed the general path (it stays there).
        self.general = False
        #: True once more than ``max_event_bytes`` were held for one unfinished event (a runaway).
        self.overflow = False

    def feed(self, data: bytes) -> list[bytes]:
        """The ``data`` of every event that ``data`` completes, in order (``[]`` when none); sets :attr:`overflow`
        when more than ``max_event_bytes`` are then held for one unfinished event.

        A read with no LF and no CR cannot end the held event, so it is only held (no copy: an event that takes many
        reads costs no quadratic joining).

        Fast path proof: let ``buf`` be the held bytes plus ``data``, holding no CR (so LF alone ends lines), and
        ``P`` its prefix up to the last LF LF. When ``P`` starts with ``data: `` and splitting ``P[6:-2]`` on
        LF LF ``data: `` gives ``k`` pieces, ``P`` is ``data: ``, the pieces joined by that separator, LF LF; so it
        holds ``2k`` LF bytes plus those inside the pieces, and ``P.count(LF) == 2k`` proves that no piece holds a
        LF: ``P`` is exactly ``k`` events of one ``data:`` line each, and the pieces are their data.
        """
        if self.general:
            return self._general(data)
        held = self._held
        if held:
            if b"\n" not in data and b"\r" not in data:  # it cannot end the held event: hold it too, no copy
                held.append(data)
                self._held_bytes += len(data)
                self.overflow = self._held_bytes > self.max_event_bytes
                return []
            held.append(data)
            buf = b"".join(held)
            held.clear()
        else:
            buf = data
        if b"\r" not in buf:  # then LF alone ends lines, and LF LF ends events
            end = buf.rfind(b"\n\n") + 2
            if end < 2:  # no event completed yet
                held.append(buf)
                self._held_bytes = len(buf)
                self.overflow = len(buf) > self.max_event_bytes
                return []
            if buf.startswith(b"data: "):
                pieces = buf[6 : end - 2].split(_SEP)
                if buf.count(b"\n", 0, end) == 2 * len(pieces):
                    if end < len(buf):
                        held.append(buf[end:])
                    self._held_bytes = len(buf) - end
                    self._fresh = False
                    self.overflow = self._held_bytes > self.max_event_bytes
                    return pieces
        self.general = True  # from here on, the WHATWG line rules; the held bytes go first
        self._lines, self._events = SSELineDecoder(), SSEDecoder()
        self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
        return self._general(buf.removeprefix(b"\xef\xbb\xbf") if self._fresh else buf)

    def end(self) -> list[bytes]:
        """The ``data`` of an event that the body's last byte completed, at the end of the body.

        A CR ends a line, but the line decoder holds a trailing CR to see whether LF follows (CRLF); with CR-only
        line ends the body's final CR is the blank line that dispatches its last event (``data: [DONE]\r\r``), so
        it is taken here, when no byte can follow. A last line with no line end is still incomplete: nothing is
        dispatched for it (the WHATWG rule)."""
        if not self.general or self._lines is None or self._events is None:
            return []
        out: list[bytes] = []
        for line in self._lines.flush():
            ev = self._events.decode(error_field_as_data(line))
            if ev is not None:
                out.append(ev.data.encode())
        return out

    def _general(self, data: bytes) -> list[bytes]:
        assert self._lines is not None and self._events is not None and self._utf8 is not None
        out: list[bytes] = []
        text = self._utf8.decode(data)
        self._since_event += len(data)  # bytes since the last event ended (counted per read: a bound, not exact)
        for line in self._lines.decode(text):
            ev = self._events.decode(error_field_as_data(line))
            if ev is not None:
                out.append(ev.data.encode())  # bytes, like the fast path's (text here: already U+FFFD-clean)
                self._since_event = 0
        self.overflow = self._since_event > self.max_event_bytes
        return out
