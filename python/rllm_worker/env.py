"""What the worker needs installed, checked before it does anything else: a worker that cannot run
says so in one `fatal` event that carries the one command installing what is missing."""

from __future__ import annotations

import importlib
import platform
import re

INSTALL_COMMAND = "bash python/install.sh"
MINIMUMS = {"torch": (2, 11), "transformers": (5, 17)}
REQUIRED = ("torch", "transformers", "peft", "safetensors")


def parse_version(version: str) -> tuple[int, ...]:
    """The leading numeric release of a version string: "2.13.0+cpu" → (2, 13, 0), "5.17.0.dev0" →
    (5, 17, 0)."""
    m = re.match(r"\d+(\.\d+)*", version.strip())
    if not m:
        raise ValueError(f"cannot read a version number from {version!r}")
    return tuple(int(p) for p in m.group(0).split("."))


def installed_versions() -> dict[str, str | None]:
    """The version of each required package, None where it cannot be imported."""
    versions: dict[str, str | None] = {}
    for name in REQUIRED:
        try:
            versions[name] = getattr(importlib.import_module(name), "__version__", "0")
        except Exception:  # noqa: BLE001 — any import failure means "not usable"
            versions[name] = None
    return versions


def check_versions(versions: dict[str, str | None]) -> str | None:
    """Why these versions cannot run the worker (one sentence per problem), or None if they can."""
    problems = []
    for name in REQUIRED:
        v = versions.get(name)
        if v is None:
            problems.append(f"{name} is not installed (or fails to import)")
            continue
        minimum = MINIMUMS.get(name)
        if minimum and parse_version(v)[: len(minimum)] < minimum:
            need = ".".join(map(str, minimum))
            problems.append(f"{name} {v} is too old (the worker needs {name} >= {need})")
    return "; ".join(problems) or None


def hello_fields(role: str, versions: dict[str, str | None]) -> dict:
    """The `hello` event's fields (PROTOCOL.md): call only once check_versions passed."""
    import os

    import torch

    return {
        "pid": os.getpid(),
        "role": role,
        "python": platform.python_version(),
        "torch": versions["torch"],
        "transformers": versions["transformers"],
        "peft": versions["peft"],
        "cuda": torch.cuda.is_available(),
    }
