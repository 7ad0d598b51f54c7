"""The `Bash` tool: Claude Code's input shape, REFERENCE §9.1's output.

Input `{command, description?, timeout?}`; `timeout` is in **milliseconds**, as Claude
Code's Bash takes it, and may not exceed `BashPolicy.max_timeout_s`. `run_in_background` is
not offered (a command's processes end with its call), so passing it is an argument error.

The model reads, joined by blank lines: `Command timed out after Ns` (timeout), `Exit code: N`
(non-zero), stdout, `STDERR:` and stderr, or `(no output)` when both streams are empty; each
stream is cut to `BashPolicy.max_output` bytes (head, marker, tail), and a stream that was cut
is saved whole in the run's folder, the marker naming the file. So the result is bounded by
the policy, and the agent's `max_result_chars` does not apply to it. Hooks see Claude Code's
`tool_response` plus the exit code, `{stdout, stderr, interrupted, isImage, exit_code}`, with
up to `keep_head + keep_tail` bytes of each stream. A non-zero exit or a timeout is an error
result, as Claude Code reports a failing command (PostToolUseFailure).

Each command runs in the capability's sandbox (`sandbox.py`) when there is one; every
result's `data["sandbox"]` records how: `{active, mode, writable, deny, network}`, plus
`reason` when the command ran without one. With `sandbox="required"` and no sandbox, the
call is an error result naming why, and nothing runs. With a domain allowlist the command
is started by the forwarder of `proxy.py`, and the call's connections are added to the
record: `allowed` and `refused` (`{host, port, method}` / `{host, port, reason}`).
Otherwise a call whose profile is the policy's runs in the tool's long-lived sandbox
(`persistent.py`), and one a hook tightened, or that the long-lived sandbox cannot take,
in a sandbox of its own; `close()` stops the long-lived one.

A call placed outside the sandbox (`placement.py`: an excluded command, or
`dangerouslyDisableSandbox: true` when unsandboxed commands are allowed) runs as without
one: its record has `active: false`, `reason`, and `unsandboxed` naming the setting. A
`dangerouslyDisableSandbox` that has no effect is recorded under `ignored` and told to the
model. The input schema offers `dangerouslyDisableSandbox` only when it can take effect.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, final

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from hookagent.capabilities.bash import _seccomp as seccomp
from hookagent.capabilities.bash._domains import DomainRules
from hookagent.capabilities.bash._env import IDEMPOTENCY_KEY_VAR, command_env
from hookagent.capabilities.bash._persistent import ServerLost
from hookagent.capabilities.bash._placement import Placement
from hookagent.capabilities.bash._policy import BashPolicy
from hookagent.capabilities.bash._process import Completed, run_command
from hookagent.capabilities.bash._proxy import CallProxy, forwarded, interpreter
from hookagent.capabilities.bash._sandbox import SANDBOX_ENV_FILE, Probe, SandboxProfile, wrap
from hookagent.capabilities.bash._sandbox_config import SandboxConfig
from hookagent.capabilities.bash._server_pool import Servers
from hookagent.capabilities.bash._tighten import SandboxArgs, tighten
from hookagent.claude._env_file import ENV_FILE_KEY
from hookagent.tools._base import ToolContext, ToolResult
from hookagent.tools._model_tool import ModelTool
from hookagent.tools._sandboxing import SANDBOX_ARG

__all__ = ["ENV_FILE_KEY", "BashArgs", "BashTool"]


"""Run metadata key: a file of `export` lines (Claude Code's `CLAUDE_ENV_FILE`, written by
SessionStart hooks) sourced before each command when it exists."""


class BashArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The command to run with bash.")
    description: str | None = Field(
        default=None, description="What the command does, in 5-10 words."
    )
    timeout: float | None = Field(
        default=None, description="Milliseconds before the command is stopped (max 600000)."
    )
    dangerously_disable_sandbox: bool = Field(
        default=False,
        alias="dangerouslyDisableSandbox",
        description="Run this command outside the sandbox. Only for a command that failed "
        "because of the sandbox; it may then need a person's approval.",
    )
    sandbox: SkipJsonSchema[SandboxArgs | None] = None
    """The call's sandbox profile, set before hooks run; not offered to the model."""


