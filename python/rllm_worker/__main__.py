"""`python -m rllm_worker --socket X/rpc.sock --exchange X --role trainer|sampler` (PROTOCOL.md):
connects, checks what is installed (a `fatal` event and exit status 3 when something is missing or
too old), says `hello`, registers the role's methods and serves until `shutdown`. SIGTERM and SIGINT
end it quietly with status 0.

Under torchrun (RANK and WORLD_SIZE set) it is one rank of the distributed trainer
(distributed.py): global rank 0 connects and serves as above, with `world` in its hello; the other
ranks need no --socket/--exchange and follow rank 0. Only the trainer role runs under torchrun."""

from __future__ import annotations

import argparse
import importlib
import os
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m rllm_worker", description=__doc__)
    parser.add_argument("--socket", help="the Unix socket the TypeScript side listens on (every worker but a "
                                         "torchrun rank other than 0 needs it)")
    parser.add_argument("--exchange", help="the directory tensor files are exchanged through (with --socket)")
    parser.add_argument("--role", required=True, choices=["trainer", "sampler"])
    parser.add_argument("--collective-timeout-s", type=float, default=600.0,
                        help="under torchrun: how long a collective of a call may wait for the other ranks "
                             "before the group fails (default 600, backend.timeouts.collectiveS)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    distributed = "RANK" in os.environ and "WORLD_SIZE" in os.environ  # torchrun started this process
    rank = int(os.environ["RANK"]) if distributed else 0
    if rank == 0 and (args.socket is None or args.exchange is None):
        parser.error("--socket and --exchange are required (only a torchrun rank other than 0 runs without them)")
    if args.collective_timeout_s <= 0:
        parser.error(f"--collective-timeout-s must be > 0, got {args.collective_timeout_s}")

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: sys.exit(0))
    server = Server(args.socket, args.exchange, args.role) if rank == 0 else None

    def fatal(message: str) -> int:
        if server is not None:
            server.event("fatal", message=message, install=INSTALL_COMMAND)
        else:
            print(f"rllm_worker (rank {rank}): {message}", file=sys.stderr)
        return EXIT_FATAL

    versions = installed_versions()
    problem = check_versions(versions)
    if problem:
        return fatal(f"the rllm torch worker cannot start: {problem}")
    if distributed:
        if args.role != "trainer":
            return fatal(f"the {args.role} role cannot run under torchrun: only the trainer is distributed "
                         f"(start the {args.role} with plain `python -m rllm_worker`)")
        from torch.distributed.elastic.multiprocessing.errors import record

        return record(_distributed)(args, server, versions)
    try:
        work = _register(args.role, server)
    except Exception as e:  # noqa: BLE001 — a role that cannot start is fatal, said over the socket
        return fatal(f"the {args.role} worker cannot start: {e}")
    server.event("hello", **hello_fields(args.role, versions))
    server.serve(work)
    return 0


def _distributed(args, server: Server | None, versions: dict) -> int:
    """One rank of the distributed trainer; an exception leaves through torchrun's `record`."""
    import torch.distributed as dist

    from rllm_worker import distributed

    world = distributed.init(args.collective_timeout_s)
    described = distributed.describe(world)
    if server is None:
        distributed.follow(world)
    else:
        server.event("hello", **hello_fields(args.role, versions), world=described)
        try:
            distributed.serve(server, world)
        except distributed.GroupFailure as e:
            raise e.__cause__ from None
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
