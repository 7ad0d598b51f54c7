"""`IntentGate(file)`: no change to files without a selected intent, none outside its scope,
none to a file that changed since the agent read it.

The handshake: the model calls `select_active_intent{intent_id}`; the tool only checks the
id against the intents file and returns the intent, and the capability's after_tool
transform stores the id under `metadata["active_intent"]`, so the selection is a recorded
decision. From then on a before_inference transform appends the intent's `<intent_context>`
to the system prompt, read from the file as it is now (re-read only when it changes).

Three policy-tier guards run before every mutating tool (Write, Edit, MultiEdit,
NotebookEdit, Bash, and any tool named `write*`/`delete*`; configurable), in this order:

1. `require_intent`: no intent selected, or the selected one is gone from the file →
   `NO_ACTIVE_INTENT`, listing the intents to choose from.
2. `check_scope`: the file the call names is outside the intent's `owned_scope` globs →
   `SCOPE_VIOLATION`, with the globs allowed.
3. `check_lock`: optimistic locking. An after_tool transform records the sha256 of each file
   read (and of each file the agent wrote) under `metadata["observed_files"]`; a write to a
   file whose content hashes otherwise now → `STALE_FILE`. A new file may be written; an
   existing file never read in the run may not (`"reason": "unread"`), as in Claude Code.

Scope and locks apply to calls that name a file (`file_path`, `notebook_path`, `path`):
Bash names none, so it needs an intent but its effects are not scoped; pair it with Bash's
deny rules or approvals. Each guard fails closed: if it raises, the call is refused with
`HOOK_INTERNAL_ERROR` (and a guard that times out is refused by the engine). Every refusal
is a JSON object, the whole reason of the block, which the model reads as the tool's error.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from hookagent._errors import ConfigError
from hookagent.capabilities.intents import _checks as checks
from hookagent.capabilities.intents._checks import NOT_A_FILE, Target, ToolSet
from hookagent.capabilities.intents._codes import (
    HOOK_INTERNAL_ERROR,
    NO_ACTIVE_INTENT,
    SCOPE_VIOLATION,
    STALE_FILE,
    tool_error,
)
from hookagent.capabilities.intents._spec import Intent, IntentFile, render_context
from hookagent.capabilities.intents._tool import SelectActiveIntent
from hookagent.hooks._decorators import HookProvider, hook
from hookagent.hooks._events import InferenceEvent, ToolCallEvent, ToolResultEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import AFTER_TOOL, BEFORE_INFERENCE, BEFORE_TOOL
from hookagent.hooks._result import HookResult
from hookagent.kernel._metadata import MetadataKey
from hookagent.kernel._view import RunView
from hookagent.tools._base import Tool

__all__ = [
    "ACTIVE_INTENT",
    "DEFAULT_MUTATING",
    "DEFAULT_MUTATING_PATTERNS",
    "DEFAULT_PATH_ARGS",
    "OBSERVED_FILES",
    "IntentGate",
]

log = logging.getLogger("hookagent.intents")

ACTIVE_INTENT: Final = MetadataKey[str]("active_intent")
"""The id of the selected intent."""
OBSERVED_FILES: Final = MetadataKey[dict[str, str]]("observed_files")
"""Real path → sha256 of the content the agent last read or wrote there."""
DEFAULT_MUTATING: Final = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"})
DEFAULT_MUTATING_PATTERNS: Final = ("write*", "delete*")
"""Also mutating: tools so named (case-insensitive; for `mcp__server__tool`, the tool)."""
DEFAULT_PATH_ARGS: Final = ("file_path", "notebook_path", "path")
"""The arguments that name the file a call changes, first found wins."""
PROMPT_HEADING: Final = "ACTIVE INTENT CONTEXT"
_TAG: Final = "<intent_context"

Check = Callable[[ToolCallEvent], HookResult | None]


class IntentGate(HookProvider):
    """`select_active_intent`, the intent in the system prompt, and three guards.

    Args:
        file: the intents file, relative to `root` unless absolute; `*.json` is read as
            JSON, anything else as YAML. Read now if it exists (a malformed one is a
            `ConfigError` naming the line); a missing one is an error result at selection.
        root: the project root `owned_scope` globs are relative to (default: the working
            directory).
        mutating: tool names that need an intent.
        mutating_patterns: globs of tool names that need one too.
        path_args: the arguments naming the file a mutating call changes.
        read_tools: tools whose successful calls count as reading their file.
        require_read: refuse a write to an existing file the agent never read.
    """

    name = "intents"

    def __init__(
        self,
        file: str | os.PathLike[str] = ".orchestration/active_intents.yaml",
        *,
        root: str | os.PathLike[str] | None = None,
        mutating: Iterable[str] = DEFAULT_MUTATING,
        mutating_patterns: Iterable[str] = DEFAULT_MUTATING_PATTERNS,
        path_args: Iterable[str] = DEFAULT_PATH_ARGS,
        read_tools: Iterable[str] = ("Read",),
        require_read: bool = True,
    ) -> None:
        base = os.path.abspath(os.fspath(Path.cwd() if root is None else root))
        self.roots: Final = tuple(dict.fromkeys((os.path.realpath(base), base)))
        path = Path(os.path.expanduser(os.fspath(file)))
        self.file: Final = IntentFile(path if path.is_absolute() else Path(base) / path)
        self.path_args: Final = tuple(path_args)
        if not self.path_args:
            raise ConfigError("name at least one argument", key="path_args")
        self.mutating: Final = ToolSet(mutating, mutating_patterns)
        self.observed: Final = ToolSet({*read_tools, *self.mutating.names}, self.mutating.patterns)
        self.require_read: Final = require_read
        self._tool = SelectActiveIntent(self.file)
        self.file.load()

    def __repr__(self) -> str:
        return f"IntentGate({str(self.file.path)!r}, root={self.roots[0]!r})"

    def tools(self) -> tuple[Tool, ...]:
        return (self._tool,)

    def hooks(self) -> Iterator[Hook[Any]]:
        yield from super().hooks()
        yield self._guard(self.require_intent, 30)
        yield self._guard(self.check_scope, 20)
        yield self._guard(self.check_lock, 10)
        yield make_hook(
            AFTER_TOOL,
            self.observe_file,
            name="observe_file",
            source=self.name,
            match=self.observed,
            kind="transform",
            blocking=True,
        )

    def _guard(self, check: Check, priority: int) -> Hook[Any]:
        """A policy-tier guard on mutating tools, run on a worker thread (it reads files),
        that refuses the call with `HOOK_INTERNAL_ERROR` if the check raises."""
        name = check.__name__

        def fail_closed(event: ToolCallEvent) -> HookResult | None:
            try:
                return check(event)
            except Exception as exc:
                log.warning("intents:%s failed; refusing %s", name, event.tool_name, exc_info=True)
                return _refuse(
                    HOOK_INTERNAL_ERROR,
                    f"The {name} check failed, so the call was refused (these checks fail "
                    "closed). Retrying will not help until the cause is fixed; tell the user.",
                    event,
                    hook=f"{self.name}:{name}",
                    detail=f"{type(exc).__name__}: {exc}",
                )

        return make_hook(
            BEFORE_TOOL,
            fail_closed,
            name=name,
            source=self.name,
            match=self.mutating,
            tier="policy",
            kind="guard",
            on_failure="block",
            priority=priority,
            blocking=True,
        )

    # -- the handshake ----------------------------------------------------------------
    @hook(AFTER_TOOL, match="select_active_intent", kind="transform")
    def remember_intent(self, event: ToolResultEvent) -> HookResult | None:
        """Store the id a successful `select_active_intent` returned."""
        intent_id = event.result.returned("intent_id")
        if not isinstance(intent_id, str) or intent_id == ACTIVE_INTENT.get(event.run):
            return None
        return ACTIVE_INTENT.set(intent_id)

    @hook(BEFORE_INFERENCE, kind="transform", blocking=True)
    def intent_in_prompt(self, event: InferenceEvent) -> HookResult | None:
        """Append the selected intent's context to the system prompt."""
        intent = self._selected(event.run)
        request = event.request
        system = request.system_prompt or ""
        if intent is None or _TAG in system:
            return None
        section = (
            f"{PROMPT_HEADING}\nYou are working on intent {intent.id}. Change only files "
            "matching its owned_scope, keep to its constraints, and finish when its "
            "acceptance criteria hold. Call select_active_intent to switch intents.\n"
            f"{render_context(intent)}"
        )
        prompt = f"{system}\n\n{section}" if system else section
        return HookResult.modify(request=replace(request, system_prompt=prompt))

    # -- the guards -------------------------------------------------------------------
    def require_intent(self, event: ToolCallEvent) -> HookResult | None:
        """`NO_ACTIVE_INTENT` unless a selected intent is still in the file."""
        intent_id = ACTIVE_INTENT.get(event.run)
        if intent_id is not None and self.file.find(intent_id) is not None:
            return None
        return self._no_intent(event, intent_id)

    def check_scope(self, event: ToolCallEvent) -> HookResult | None:
        """`SCOPE_VIOLATION` for a file outside the intent's `owned_scope`."""
        target = self._target(event)
        if target is None:
            return None
        intent = self._selected(event.run)
        if intent is None:
            return self._no_intent(event, ACTIVE_INTENT.get(event.run))
        if checks.in_scope(intent, target):
            return None
        if target.rel is None:
            where = f"it is outside the project root {self.roots[0]}"
        elif target.real_rel != target.rel:
            where = f"it resolves through a symbolic link to {target.real}"
        else:
            where = "it matches none of the intent's owned_scope globs"
        return _refuse(
            SCOPE_VIOLATION,
            f"{target.shown} is not in the scope of intent {intent.id}: {where}. Change only "
            "files matching `allowed`, or select an intent that owns this file.",
            event,
            intent_id=intent.id,
            path=target.shown,
            allowed=list(intent.owned_scope),
        )

    def check_lock(self, event: ToolCallEvent) -> HookResult | None:
        """`STALE_FILE` for a file whose content is not what the agent last saw."""
        target = self._target(event)
        if target is None:
            return None
        current = checks.content_hash(target.real)
        seen = (OBSERVED_FILES.get(event.run) or {}).get(target.real)
        if current in (NOT_A_FILE, seen):
            return None  # unchanged or new, or not a file (for the tool to refuse)
        shown = target.shown
        if seen is None:
            if not self.require_read:
                return None
            reason = "unread"
            message = f"{shown} exists but was not read in this run; Read it first"
        elif current is None:
            reason = "deleted"
            message = f"{shown} was deleted since you read it; check whether it should exist"
        else:
            reason = "changed"
            message = f"{shown} changed since you read it; Read it again and redo the change"
        return _refuse(
            STALE_FILE,
            f"{message}, so that your change is made to its current content.",
            event,
            path=shown,
            reason=reason,
            observed_sha256=seen,
            current_sha256=current,
        )

    # -- the locks' record ------------------------------------------------------------
    def observe_file(self, event: ToolResultEvent) -> HookResult | None:
        """Record the hash of a file the agent read or wrote successfully."""
        if event.result.is_error:
            return None
        target = Target.of(event.args, self.path_args, self.roots)
        if target is None:
            return None
        digest = checks.content_hash(target.real)
        observed = dict(OBSERVED_FILES.get(event.run) or {})
        if digest is None or digest == NOT_A_FILE or observed.get(target.real) == digest:
            return None
        observed[target.real] = digest
        return OBSERVED_FILES.set(observed)

    # -- helpers ----------------------------------------------------------------------
    def _target(self, event: ToolCallEvent) -> Target | None:
        return Target.of(event.args, self.path_args, self.roots)

    def _selected(self, run: RunView) -> Intent | None:
        intent_id = ACTIVE_INTENT.get(run)
        return None if intent_id is None else self.file.find(intent_id)

    def _no_intent(self, event: ToolCallEvent, intent_id: str | None) -> HookResult:
        if intent_id is None:
            message = (
                "Handshake required: call select_active_intent(intent_id) with one of "
                f"`intents` before calling {event.tool_name}."
            )
        else:
            message = (
                f"The selected intent {intent_id!r} is no longer in {self.file.path}; call "
                "select_active_intent with one of `intents`."
            )
        return _refuse(NO_ACTIVE_INTENT, message, event, intents=self._listing())

    def _listing(self) -> list[dict[str, str]]:
        """The intents to choose from; none if the file is missing or unreadable."""
        try:
            return [intent.summary() for intent in self.file.load() or ()]
        except ConfigError:
            return []


def _refuse(code: str, message: str, event: ToolCallEvent, **facts: Any) -> HookResult:
    """A block whose whole reason is the JSON error the model reads."""
    return HookResult.block(
        tool_error(code, message, tool=event.tool_name, call_id=event.call_id, **facts)
    )
