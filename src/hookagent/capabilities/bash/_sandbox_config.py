"""`SandboxConfig`: how one `Bash` capability sandboxes its commands, checked when built.

`mode="auto"` sandboxes when `bwrap` works here and otherwise runs commands unsandboxed,
saying so once in the log and in every result's `data["sandbox"]`; `"required"` refuses to
build (`ConfigError`) when there is no sandbox, and a call made without one is an error
result naming why; `"off"` runs commands unsandboxed by choice. `network` is `"off"`,
`"allow"`, or a list of domain patterns (`domains.py`) reachable through the call's proxy
(`proxy.py`); a pattern that is not one is a `ConfigError` naming it. `excluded` commands run
outside the sandbox, and `allow_unsandboxed` lets a call ask to (`placement.py`);
`auto_allow` tells permission checks that a sandboxed call may run without asking
(`hookagent.tools._sandboxing`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final, final, get_args

from hookagent._errors import ConfigError, check_choice
from hookagent.capabilities.bash._domains import DomainRules
from hookagent.capabilities.bash._placement import Exclusions, Placement, place
from hookagent.capabilities.bash._sandbox import (
    DEFAULT_DENY_PATHS,
    NetworkMode,
    NetworkRule,
    Probe,
    SandboxMode,
    SandboxProfile,
    probe_bwrap,
    resolve_paths,
)

if TYPE_CHECKING:
    from hookagent.capabilities.bash._proxy import Resolver

__all__ = ["SandboxConfig"]

log = logging.getLogger("hookagent.bash")

OWN_FOLDER: Final = ".hookagent"


@final
@dataclass(slots=True, kw_only=True)
class SandboxConfig:
    """The sandbox settings of one capability; paths are resolved when it is built."""

    root: Path
    mode: SandboxMode = "auto"
    network: NetworkRule = "off"
    writable: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    excluded: Exclusions = field(default_factory=Exclusions)
    allow_unsandboxed: bool = False
    auto_allow: bool = True
    resolver: Resolver | None = None
    """How the proxy finds a host's addresses (None: the system's resolver); tests pin
    names to a loopback server here."""
    _warned: bool = field(default=False, repr=False)

    @classmethod
    def build(
        cls,
        root: Path,
        *,
        mode: object,
        network: object,
        writable: Sequence[str | os.PathLike[str]],
        deny: Sequence[str | os.PathLike[str]] | None,
        excluded: Exclusions | Sequence[str] = (),
        allow_unsandboxed: bool = False,
        auto_allow: bool = True,
    ) -> SandboxConfig:
        check_choice(mode, get_args(SandboxMode), key="Bash(sandbox)")
        rule = _network_rule(network)
        for name, flag in (("allow_unsandboxed", allow_unsandboxed), ("auto_allow", auto_allow)):
            if not isinstance(flag, bool):
                raise ConfigError("must be True or False", key=f"Bash({name})", value=flag)
        if not isinstance(excluded, Exclusions):
            excluded = Exclusions.build(excluded, key="Bash(excluded_commands)")
        for name, paths in (("writable", writable), ("deny_paths", deny)):
            if isinstance(paths, (str, os.PathLike)):
                raise ConfigError("takes a sequence of paths, not one", key=f"Bash({name})")
        denied: list[str | os.PathLike[str]] = [*DEFAULT_DENY_PATHS] if deny is None else [*deny]
        if deny is None:
            denied += [root / OWN_FOLDER, Path(OWN_FOLDER)]
        config = cls(
            root=root,
            mode=mode,  # type: ignore[arg-type]
            network=rule,
            writable=tuple(resolve_paths(list(writable), os.environ)),
            deny=tuple(resolve_paths(denied, os.environ)),
            excluded=excluded,
            allow_unsandboxed=allow_unsandboxed,
            auto_allow=auto_allow,
        )
        if mode == "required" and (probe := probe_bwrap()).path is None:
            raise ConfigError(
                f"no sandbox is available: {probe.reason}", key="Bash(sandbox='required')"
            )
        return config

    def profile(self) -> SandboxProfile:
        """The profile the policy gives every call (hooks may tighten it)."""
        root = str(self.root.resolve())
        writable = (root, *(path for path in self.writable if path != root))
        return SandboxProfile(writable=writable, deny=self.deny, network=self.network)

    def placement(self, command: str, *, disable: bool) -> Placement:
        """Where `command` runs when a sandbox is available (`placement.py`)."""
        return place(
            self.excluded, command, disable=disable, allow_unsandboxed=self.allow_unsandboxed
        )

    def own_folder(self, profile: SandboxProfile, run_folder: Path) -> SandboxProfile:
        """`profile` with hookagent's folder of the run's files denied too."""
        if len(run_folder.parents) < 2 or run_folder.parents[1].name != OWN_FOLDER:
            return profile
        own = str(run_folder.parents[1].resolve())
        if own in profile.deny:
            return profile
        return replace(profile, deny=(*profile.deny, own))

    def availability(self) -> Probe:
        """The sandbox to use, or (mode off, or none here) why commands run without one;
        the first time `auto` finds none, a warning is logged."""
        if self.mode == "off":
            return Probe(None, "the sandbox is off (Bash(sandbox='off'))")
        probe = probe_bwrap()
        if probe.path is None and self.mode == "auto" and not self._warned:
            self._warned = True
            log.warning("Bash commands run WITHOUT a sandbox: %s", probe.reason)
        return probe


def _network_rule(network: object) -> NetworkRule:
    """`network` checked: a mode, or domain patterns kept as written (lower-cased, once)."""
    if isinstance(network, (list, tuple)):
        for item in network:
            try:
                DomainRules.parse([item])
            except ValueError as exc:
                raise ConfigError(str(exc), key="Bash(network)", value=item) from None
        return tuple(dict.fromkeys(DomainRules.parse(network).texts()))
    if network not in get_args(NetworkMode):
        raise ConfigError(
            "must be 'off', 'allow' or a list of domains", key="Bash(network)", value=network
        )
    return network  # type: ignore[return-value]  # checked against NetworkMode just above
