"""Read what one command handler answered, per event (CLAUDE_HOOKS §7).

The exit code comes first: 0 reads stdout; 2 blocks on the events that honour it, with the
JSON's own blocking reason or else stderr; any other code, a timeout or a failed start is a
non-blocking error, unless a valid stdout object decides on an event with a JSON decision.
Whether stdout is text, a valid object or a problem is `schemas.read_stdout`'s to say; here a
valid object becomes verdict fields. stderr is never parsed. A failure then meets `onFailure`
(§5.4).

Every text a verdict carries (plain stdout, stderr as a reason or an error, the JSON
`reason`s, `additionalContext`, `systemMessage`, `stopReason`) is capped at 10,000
characters, as Claude Code caps hook output: a longer one becomes a preview and the path of
a file holding it whole (§7.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, Literal, final

from hookagent.claude._model import Decision, HandlerSpec, HandlerVerdict, ProcessOutcome
from hookagent.claude._schemas import (
    JSON_DECISION,
    NO_UNIVERSAL,
    SPECIFIC,
    TOP_DECISION,
    Stdout,
    read_stdout,
)
from hookagent.spill._files import save_text
from hookagent.spill._preview import PREVIEW_CHARS, preview

__all__ = ["FailurePolicy", "apply_failure", "read_verdict"]

FailurePolicy = Literal["continue", "block"]

_PLAIN_CONTEXT: Final = frozenset({"UserPromptSubmit", "UserPromptExpansion", "SessionStart"})
"""Where plain stdout on exit 0 becomes context; elsewhere it only goes to the debug log."""
_EXIT2_BLOCKS: Final[Mapping[str, Decision]] = {
    "PreToolUse": "deny",
    "Elicitation": "deny",
    "ElicitationResult": "deny",
    "UserPromptSubmit": "block",
    "UserPromptExpansion": "block",
    "PostToolUse": "block",
    "PostToolUseFailure": "block",
    "PostToolBatch": "block",
    "Stop": "block",
    "SubagentStop": "block",
    "TaskCreated": "block",
    "TaskCompleted": "block",
    "TeammateIdle": "block",
    "ConfigChange": "block",
    "PreCompact": "block",
    "WorktreeCreate": "block",
}
"""What exit 2 decides where it is honoured (§3, §7.1). PostToolUse's `block` is feedback:
nothing is undone, the reason goes to the model."""
_EXIT2_IGNORED: Final = frozenset(
    {"Notification", "PermissionDenied", "InstructionsLoaded", "StopFailure", "PermissionRequest"}
)
"""Exit 2 means nothing here; on every other event it is a notice for the user."""
_FAILURE_BLOCKS: Final[Mapping[str, Decision]] = {**_EXIT2_BLOCKS, "PermissionRequest": "deny"}
_NO_FAILURE_BLOCK: Final = frozenset({"Stop", "SubagentStop", "TaskCompleted", "TeammateIdle"})

_AS_FIELDS: Final = frozenset(
    {
        "permissionDecision",
        "permissionDecisionReason",
        "updatedInput",
        "additionalContext",
        "updatedToolOutput",
        "updatedMCPToolOutput",
        "decision",
    }
)
"""`hookSpecificOutput` keys that become verdict fields; the others go to `extra`."""


def read_verdict(
    event: str,
    outcome: ProcessOutcome,
    spec: HandlerSpec,
    *,
    text_cap: int = 10_000,
    failure_default: FailurePolicy = "continue",
    spill_dir: str | None = None,
) -> HandlerVerdict:
    """One handler's answer for `event`, per §7 and `onFailure` (§5.4).

    Args:
        text_cap: characters kept of each text the verdict carries; a longer text is saved
            whole to a file in `spill_dir` (the run's folder), and the verdict holds a
            preview naming it (without `spill_dir`, a preview saying it was not saved).
        failure_default: the policy for handlers without `onFailure` (`hooks.on_failure_default`).
    """
    texts = _Texts(event, text_cap, spill_dir, outcome)
    if outcome.exit_code is None:
        verdict = HandlerVerdict(failed=True, error=outcome.error or "the hook did not run")
        failure_reason = verdict.error
    else:
        stdout = _read(event, outcome)
        if outcome.exit_code == 0:
            verdict = _exit_zero(event, stdout, texts)
        elif outcome.exit_code == 2:
            verdict = _exit_two(event, stdout, texts)
        else:
            verdict = _other_exit(event, stdout, outcome, texts)
        failure_reason = _failure_reason(outcome, stdout, verdict, texts)
    if texts.saved:
        verdict = replace(verdict, extra={**verdict.extra, "overflow_files": texts.saved})
    if verdict.failed:
        verdict = apply_failure(event, spec, verdict, failure_reason, failure_default)
    return verdict


def _read(event: str, outcome: ProcessOutcome) -> Stdout:
    """stdout as `event` reads it; one longer than what was kept cannot be read as JSON."""
    if outcome.stdout_bytes > len(outcome.stdout.encode()) and outcome.stdout.lstrip()[:1] == "{":
        saved = f"; it is saved whole in {outcome.stdout_file}" if outcome.stdout_file else ""
        return Stdout(
            problem=f"hook output is {outcome.stdout_bytes:,} bytes, more than the "
            f"{len(outcome.stdout.encode()):,} read as JSON{saved}"
        )
    return read_stdout(event, outcome.stdout)


def _exit_zero(event: str, stdout: Stdout, texts: _Texts) -> HandlerVerdict:
    if stdout.problem is not None:
        return HandlerVerdict(failed=True, error=stdout.problem)  # never context (§7.2)
    if stdout.obj is not None:
        return _from_json(event, stdout.obj, texts)
    if stdout.text and event in _PLAIN_CONTEXT:
        return HandlerVerdict(additional_context=texts.cap(stdout.text, "stdout"))
    return HandlerVerdict()


def _exit_two(event: str, stdout: Stdout, texts: _Texts) -> HandlerVerdict:
    """A valid object is still read; where exit 2 blocks, it decides, and a JSON `allow`
    cannot lift it. The reason: the object's own blocking reason, else stderr."""
    read = _exit_zero(event, replace(stdout, text=""), texts)
    blocking = _EXIT2_BLOCKS.get(event)
    if blocking is None:
        if event in _EXIT2_IGNORED:
            return read
        return replace(read, error=_join(read.error, texts.stderr() or "exit code 2"))
    own = read.reason if read.decision == blocking else None
    reason = own or texts.stderr() or None
    return replace(read, decision=blocking, reason=reason, updated_input=None)


def _other_exit(
    event: str, stdout: Stdout, outcome: ProcessOutcome, texts: _Texts
) -> HandlerVerdict:
    if event in JSON_DECISION and stdout.obj is not None:
        return _from_json(event, stdout.obj, texts)  # decides alone, no error (§7.1)
    return HandlerVerdict(failed=True, error=_failure_message(outcome, texts))


def _failure_message(outcome: ProcessOutcome, texts: _Texts) -> str:
    for line in outcome.stderr.splitlines():
        if line.strip():
            return texts.cap(line.strip(), "stderr")
    if outcome.error is not None:
        return outcome.error
    code = outcome.exit_code
    if code is not None and code < 0:
        return f"killed by signal {-code}"
    return f"exit code {code}"


def _failure_reason(
    outcome: ProcessOutcome, stdout: Stdout, verdict: HandlerVerdict, texts: _Texts
) -> str | None:
    """What a failure turned block says: a failing exit's whole stderr, else the problem."""
    stderr = texts.stderr()
    if outcome.exit_code not in (0, 2) and stderr:
        return stderr
    return stdout.problem or verdict.error


def apply_failure(
    event: str,
    spec: HandlerSpec,
    verdict: HandlerVerdict,
    reason: str | None,
    default: FailurePolicy,
) -> HandlerVerdict:
    """`onFailure: "block"` makes a failure act as exit 2 (on PermissionRequest: deny)."""
    policy = spec.on_failure or default
    if policy != "block" or event in _NO_FAILURE_BLOCK or spec.run_async or spec.async_rewake:
        return verdict
    blocking = _FAILURE_BLOCKS.get(event)
    if blocking is None or verdict.decision == blocking:
        return verdict
    return replace(verdict, decision=blocking, reason=reason, updated_input=None)


def _from_json(event: str, obj: Mapping[str, Any], texts: _Texts) -> HandlerVerdict:
    specific: Mapping[str, Any] = obj.get("hookSpecificOutput", {})
    table = SPECIFIC.get(event, {})
    fields: dict[str, Any] = {}
    extra = {k: specific[k] for k in table if k in specific and k not in _AS_FIELDS}
    if event not in NO_UNIVERSAL:
        fields.update(_universal(obj, texts))
    if "terminalSequence" in obj and (event not in NO_UNIVERSAL or event == "Notification"):
        extra["terminalSequence"] = obj["terminalSequence"]
    if event in ("CwdChanged", "FileChanged") and "watchPaths" in obj:
        extra["watchPaths"] = obj["watchPaths"]
    if event == "PreToolUse":
        fields.update(_pre_tool_use(obj, specific))
    elif event == "PermissionRequest" and "decision" in specific:
        fields.update(_permission_choice(specific["decision"], extra))
    elif event in TOP_DECISION and obj.get("decision") == "block":
        fields.update(decision="block", reason=obj.get("reason"))
    if "additionalContext" in table and specific.get("additionalContext"):
        fields["additional_context"] = texts.cap(specific["additionalContext"], "additionalContext")
    if event == "PostToolUse":
        fields["updated_output"] = specific.get(
            "updatedToolOutput", specific.get("updatedMCPToolOutput")
        )
    for key, name in (("reason", "reason"), ("stop_reason", "stopReason")):
        if isinstance(fields.get(key), str):
            fields[key] = texts.cap(fields[key], name)
    return HandlerVerdict(**fields, extra=extra)


def _universal(obj: Mapping[str, Any], texts: _Texts) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if obj.get("continue") is False:
        fields.update(continue_=False, stop_reason=obj.get("stopReason"))
    if obj.get("systemMessage"):
        fields["system_message"] = texts.cap(obj["systemMessage"], "systemMessage")
    return fields


def _pre_tool_use(obj: Mapping[str, Any], specific: Mapping[str, Any]) -> dict[str, Any]:
    decision = specific.get("permissionDecision")
    reason = specific.get("permissionDecisionReason")
    if decision is None and "decision" in obj:  # legacy top-level form (§7.7)
        decision = "allow" if obj["decision"] == "approve" else "deny"
        reason = obj.get("reason", reason)
    fields: dict[str, Any] = {"decision": decision or "none", "reason": reason}
    if decision in (None, "allow", "ask") and "updatedInput" in specific:
        fields["updated_input"] = specific["updatedInput"]  # replaces the whole input
    return fields


def _permission_choice(choice: Mapping[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    if choice["behavior"] == "allow":
        if "updatedPermissions" in choice:
            extra["updatedPermissions"] = choice["updatedPermissions"]
        return {"decision": "allow", "updated_input": choice.get("updatedInput")}
    if "interrupt" in choice:
        extra["interrupt"] = choice["interrupt"]
    return {"decision": "deny", "reason": choice.get("message")}


def _join(first: str | None, second: str) -> str:
    return second if first is None else f"{first}\n{second}"


@final
class _Texts:
    """Caps texts at `cap` characters (§7.2): a longer one becomes a preview and the path of
    a file holding it whole. Text from an output stream names the file holding the whole
    stream: the runner's copy when the stream was longer than what it kept, else one saved
    here once for every text taken from that stream."""

    __slots__ = ("_cap", "_dir", "_event", "_outcome", "_stderr", "saved")

    def __init__(self, event: str, cap: int, spill_dir: str | None, outcome: ProcessOutcome):
        self._event = event
        self._cap = cap
        self._dir = spill_dir
        self._outcome = outcome
        self._stderr: str | None = None
        self.saved: dict[str, str] = {}
        """Field name → the file holding its full text."""

    def stderr(self) -> str:
        """The hook's stderr, trimmed and capped."""
        if self._stderr is None:
            self._stderr = self.cap(self._outcome.stderr.strip(), "stderr")
        return self._stderr

    def cap(self, text: str, name: str) -> str:
        if len(text) <= self._cap:
            return text
        path, size, error = self._whole(text, name)
        if path is not None:
            self.saved[name] = path
        what = f"{self._event} hook {name}"
        chars = min(self._cap, PREVIEW_CHARS)
        return preview(text, what=what, size=size, path=path, error=error, chars=chars)

    def _whole(self, text: str, name: str) -> tuple[str | None, str, str | None]:
        """The file holding `text` whole (None if it could not be saved), the size of what
        it holds, and why it could not be saved."""
        stream = _stream(self._outcome, name)
        if stream is not None:
            whole, file, total = stream
            if file is not None:
                return file, f"{total:,} bytes", None
            if total > len(whole.encode()):  # cut by the runner, nowhere to save the rest
                return None, f"{total:,} bytes", None
            text = whole
        size = f"{len(text):,} characters"
        if name in self.saved:
            return self.saved[name], size, None
        if self._dir is None:
            return None, size, None
        try:
            return save_text(Path(self._dir), f"hook-{self._event}-{name}", text), size, None
        except OSError as exc:
            return None, size, f"{exc.strerror or exc}: {exc.filename or self._dir}"


def _stream(outcome: ProcessOutcome, name: str) -> tuple[str, str | None, int] | None:
    """The stream `name` is: its text, the runner's file of it, its size in bytes."""
    if name == "stdout":
        return outcome.stdout, outcome.stdout_file, outcome.stdout_bytes
    if name == "stderr":
        return outcome.stderr, outcome.stderr_file, outcome.stderr_bytes
    return None
