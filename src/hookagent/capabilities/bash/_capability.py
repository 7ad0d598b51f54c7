"""`Bash(root, policy, sandbox=...)`: the shell tool, its sandbox, and the deny-list guard.

The sandbox (`sandbox.py`) is the boundary: by default each command runs under bubblewrap,
able to write only `root` and the `writable` paths, with no network. The deny rules are a
first line that gives the model a clear reason early, not a boundary. They are a
`before_tool` hook in the policy tier, not a check inside the tool, so
they show up in decision records like any other guard and default-tier hooks cannot outvote
them. Being a hook, the check sees the arguments as modified by the hooks that ran before it
(system-tier hooks only); a default-tier hook that rewrites `command` afterwards is trusted.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hookagent._errors import ConfigError
from hookagent.capabilities.bash._parse import parse_command
from hookagent.capabilities.bash._placement import Exclusions
from hookagent.capabilities.bash._policy import BashPolicy
from hookagent.capabilities.bash._refusals import refusal_decision
from hookagent.capabilities.bash._rules import find_violation
from hookagent.capabilities.bash._sandbox import DEFAULT_DENY_PATHS, NetworkMode, SandboxMode
from hookagent.capabilities.bash._sandbox_config import OWN_FOLDER, SandboxConfig
from hookagent.capabilities.bash._settings import read_sandbox_settings
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import ToolCallEvent, ToolResultEvent
from hookagent.hooks._points import AFTER_TOOL, BEFORE_TOOL
from hookagent.hooks._result import HookResult
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent.capabilities.bash._tool import BashTool

__all__ = ["Bash"]


class Bash(HookProvider):
    """Runs `bash -c COMMAND` in `root` (see `tool.py` for the tool, `process.py` for how a
    command is run and stopped, `env.py` for its environment, `rules.py` for the deny list).

    `root` need not exist yet; a call made while it is missing is an error result.

    `sandbox`: `"auto"` (sandboxed when bubblewrap works here, else unsandboxed, said once
    in the log and in each result's `data["sandbox"]`), `"required"` (no sandbox: a
    `ConfigError` now, an error result per call) or `"off"`. `network`: `"off"`, `"allow"`,
    or a list of domain patterns (`example.com`, `*.example.com`, `host:443`: `domains.py`)
    reachable only through a proxy run for the call (`proxy.py`); every connection the
    proxy refuses becomes a decision of the run (`network_refusals`). `writable`: folders
    besides `root` the command may write. `deny_paths`: paths it may not read at all
    (default: `DEFAULT_DENY_PATHS`, credentials in the home folder and sockets of privileged
    services, plus hookagent's `.hookagent` folders); the `.hookagent` folder of the run's
    files is denied whatever is given.

    `excluded_commands`: Bash permission-rule patterns (`docker *`, `git push`) of commands
    that run outside the sandbox (Claude Code's `excludedCommands`); `allow_unsandboxed`:
    whether a call's `dangerouslyDisableSandbox: true` takes it out of the sandbox (default
    False: hookagent runs no Bash call outside the sandbox unless told); `auto_allow`: whether
    permission checks (`Approvals`) allow a call that runs sandboxed without asking. A call
    outside the sandbox is never auto-allowed (`placement.py`).
    """

    name = "bash"

    def __init__(
        self,
        root: str | os.PathLike[str],
        policy: BashPolicy | None = None,
        *,
        sandbox: SandboxMode = "auto",
        network: NetworkMode | Sequence[str] = "off",
        writable: Sequence[str | os.PathLike[str]] = (),
        deny_paths: Sequence[str | os.PathLike[str]] | None = None,
        excluded_commands: Sequence[str] | Exclusions = (),
        allow_unsandboxed: bool = False,
        auto_allow: bool = True,
    ) -> None:
        self.root = Path(root).expanduser().absolute()
        self.policy = policy if policy is not None else BashPolicy()
        self.sandbox = SandboxConfig.build(
            self.root,
            mode=sandbox,
            network=network,
            writable=writable,
            deny=deny_paths,
            excluded=excluded_commands,
            allow_unsandboxed=allow_unsandboxed,
            auto_allow=auto_allow,
        )
        self._made: weakref.WeakSet[BashTool] = weakref.WeakSet()

    @classmethod
    def from_claude_settings(
        cls,
        root: str | os.PathLike[str],
        policy: BashPolicy | None = None,
        *,
        project_dir: str | os.PathLike[str] = ".",
        explicit: Sequence[str | os.PathLike[str]] = (),
        include_standard: bool = True,
        home: str | os.PathLike[str] | None = None,
        network: NetworkMode | Sequence[str] | None = None,
    ) -> Bash:
        """`Bash` with the `sandbox` keys of the Claude Code settings files of `project_dir`
        (managed, user, project, local) and `explicit` files (see `settings.py`); a key it
        cannot honour is a `ConfigError` naming file and key. `network` (default `"off"`)
        may not be given when the settings have `network.allowedDomains`, which give it."""
        from hookagent.claude._sources import standard_locations

        files: list[tuple[Path, str]] = [(Path(path), "explicit") for path in explicit]
        for path, _ in files:
            if not path.is_file():
                raise ConfigError("settings file not found", file=str(path))
        if include_standard:
            files = [*standard_locations(project_dir, home=home), *files]
        found = read_sandbox_settings(files, Path(project_dir).absolute())
        if found.domains is not None and network is not None:
            raise ConfigError(
                "is given, and so is sandbox.network.allowedDomains in the settings; give one",
                key="Bash.from_claude_settings(network)",
                value=network,
            )
        root_path = Path(root).expanduser().absolute()
        deny: list[str | os.PathLike[str]] = [*DEFAULT_DENY_PATHS, *found.deny]
        deny += [root_path / OWN_FOLDER, Path(OWN_FOLDER)]
        return cls(
            root,
            policy,
            sandbox=found.mode or "auto",
            network=found.domains
            if found.domains is not None
            else "off"
            if network is None
            else network,
            writable=found.writable,
            deny_paths=deny if found.deny else None,
            excluded_commands=found.excluded,
            allow_unsandboxed=found.allow_unsandboxed,
            auto_allow=found.auto_allow,
        )

    def tools(self) -> Iterable[Tool]:
        from hookagent.capabilities.bash._tool import BashTool  # pydantic loads on use

        made = BashTool(self.root, self.policy, self.sandbox)
        self._made.add(made)
        yield made

    def close(self) -> None:
        """Stop the long-lived sandboxes of the tools made so far and every process in them
        (as when a tool is garbage collected, or at exit); a later call starts one again."""
        for made in list(self._made):
            made.close()

    @hook(BEFORE_TOOL, match="Bash", tier="policy", kind="guard", priority=100, timeout=None)
    def deny(self, event: ToolCallEvent) -> HookResult | None:
        """Block a command that breaks a deny rule; the model reads the rule's name."""
        command = event.args.get("command")
        if not isinstance(command, str):
            return None  # the tool reports the bad arguments
        violation = find_violation(
            parse_command(command), self.policy.rules, self.policy.allow_patterns
        )
        return None if violation is None else HookResult.block(violation.message)

    @hook(AFTER_TOOL, match="Bash", tier="policy", kind="transform", timeout=None)
    def network_refusals(self, event: ToolResultEvent) -> HookResult | None:
        """Record the connections the call's proxy refused, as a decision naming each host,
        port and reason, and tell the model (see `refusals.py`)."""
        return refusal_decision(event)

    def __repr__(self) -> str:
        return f"Bash({str(self.root)!r})"