@final
class BashTool(ModelTool[BashArgs]):
    name = "Bash"
    description = (
        "Run a shell command with bash in the project directory and return its output. "
        "stdin is empty; background processes are stopped when the command ends. "
        "`timeout` is in milliseconds (default 120000, max 600000 unless configured)."
    )
    args_model = BashArgs
    max_result_chars: ClassVar[int | None] = None
    """Each stream is cut to `BashPolicy.max_output` bytes, and saved whole when cut."""

    def __init__(self, root: Path, policy: BashPolicy, sandbox: SandboxConfig) -> None:
        self.root = root
        self.policy = policy
        self.sandbox = sandbox
        self.servers = Servers()
        """The long-lived sandboxes of calls whose profile is the policy's."""

    def close(self) -> None:
        """Stop the long-lived sandboxes and every process in them."""
        self.servers.close()

    @property
    def parameters(self) -> Mapping[str, Any]:
        """The input schema; `dangerouslyDisableSandbox` only when it can take effect."""
        schema = dict(super().parameters)
        if not self._may_leave():
            properties = dict(schema.get("properties", {}))
            properties.pop("dangerouslyDisableSandbox", None)
            schema["properties"] = properties
        return schema

    def prepare(self, args: Mapping[str, Any], /) -> Mapping[str, Any]:
        """The call's sandbox profile under `sandbox`, for hooks to read and tighten; only
        when commands run sandboxed, and only when the call does not carry one already.
        A call placed outside the sandbox gets `sandboxed: false` and the reason; one inside,
        `auto_allow` (see `hookagent.tools._sandboxing`)."""
        if SANDBOX_ARG in args or self.sandbox.availability().path is None:
            return args
        data = self.sandbox.profile().as_data()
        command = args.get("command")
        if isinstance(command, str):
            disable = args.get("dangerouslyDisableSandbox") is True
            placed = self.sandbox.placement(command, disable=disable)
            if not placed.sandboxed:
                return {**args, SANDBOX_ARG: {**data, "sandboxed": False, "reason": placed.reason}}
        return {**args, SANDBOX_ARG: {**data, "auto_allow": self.sandbox.auto_allow}}

    def _may_leave(self) -> bool:
        """Whether a call may ask to run outside the sandbox and be heard."""
        return self.sandbox.allow_unsandboxed and self.sandbox.availability().path is not None

    async def run(self, args: BashArgs, ctx: ToolContext) -> ToolResult:
        limit = self._checked(args.timeout)
        if isinstance(limit, str):
            return ToolResult.error(limit)
        env = command_env(os.environ, allow=self.policy.env_allow, extra=self.policy.extra_env)
        env[IDEMPOTENCY_KEY_VAR] = ctx.idempotency_key
        probe = self.sandbox.availability()
        policy = self.sandbox.profile()
        profile = tighten(policy, _asked(args.sandbox, policy))
        if isinstance(profile, str):
            return ToolResult.error(profile)
        tightened = profile is not policy
        profile = self.sandbox.own_folder(profile, ctx.run.files)
        placed = self._placed(args, probe.path is not None, tightened=tightened)
        if isinstance(placed, str):
            return ToolResult.error(placed)
        record = self._record(probe, placed, profile)
        env_file = _env_file(ctx)
        fds: list[int] = []
        proxy: CallProxy | None = None
        if probe.path is None or not placed.sandboxed:
            refused = self._refused(args, probe, record)
            if refused is not None:
                return refused
            argv = [_shell(env), "-c", _sourcing(env_file, args.command)]
        else:
            inside = None if env_file is None else SANDBOX_ENV_FILE
            command = [_shell(env), "-c", _sourcing(inside, args.command)]
            prepared = self._prepared(profile, command, ctx.call.id)
            if isinstance(prepared, str):
                return ToolResult.error(prepared)
            command, proxy = prepared
            if (
                proxy is None
                and not tightened
                and (served := await self._served(probe.path, profile, command, env, limit, ctx))
                is not None
            ):
                return (
                    self._result(served, limit, record) if isinstance(served, Completed) else served
                )
            shown = () if env_file is None else ((env_file, SANDBOX_ENV_FILE),)
            filter_program = seccomp.program()
            if filter_program is not None:
                fds.append(seccomp.program_fd(filter_program))
            argv = wrap(
                probe.path,
                command,
                profile,
                str(self.root),
                read_only=shown,
                seccomp_fd=fds[0] if fds else None,
            )
        try:
            async with proxy or contextlib.nullcontext():
                done = await run_command(
                    argv,
                    cwd=str(self.root),
                    env=env,
                    limit=limit,
                    kill_grace=self.policy.kill_grace_s,
                    keep_head=self.policy.keep_head,
                    keep_tail=self.policy.keep_tail,
                    spill=(ctx.run.files, f"bash-{ctx.call.id}"),
                    spill_after=self.policy.max_output,
                    pass_fds=fds if proxy is None else [*fds, proxy.inside.fileno()],
                )
        except OSError as exc:
            return ToolResult.error(f"Could not start {argv[0]}: {exc.strerror or exc}")
        finally:
            for fd in fds:
                os.close(fd)
        return self._result(done, limit, record if proxy is None else record | proxy.report())

    def _record(
        self, probe: Probe, placed: Placement, profile: SandboxProfile
    ) -> dict[str, object]:
        """How the call runs, as `data["sandbox"]` records it."""
        record: dict[str, object] = {
            "active": probe.path is not None and placed.sandboxed,
            "mode": self.sandbox.mode,
            **profile.as_data(),
        }
        if probe.path is None:
            record["reason"] = probe.reason
        elif not placed.sandboxed:
            record |= {"reason": placed.reason, "unsandboxed": placed.by}
        if placed.ignored is not None:
            record["ignored"] = placed.ignored
        if placed.kept is not None:
            record["kept"] = placed.kept
        return record

    def _refused(
        self, args: BashArgs, probe: Probe, record: dict[str, object]
    ) -> ToolResult | None:
        """The error result of a call that cannot run without a sandbox here, if it is one."""
        if probe.path is not None:
            return None  # placed outside the sandbox by the policy
        if args.sandbox is not None:
            return ToolResult.error(
                f"A sandbox profile was given, but commands run without a sandbox: {probe.reason}",
                data={"sandbox": record},
            )
        if self.sandbox.mode == "required":
            return ToolResult.error(
                f"Bash requires a sandbox and none is available: {probe.reason}",
                data={"sandbox": record},
            )
        return None

    def _placed(self, args: BashArgs, active: bool, *, tightened: bool) -> Placement | str:
        """Where the call runs (`placement.py`), kept in the sandbox when its profile asks
        (`sandboxed: true`, or a profile a hook tightened, which only a sandbox can honour);
        the error message when the profile would take it out, or allow more without asking."""
        asked = args.sandbox
        disable = args.dangerously_disable_sandbox
        if not active:
            why = "commands run without a sandbox here" if disable else None
            return Placement(False, ignored=why and f"dangerouslyDisableSandbox was ignored: {why}")
        placed = self.sandbox.placement(args.command, disable=disable)
        if asked is None:
            return placed
        if asked.auto_allow and not self.sandbox.auto_allow:
            return "Sandbox auto_allow cannot be turned on: the policy asks for Bash calls"
        if asked.sandboxed is False and placed.sandboxed:
            return "Sandbox cannot be loosened: this command runs in the sandbox"
        if not placed.sandboxed and (asked.sandboxed is True or tightened):
            how = "by a hook" if asked.sandboxed is True else "as a hook tightened its profile"
            return Placement(True, kept=f"kept in the sandbox {how}, though {placed.reason}")
        return placed

    def _prepared(
        self, profile: SandboxProfile, command: list[str], call_id: str
    ) -> tuple[list[str], CallProxy | None] | str:
        """`command` and the proxy of the call when its network is a domain allowlist, or
        the error message when the profile cannot be had."""
        missing = profile.missing()
        if missing is not None:
            return f"Writable path {missing} does not exist"
        if not isinstance(profile.network, tuple):
            return command, None
        python = interpreter()
        if python is None:
            return f"The network proxy needs a Python outside /tmp, not {sys.executable}"
        rules = DomainRules.parse(profile.network)
        proxy = CallProxy(rules, call_id=call_id, resolver=self.sandbox.resolver)
        return forwarded(python, command, proxy.inside.fileno()), proxy

    async def _served(
        self,
        bwrap: str,
        profile: SandboxProfile,
        command: list[str],
        env: dict[str, str],
        limit: float,
        ctx: ToolContext,
    ) -> Completed | ToolResult | None:
        """The call run in the capability's long-lived sandbox of `profile` (`persistent.py`),
        or the error that stopped it; None when it must run in a sandbox of its own."""
        env_file = _env_file(ctx)
        shown = None if env_file is None else _contents(env_file)
        if env_file is not None and shown is None:
            return None  # unreadable here: bwrap shows it as it can
        server = await self.servers.take(bwrap, profile, str(self.root))
        if server is None:
            return None
        try:
            return await server.run(
                command,
                env=env,
                cwd=str(self.root),
                env_file=None if shown is None else (SANDBOX_ENV_FILE, shown),
                limit=limit,
                keep_head=self.policy.keep_head,
                keep_tail=self.policy.keep_tail,
                spill=(ctx.run.files, f"bash-{ctx.call.id}"),
                spill_after=self.policy.max_output,
            )
        except ServerLost as exc:
            return ToolResult.error(f"The command did not finish: {exc}")

    def _checked(self, timeout_ms: float | None) -> float | str:
        """The timeout in seconds, or the error message for a call that cannot run."""
        limit = self._limit(timeout_ms)
        if not isinstance(limit, str) and not self.root.is_dir():
            return f"Working directory {self.root} does not exist"
        return limit

    def _limit(self, timeout_ms: float | None) -> float | str:
        """The timeout in seconds, or the error message for a bad one."""
        if timeout_ms is None:
            return self.policy.default_timeout_s
        most = self.policy.max_timeout_s * 1000
        if not 0 < timeout_ms <= most:
            return f"Invalid timeout {timeout_ms:g} ms: give milliseconds above 0, at most {most:g}"
        return timeout_ms / 1000

    def _result(self, done: Completed, limit: float, sandbox: dict[str, object]) -> ToolResult:
        policy = self.policy
        kept = policy.keep_head + policy.keep_tail
        data = {
            "stdout": done.stdout.window(kept, policy.keep_head, policy.keep_tail),
            "stderr": done.stderr.window(kept, policy.keep_head, policy.keep_tail),
            "interrupted": done.timed_out,
            "isImage": False,
            "exit_code": done.exit_code,
            "sandbox": sandbox,
        }
        shown = (policy.max_output, policy.output_head, policy.output_tail)
        stdout = done.stdout.window(*shown).rstrip("\n")
        stderr = done.stderr.window(*shown).rstrip("\n")
        parts: list[str] = []
        if done.timed_out:
            parts.append(f"Command timed out after {limit:g}s")
        if done.exit_code:
            parts.append(f"Exit code: {done.exit_code}")
        if stdout:
            parts.append(stdout)
        if stderr:
            parts.append("STDERR:\n" + stderr)
        if not stdout and not stderr:
            parts.append("(no output)")
        if isinstance(note := sandbox.get("ignored"), str):
            parts.insert(0, f"Note: {note}")
        is_error = done.timed_out or done.exit_code != 0
        return ToolResult(content="\n\n".join(parts), is_error=is_error, data=data)


def _shell(env: dict[str, str]) -> str:
    """bash from the command's PATH, else /bin/sh."""
    return shutil.which("bash", path=env.get("PATH", os.defpath)) or "/bin/sh"


def _env_file(ctx: ToolContext) -> str | None:
    path = ctx.run.metadata.get(ENV_FILE_KEY)
    return path if isinstance(path, str) and os.path.isfile(path) else None


def _contents(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError:
        return None


def _asked(asked: SandboxArgs | None, policy: SandboxProfile) -> SandboxArgs | None:
    """`asked`, or None when it is the policy's profile as `prepare` gave it (nothing to
    check, and the call may run in the long-lived sandbox)."""
    return None if asked is not None and asked.profile_data() == policy.as_data() else asked


def _sourcing(env_file: str | None, command: str) -> str:
    return command if env_file is None else f". {shlex.quote(env_file)}\n{command}"
