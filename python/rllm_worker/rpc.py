"""The worker's side of the RPC of PROTOCOL.md: newline-delimited JSON over a Unix socket.

    request  {"id": int, "method": str, "params": {...}}
    reply    {"id": int, "result": {...}}   or   {"id": int, "error": {"type", "message", "traceback"}}
    event    {"event": name, ...}

A handler is `fn(params, request_id) -> dict | DEFER`: its dict is the reply; DEFER means it replies
later with `reply()`/`fail()` (the sampler answers `generate` when its sequences end). An exception
in a handler becomes an error reply carrying the Python traceback, and the worker keeps serving. A
malformed line (not JSON, no integer id, unknown method, params missing or not an object) gets a
`ProtocolError` reply (id null when the line had none). `shutdown` is built in (reply, then stop);
a role that registers its own must call `stop()`.

Only the standard library here: the worker connects before it imports torch, so that it can report
a missing package over the socket.
"""

from __future__ import annotations

import json
import math
import os
import select
import socket
import threading
import traceback
from collections.abc import Callable

DEFER = object()


class ProtocolError(Exception):
    """A request the worker cannot read or route: bad framing, unknown method, ill-typed params."""


Handler = Callable[[dict, int], "dict | object"]


def _finite(x):
    """JSON has no NaN/Infinity: non-finite floats travel as null."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


class Server:
    def __init__(self, socket_path: str, exchange_dir: str, role: str):
        self.role = role
        self.exchange_dir = exchange_dir
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.connect(socket_path)
        self._buffer = b""
        self._handlers: dict[str, Handler] = {"shutdown": self._shutdown}
        self._write_lock = threading.Lock()
        self._running = True
        self._eof = False
        self._files = 0

    # ── sending ──────────────────────────────────────────────────────────────────────────────
    def _send(self, message: dict) -> None:
        try:
            line = json.dumps(message, allow_nan=False)
        except ValueError:
            line = json.dumps(_finite(message), allow_nan=False)
        with self._write_lock:
            self._sock.sendall(line.encode() + b"\n")

    def reply(self, request_id: int, result: dict) -> None:
        self._send({"id": request_id, "result": result})

    def fail(self, request_id: int | None, exc: BaseException) -> None:
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self._send({"id": request_id, "error": {"type": type(exc).__name__, "message": str(exc), "traceback": tb}})

    def event(self, name: str, **fields) -> None:
        self._send({"event": name, **fields})

    def exchange_path(self, stem: str) -> str:
        """A fresh file path in the exchange directory (".safetensors" added when `stem` has no
        extension); the TypeScript side deletes it when the call ends."""
        self._files += 1
        name = f"{self.role}-{os.getpid()}-{self._files}-{stem}"
        return os.path.join(self.exchange_dir, name if "." in stem else name + ".safetensors")

    # ── receiving ────────────────────────────────────────────────────────────────────────────
    def method(self, name: str):
        """Decorator: registers `fn(params, request_id) -> dict | DEFER` as method `name`."""

        def register(fn: Handler) -> Handler:
            self._handlers[name] = fn
            return fn

        return register

    def stop(self) -> None:
        """Ends serve() after the current message."""
        self._running = False

    def _shutdown(self, params: dict, request_id: int) -> dict:
        self.stop()
        return {}

    def _read(self, block: bool) -> list[bytes]:
        """Complete lines that have arrived (waiting for at least one when `block`)."""
        while True:
            ready, _, _ = select.select([self._sock], [], [], None if block else 0)
            if ready:
                chunk = self._sock.recv(1 << 20)
                if not chunk:
                    self._eof = True
                self._buffer += chunk
            *lines, self._buffer = self._buffer.split(b"\n")
            if lines or not block or self._eof:
                return lines

    def _parse(self, line: bytes) -> tuple[int, str, dict]:
        try:
            msg = json.loads(line)
        except ValueError as e:
            raise ProtocolError(f"a request line is not JSON ({e}): {line[:200]!r}") from None
        if not isinstance(msg, dict) or isinstance(msg.get("id"), bool) or not isinstance(msg.get("id"), int):
            raise ProtocolError(f"a request needs an integer 'id': {line[:200]!r}")
        method, params = msg.get("method"), msg.get("params")
        if not isinstance(method, str):
            raise ProtocolError(f"request {msg['id']} has no 'method' string")
        if method not in self._handlers:
            raise ProtocolError(
                f"the {self.role} worker has no method {method!r} (it has: {', '.join(sorted(self._handlers))})"
            )
        if not isinstance(params, dict):
            raise ProtocolError(f"request {msg['id']} ({method}) needs 'params', an object; got {params!r}")
        return msg["id"], method, params

    def _dispatch(self, line: bytes) -> None:
        if not line.strip():
            return
        request_id = None
        try:
            try:
                request_id = json.loads(line).get("id")
                request_id = request_id if isinstance(request_id, int) and not isinstance(request_id, bool) else None
            except (ValueError, AttributeError):
                pass
            request_id, method, params = self._parse(line)
            result = self._handlers[method](params, request_id)
            if result is not DEFER:
                self.reply(request_id, result)
        except Exception as e:  # noqa: BLE001 — every failure becomes an error reply; the worker serves on
            self.fail(request_id, e)

    def serve(self, work: Callable[[], bool] | None = None) -> None:
        """Serves until `shutdown` (or the socket closes). With `work`, calls it while it returns
        True (more to do), dispatching whatever arrived between calls without blocking; when it
        returns False the loop blocks on the socket."""
        busy = work is not None
        try:
            while self._running and not self._eof:
                for line in self._read(block=not busy):
                    self._dispatch(line)
                    if not self._running:
                        break
                if work is not None and self._running:
                    busy = work()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the TypeScript side is gone: nobody is left to answer
        finally:
            self._sock.close()
