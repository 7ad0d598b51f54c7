"""Per-run state the Claude Code layer keeps: transcript, env file, background hooks."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, final

from hookagent._messages import Message
from hookagent.claude._background import Background, wake_hooks
from hookagent.claude._in_subagent import agent_fields
from hookagent.claude._model import HandlerSpec
from hookagent.claude._options import ClaudeHookOptions
from hookagent.claude._payload import PayloadContext
from hookagent.claude._runner import hook_env
from hookagent.claude._transcript import TranscriptWriter
from hookagent.hooks._events import RunEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import EXECUTION_END, SESSION_END
from hookagent.kernel._view import RunView

__all__ = ["ClaudeSession", "Sessions", "session_hooks"]

log = logging.getLogger("hookagent.claude")


@final
class ClaudeSession:
    """What the hooks of one run share: ids, paths, and hooks left running in background."""

    __slots__ = (
        "__weakref__",
        "_env_fresh",
        "_envs",
        "background",
        "env_file",
        "files",
        "payload",
        "project_dir",
        "transcript",
    )

    def __init__(
        self, run: RunView, options: ClaudeHookOptions, parent: ClaudeSession | None = None
    ) -> None:
        """`parent`: the session of the run that started this subagent run, whose session id
        and transcript path its events carry, as in Claude Code; its own transcript is kept
        beside the parent's, under `<session>/subagents/`."""
        session_id = parent.payload.session_id if parent else (run.session_id or run.run_id)
        base = Path(options.project_dir).resolve() / ".hookagent"
        folder = base / "transcripts"
        own = folder / session_id / "subagents" / f"agent-{run.run_id}.jsonl"
        self.transcript = TranscriptWriter(
            own if parent else folder / f"{session_id}.jsonl",
            session_id=session_id,
            cwd=options.working_dir,
        )
        self.env_file = str(base / "env" / f"{session_id}.sh")
        agent_id, agent_type = agent_fields(run)
        self.files = str(run.files)
        """The run's folder: hook output too long for the model is saved there whole."""
        self.payload: PayloadContext = PayloadContext(
            session_id=session_id,
            transcript_path=parent.payload.transcript_path if parent else str(self.transcript.path),
            cwd=str(Path(options.working_dir).resolve()),
            permission_mode=options.permission_mode,
            subagent_tool_name=options.subagent_tool_name,
            agent_id=agent_id,
            agent_type=agent_type,
        )
        self.background = Background()
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

    async def close(self) -> None:
        """Wait for background hooks (each is bounded by its own timeout); what they found
        that no step took is logged, not dropped unseen."""
        if self.background.tasks:
            with contextlib.suppress(Exception):
                await asyncio.gather(*self.background.tasks, return_exceptions=True)
        for found in self.background.take():
            log.warning("background hook output after the run ended: %s", found.text)


_OPEN: weakref.WeakValueDictionary[tuple[str, str], ClaudeSession] = weakref.WeakValueDictionary()
"""Sessions open in this process, by run and project: the settings hooks and the hooks of
skills and subagents of one run share one transcript and one set of background hooks."""


@final
class Sessions:
    __slots__ = ("_by_run", "_options")

    def __init__(self, options: ClaudeHookOptions) -> None:
        self._options = options
        self._by_run: dict[str, ClaudeSession] = {}

    def of(self, run: RunView) -> ClaudeSession:
        session = self._by_run.get(run.run_id)
        if session is None:
            session = _OPEN.get(self._key(run))
            if session is None:
                parent = self._parent(run)
                session = _OPEN[self._key(run)] = ClaudeSession(run, self._options, parent)
            self._by_run[run.run_id] = session
        return session

    def background(self, run: RunView) -> Background | None:
        """The run's background hooks, if its session is open here or beside these hooks."""
        session = self._by_run.get(run.run_id) or _OPEN.get(self._key(run))
        return None if session is None else session.background

    def _key(self, run: RunView) -> tuple[str, str]:
        return (run.run_id, str(Path(self._options.project_dir).resolve()))

    def _parent(self, run: RunView) -> ClaudeSession | None:
        """The open session of the run that started `run`, if it is a subagent's."""
        if run.parent_run_id is None:
            return None
        return _OPEN.get((run.parent_run_id, str(Path(self._options.project_dir).resolve())))

    async def end(self, run: RunView) -> None:
        session = self._by_run.pop(run.run_id, None)
        if session is not None:
            session.flush(run.messages)
            await session.close()


def session_hooks(sessions: Sessions, source: str, *, background: bool) -> Iterator[Hook[Any]]:
    """The run's Claude session ends with it, and again after SessionEnd; with `background`
    handlers, what they find reaches the model (`background.wake_hooks`)."""

    async def end(event: RunEvent) -> None:
        await sessions.end(event.run)

    for point in (EXECUTION_END, SESSION_END):
        yield make_hook(
            point,
            end,
            name="session",
            source=source,
            kind="observer",
            tier="audit",
            always=True,
            timeout=None,
        )
    if background:
        yield from wake_hooks(sessions.background, source)
