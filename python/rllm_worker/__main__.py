"""`python -m rllm_worker --socket X/rpc.sock --exchange X --role trainer|sampler` (PROTOCOL.md):
connects, checks what is installed (a `fatal` event and exit status 3 when something is missing or
too old), says `hello`, registers the role's methods and serves until `shutdown`. SIGTERM and SIGINT
end it quietly with status 0."""

from __future__ import annotations

import argparse
import importlib
import signal
import sys

from rllm_worker.env import INSTALL_COMMAND, check_versions, hello_fields, installed_versions
from rllm_worker.rpc import Server

EXIT_FATAL = 3


def _register(role: str, server: Server):
    """The role's methods on `server`; returns the `work` callable serve() runs (None: none)."""
    if role == "trainer":
        from rllm_worker import trainer

        trainer.register(server)
        return None
    try:
        sampler = importlib.import_module("rllm_worker.sampler")
    except ModuleNotFoundError as e:
        raise RuntimeError(f"the sampler role needs the module {e.name}, which this worker does not have") from e
    return sampler.register(server)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rllm_worker", description=__doc__)
    parser.add_argument("--socket", required=True, help="the Unix socket the TypeScript side listens on")
    parser.add_argument("--exchange", required=True, help="the directory tensor files are exchanged through")
    parser.add_argument("--role", required=True, choices=["trainer", "sampler"])
    args = parser.parse_args(argv)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))
    server = Server(args.socket, args.exchange, args.role)
    versions = installed_versions()
    problem = check_versions(versions)
    if problem:
        server.event("fatal", message=f"the rllm torch worker cannot start: {problem}", install=INSTALL_COMMAND)
        return EXIT_FATAL
    try:
        work = _register(args.role, server)
    except Exception as e:  # noqa: BLE001 — a role that cannot start is fatal, said over the socket
        server.event("fatal", message=f"the {args.role} worker cannot start: {e}", install=INSTALL_COMMAND)
        return EXIT_FATAL
    server.event("hello", **hello_fields(args.role, versions))
    server.serve(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
