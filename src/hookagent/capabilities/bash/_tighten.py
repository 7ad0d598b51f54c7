"""A call's sandbox profile, as hooks see and change it: tightened, never loosened.

Before hooks run, a sandboxed Bash call's arguments get a `sandbox` key holding the
capability's profile, `{writable, deny, network}`, so a `before_tool` hook reads it there and
may `modify` it. When the call runs, the asked profile must be at most the capability's:
every writable path inside a writable path of the capability, every deny path of the
capability still denied (more may be added), and `network` no wider: `"allow"` only when
the capability allows it, a list of domains only when the capability allows the network or
every pattern is within one of its own (`DomainPattern.covers`: `api.github.com` or
`*.api.github.com` within `*.github.com`, `host:443` within `host`) and each of its
`!` denials is kept (or widened), `"off"` always.
A call placed outside the sandbox (an excluded command, an allowed `dangerouslyDisableSandbox`)
carries `sandboxed: false` and its `reason`; a hook may set `sandboxed: true` to keep it in
(tightening any other part of its profile keeps it in too), never `false` for a call placed
inside. `auto_allow` may be set false, never true when the
capability's is false (it is read by permission checks, which run in the policy tier).
Anything looser is an error result naming it, and nothing runs.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hookagent.capabilities.bash._domains import DomainRules
from hookagent.capabilities.bash._sandbox import NetworkRule, SandboxProfile, resolve_paths

__all__ = ["SandboxArgs", "tighten"]


class SandboxArgs(BaseModel):
    """The `sandbox` argument: a profile asked for by hooks (missing keys: the capability's)."""

    model_config = ConfigDict(extra="forbid")

    writable: list[str] | None = None
    deny: list[str] | None = None
    network: Literal["off", "allow"] | list[str] | None = None
    sandboxed: bool | None = None
    reason: str | None = None
    """Why the call runs outside the sandbox: shown to hooks, not read back."""
    auto_allow: bool | None = None

    def profile_data(self) -> dict[str, object]:
        """The keys of a `SandboxProfile` (`as_data`), as asked."""
        return self.model_dump(include={"writable", "deny", "network"})


def tighten(base: SandboxProfile, asked: SandboxArgs | None) -> SandboxProfile | str:
    """`base` narrowed to `asked`, or the error message when `asked` would loosen it."""
    if asked is None:
        return base
    network, problem = _network(base.network, asked.network)
    if problem is not None:
        return problem
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


def _network(
    base: NetworkRule, asked: Literal["off", "allow"] | list[str] | None
) -> tuple[NetworkRule, str | None]:
    """The call's network rule, and the error message when `asked` is wider than `base`."""
    if asked is None:
        return base, None
    if asked in ("off", base):
        return asked, None
    if isinstance(asked, str):
        return base, f"Sandbox network cannot be loosened from {_shown(base)} to 'allow'"
    if base == "off":
        return base, "Sandbox network cannot be loosened from 'off' to a domain list"
    try:
        rules = DomainRules.parse(asked)
    except ValueError as exc:
        return base, f"Sandbox network domain {exc}"
    if base != "allow":
        own = DomainRules.parse(base)
        wider = own.wider(rules)
        if wider is not None:
            return base, (
                f"Sandbox network domain {wider!r} would widen the domains of the policy "
                f"({', '.join(own.texts())})"
            )
    return rules.texts(), None


def _shown(rule: NetworkRule) -> str:
    return repr(rule) if isinstance(rule, str) else f"the domains {', '.join(rule) or '(none)'}"


def _within(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)
