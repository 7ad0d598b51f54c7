"""What a call's `sandbox` argument tells other capabilities: whether the call runs sandboxed.

A tool that runs its calls in an OS sandbox (Bash) puts each call's profile under
`SANDBOX_ARG` before hooks run, so permission checks can take the sandbox into account
without knowing the tool. The keys read here:

- `sandboxed`: `false` when the call runs outside the sandbox (absent: inside); `reason`
  then says why (an excluded command, an approved request to leave the sandbox).
- `auto_allow`: `true` when the tool lets a permission check allow the call because it runs
  sandboxed (Claude Code's `sandbox.autoAllowBashIfSandboxed`).

A call with no profile runs without a sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["SANDBOX_ARG", "auto_allowed", "runs_sandboxed"]

SANDBOX_ARG: Final = "sandbox"


def runs_sandboxed(args: Mapping[str, Any]) -> bool:
    """Whether the call with these arguments runs inside its tool's sandbox."""
    profile = args.get(SANDBOX_ARG)
    return isinstance(profile, Mapping) and profile.get("sandboxed", True) is True


def auto_allowed(args: Mapping[str, Any]) -> bool:
    """Whether the call runs sandboxed and its tool lets that allow it without asking."""
    profile = args.get(SANDBOX_ARG)
    return (
        runs_sandboxed(args) and isinstance(profile, Mapping) and profile.get("auto_allow") is True
    )
