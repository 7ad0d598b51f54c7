"""Per-run state the Claude Code layer keeps: transcript, env file, background hooks."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, final

from hookagent.claude.model import HandlerSpec
from hookagent.claude.options import ClaudeHookOptions
from hookagent.claude.payload import PayloadContext
from hookagent.claude.runner import hook_env
from hookagent.claude.transcript import TranscriptWriter
from hookagent.kernel.view import RunView
from hookagent.messages import Message

__all__ = ["ClaudeSession", "Sessions"]


@final
class ClaudeSession:
    """What the hooks of one run share: ids, paths, and hooks left running in background."""

    __slots__ = (
        "_env_fresh",
        "_envs",
        "background",
        "env_file",
        "files",
        "payload",
        "project_dir",
        "transcript",
    )

    def __init__(self, run: RunView, options: ClaudeHookOptions) -> None:
        session_id = run.session_id or run.run_id
        base = Path(options.project_dir).resolve() / ".hookagent"
        self.transcript = TranscriptWriter(
            base / "transcripts" / f"{session_id}.jsonl",
            session_id=session_id,
            cwd=options.working_dir,
        )
        self.env_file = str(base / "env" / f"{session_id}.sh")
        self.files = str(run.files)
        """The run's folder: hook output too long for the model is saved there whole."""
        self.payload = PayloadContext(
            session_id=session_id,
            transcript_path=str(self.transcript.path),
            cwd=str(Path(options.working_dir).resolve()),
            permission_mode=options.permission_mode,
            subagent_tool_name=options.subagent_tool_name,
        )
        self.background: set[asyncio.Task[Any]] = set()
        self.project_dir = options.project_dir
        self._envs: dict[tuple[str | None, bool], dict[bytes, bytes]] = {}
        self._env_fresh = False

    def env(self, spec: HandlerSpec, *, with_env_file: bool) -> dict[bytes, bytes]:
        """The hook environment, built once per run: the host's as the run started, plus
        the variables Claude Code sets (which differ only by plugin and env file). Kept
        encoded: encoding it for every spawn costs more than the rest of the hook's path."""
        key = (spec.source.plugin_root, with_env_file)
        env = self._envs.get(key)
        if env is None:
            text = hook_env(
                spec,
                project_dir=self.project_dir,
                env_file=self.env_file if with_env_file else None,
                session_id=self.payload.session_id,
            )
            env = {os.fsencode(name): os.fsencode(value) for name, value in text.items()}
            self._envs[key] = env
        return env

    def flush(self, messages: Sequence[Message]) -> None:
        """Bring the transcript up to date before any hook reads it."""
        self.transcript.flush(messages)

    def env_file_ready(self) -> str:
        """The `CLAUDE_ENV_FILE` path, its folder made (hooks append to it with `>>`, which
        fails when the folder does not exist) and the file emptied the first time this run's
        SessionStart hooks run: they write it afresh, so what the Bash tool sources is what
        they exported this time, not the sum of every earlier run of the session."""
        path = Path(self.env_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self._env_fresh:
            path.write_bytes(b"")
            self._env_fresh = True
        return self.env_file

    def keep(self, task: asyncio.Task[Any]) -> None:
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def close(self) -> None:
        """Wait for background hooks (each is bounded by its own timeout)."""
        if self.background:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self.background, return_exceptions=True)


@final
class Sessions:
    __slots__ = ("_by_run", "_options")

    def __init__(self, options: ClaudeHookOptions) -> None:
        self._options = options
        self._by_run: dict[str, ClaudeSession] = {}

    def of(self, run: RunView) -> ClaudeSession:
        session = self._by_run.get(run.run_id)
        if session is None:
            session = self._by_run[run.run_id] = ClaudeSession(run, self._options)
        return session

    async def end(self, run: RunView) -> None:
        session = self._by_run.pop(run.run_id, None)
        if session is not None:
            session.flush(run.messages)
            await session.close()
