"""Leases from the worker's side: how long one lasts, what a worker is called, and whether the
holder of a run's lease can be proven gone, so that `resume --force` may take the run over
before the lease runs out instead of waiting for it.

A holder is provably gone only when its name says where it ran (`host:pid:…`, the default
worker name), the host is this one, and no process has that pid any more. A holder on another
host, or named by `HOOKAGENT_WORKER`, can never be proven gone from here: only its lease
running out frees its run.
"""

from __future__ import annotations

import math
import os
import re
import socket
import uuid
from pathlib import Path
from typing import Final, Literal

from hookagent._errors import ConfigError
from hookagent.store._records import RunRecord

__all__ = ["LEASE", "holder_state", "lease_seconds", "refusal", "worker_name"]

LEASE: Final = 60.0
"""The default lease, in seconds."""

HolderState = Literal["gone", "alive", "elsewhere", "unnamed"]

_NAME: Final = re.compile(r"^(?P<host>[^:]+):(?P<pid>[0-9]+):[0-9a-f]{6}(?:/[0-9]+)?$")
"""A default worker name (`worker_name`), or a name `hookagent worker` derived from one."""


def lease_seconds() -> float:
    """Seconds a run's lease lasts (`HOOKAGENT_LEASE_SECONDS`, default 60); it is renewed at
    every barrier, and every third of that in the background, while the run executes. A run
    whose worker died can be taken over once its lease has run out."""
    text = os.environ.get("HOOKAGENT_LEASE_SECONDS") or ""
    if not text:
        return LEASE
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise ConfigError(
            f"must be a positive number of seconds, not {text!r}",
            key="HOOKAGENT_LEASE_SECONDS",
            value=text,
        )
    return seconds


def worker_name() -> str:
    """`HOOKAGENT_WORKER` if set (a restarted worker under the same name takes its runs
    back at once), else `host:pid:random`, which lets this host tell once it is gone."""
    return os.environ.get("HOOKAGENT_WORKER") or (
        f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    )


def holder_state(name: str) -> HolderState:
    """Whether the worker called `name` is provably gone (same host, no such process), still
    alive on this host, on another host, or under a name that does not say where it runs."""
    found = _NAME.match(name)
    if found is None:
        return "unnamed"
    if found["host"] != socket.gethostname():
        return "elsewhere"
    return "alive" if _alive(int(found["pid"])) else "gone"


def refusal(run: RunRecord, now: float, *, force: bool) -> str:
    """Why run `run` cannot be claimed now, and what would let it be."""
    if run.status in ("completed", "failed", "stopped"):
        return f"run {run.id} has ended ({run.status}); nothing to resume"
    holder = run.lease_owner
    if holder is not None and run.lease_until > now:
        left = math.ceil(run.lease_until - now)
        held = f"run {run.id} is being run by {holder} (lease for another {left} s)"
        state = holder_state(holder)
        if not force:
            if state == "gone":
                return (
                    f"{held}, but its process is gone: `hookagent resume --force {run.id}` "
                    "takes it over now"
                )
            return held
        pid = holder.split(":")[1] if state != "unnamed" else ""
        why = {
            "gone": "its holder is gone, yet the run could not be claimed: try again",
            "alive": (
                f"its process {pid} is alive on this host, and renews its lease while it "
                "runs: stop it first"
            ),
            "elsewhere": (
                f"it runs on another host ({holder.split(':')[0]}), so it cannot be proven "
                "gone from here: wait for the lease to run out"
            ),
            "unnamed": (
                "a worker named by HOOKAGENT_WORKER cannot be proven gone: wait for the lease "
                "to run out"
            ),
        }[state]
        return f"{held}; --force refused: {why}"
    if run.status == "waiting":
        return f"run {run.id} is waiting for an answer: approve or deny its question first"
    return f"run {run.id} cannot be resumed now ({run.status})"


def _alive(pid: int) -> bool:
    """Whether a process `pid` exists on this host and has not exited (a zombie has)."""
    if pid <= 0:
        return True  # not a process id: nothing is proven
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, under another user
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[:1] != ["Z"]
