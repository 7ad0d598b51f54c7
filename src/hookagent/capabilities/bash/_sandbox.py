"""The OS sandbox a Bash command runs in: bubblewrap on Linux.

A `SandboxProfile` says what one call may touch: the folders it may write (the capability's
`root` and its `writable` paths), the paths hidden from it entirely (`deny`), and whether it
has a network. `wrap` turns a profile and a command into a `bwrap` command line:

- the whole filesystem read-only (`--ro-bind / /`), a fresh `/dev`, a `/proc` of its own, a
  private empty `/tmp`; then the writable paths bound read-write over it;
- each existing deny path overlaid: a folder by an empty read-only tmpfs, a file by
  `/dev/null`, so neither its names nor its contents can be read, and nothing written;
- every namespace unshared (`--unshare-all`): a new PID namespace, so every process the
  command starts is killed when it ends (`--die-with-parent` ties it to the call too); no
  network unless the profile allows it (`--share-net`): with a domain allowlist the
  namespace keeps only its loopback, and `proxy.py` carries what the allowlist lets out; a
  new session (`--new-session`), so no terminal can be written to;
- no capabilities: `mount`, `chroot`, `unshare` and `nsenter` fail inside;
- no new Unix-domain sockets (`seccomp.py`), so no service is reachable through one.

`probe_bwrap` checks once per process that `bwrap` exists and can make its namespaces here
(a container without user namespaces cannot), and says why not.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, Literal

from hookagent._record import record
from hookagent.capabilities.bash import _seccomp as seccomp

__all__ = [
    "DEFAULT_DENY_PATHS",
    "SANDBOX_ENV_FILE",
    "NetworkMode",
    "NetworkRule",
    "Probe",
    "SandboxMode",
    "SandboxProfile",
    "probe_bwrap",
    "wrap",
]

SandboxMode = Literal["auto", "required", "off"]
NetworkMode = Literal["off", "allow"]
NetworkRule = NetworkMode | tuple[str, ...]
"""`"off"`, `"allow"`, or the domain patterns (`domains.py`) reachable through the proxy."""

DEFAULT_DENY_PATHS: Final[tuple[str, ...]] = (
    "~/.ssh",
    "~/.aws",
    "~/.config/gcloud",
    "~/.netrc",
    "~/.docker",
    "~/.kube",
    "~/.gnupg",
    # Unix sockets of services that act with more rights than the command: a read-only
    # filesystem does not stop a connect(), so their sockets are hidden.
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd",
    "/run/podman",
    "/run/dbus",
    "/run/systemd/private",
    "/run/user",
    "/run/postgresql",
    "/var/run/mysqld",
)
"""Credentials in the user's home and the sockets of privileged services; hookagent's own
`.hookagent` folders are added to them. A path that does not exist is skipped."""

SANDBOX_ENV_FILE: Final = "/tmp/.hookagent-env.sh"
"""Where the run's env file (Claude Code's `CLAUDE_ENV_FILE`) is shown to a sandboxed
command: its own folder is hookagent's, which the command may not see."""

_PROBE_TIMEOUT: Final = 15.0


@record(kw_only=False)
class Probe:
    """Whether the sandbox can be had: `path` of a working `bwrap`, else None and why."""

    path: str | None
    reason: str = ""


@record
class SandboxProfile:
    """What one sandboxed call may touch. Paths are absolute and resolved."""

    writable: tuple[str, ...]
    deny: tuple[str, ...]
    network: NetworkRule = "off"

    def missing(self) -> str | None:
        """A writable path that is not a folder now (bwrap cannot bind it), if any."""
        return next((path for path in self.writable if not os.path.isdir(path)), None)

    def as_data(self) -> dict[str, object]:
        network = self.network if isinstance(self.network, str) else list(self.network)
        return {"writable": list(self.writable), "deny": list(self.deny), "network": network}


def wrap(
    bwrap: str,
    argv: Sequence[str],
    profile: SandboxProfile,
    cwd: str,
    *,
    read_only: Sequence[tuple[str, str]] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """The `bwrap` command line that runs `argv` in `cwd` under `profile`; each
    `(outside, inside)` of `read_only` is shown read-only at `inside`, even when denied;
    `seccomp_fd` holds the filter of `seccomp.py` (the process must inherit it)."""
    line = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for path in profile.writable:
        line += ["--bind", path, path]
    for path in profile.deny:
        if os.path.isdir(path):
            line += ["--tmpfs", path, "--remount-ro", path]
        elif os.path.lexists(path):
            line += ["--ro-bind", "/dev/null", path]
    for outside, inside in read_only:
        line += ["--ro-bind", outside, inside]
    line += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if profile.network == "allow":
        line.append("--share-net")
    if seccomp_fd is not None:
        line += ["--seccomp", str(seccomp_fd)]
    line += ["--chdir", cwd, "--", *argv]
    return line


@functools.cache
def probe_bwrap() -> Probe:
    """A working `bwrap` on PATH, or why there is none; run once per process."""
    found = shutil.which("bwrap")
    if found is None:
        return Probe(None, "bwrap (bubblewrap) is not installed")
    filter_program = seccomp.program()
    fd = None if filter_program is None else seccomp.program_fd(filter_program)
    test = wrap(found, ["true"], SandboxProfile(writable=(), deny=()), "/", seccomp_fd=fd)
    try:
        done = subprocess.run(
            test,
            check=False,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_TIMEOUT,
            pass_fds=() if fd is None else (fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(None, f"{found} could not be run: {exc}")
    finally:
        if fd is not None:
            os.close(fd)
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return Probe(None, f"{found} cannot make its sandbox here: {detail[0]}")
    return Probe(found)


def resolve_paths(paths: Sequence[str | os.PathLike[str]], env: Mapping[str, str]) -> list[str]:
    """`paths` with `~` expanded against `env`'s HOME, made absolute and resolved."""
    home = env.get("HOME") or os.path.expanduser("~")
    out: list[str] = []
    for path in paths:
        text = os.fspath(path)
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        resolved = str(Path(text).resolve())
        if resolved not in out:
            out.append(resolved)
    return out
