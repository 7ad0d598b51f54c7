"""A call's sandbox profile, as hooks see and change it: tightened, never loosened.

Before hooks run, a sandboxed Bash call's arguments get a `sandbox` key holding the
capability's profile, `{writable, deny, network}`, so a `before_tool` hook reads it there and
may `modify` it. When the call runs, the asked profile must be at most the capability's:
every writable path inside a writable path of the capability, every deny path of the
capability still denied (more may be added), and `network` `"allow"` only when the
capability allows it. Anything looser is an error result naming it, and nothing runs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hookagent.capabilities.bash.sandbox import SandboxProfile, resolve_paths

__all__ = ["SandboxArgs", "tighten"]


class SandboxArgs(BaseModel):
    """The `sandbox` argument: a profile asked for by hooks (missing keys: the capability's)."""

    model_config = ConfigDict(extra="forbid")

    writable: list[str] | None = None
    deny: list[str] | None = None
    network: Literal["off", "allow"] | None = None


def tighten(base: SandboxProfile, asked: SandboxArgs | None) -> SandboxProfile | str:
    """`base` narrowed to `asked`, or the error message when `asked` would loosen it."""
    if asked is None:
        return base
    network = base.network if asked.network is None else asked.network
    if network == "allow" and base.network == "off":
        return "Sandbox network cannot be loosened from 'off' to 'allow'"
    writable = base.writable
    if asked.writable is not None:
        relative = [path for path in asked.writable if not os.path.isabs(path)]
        if relative:
            return f"Sandbox writable path {relative[0]!r} is not absolute"
        writable = tuple(resolve_paths(asked.writable, os.environ))
        outside = [path for path in writable if not _within(path, base.writable)]
        if outside:
            return (
                f"Sandbox writable path {outside[0]} is not inside the writable paths of the "
                f"policy ({', '.join(base.writable)})"
            )
    deny = base.deny
    if asked.deny is not None:
        asked_deny = resolve_paths(asked.deny, os.environ)
        dropped = [path for path in base.deny if path not in asked_deny]
        if dropped:
            return f"Sandbox deny path {dropped[0]} of the policy cannot be dropped"
        deny = tuple(asked_deny)
    return SandboxProfile(writable=writable, deny=deny, network=network)


def _within(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)
