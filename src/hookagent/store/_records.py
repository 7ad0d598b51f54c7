"""What a store keeps, as plain records: JSON text for anything shaped by the runtime, so a
store never needs to know hookagent's types (and an older store can read newer data)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict, final

__all__ = [
    "CallRecord",
    "CallState",
    "Checkpoint",
    "Flush",
    "JournalEntry",
    "QuestionRecord",
    "RunRecord",
    "RunStatus",
    "SessionQuery",
    "SessionRecord",
    "StoredRun",
    "TokenRecord",
    "TokenRole",
]

RunStatus = Literal["queued", "running", "waiting", "completed", "failed", "stopped"]
TokenRole = Literal["viewer", "approver", "admin"]
CallState = Literal["planned", "approved", "started", "done", "failed", "in_doubt"]


class SessionQuery(TypedDict, total=False):
    """What `Store.find_sessions` selects: sessions in `status` whose title or name holds
    `search`, `limit` of them from `offset`."""

    status: str | None
    search: str | None
    limit: int
    offset: int


@final
@dataclass(slots=True, kw_only=True)
class SessionRecord:
    id: str
    name: str | None
    created_at: float
    updated_at: float
    head_run_id: str | None = None
    """The newest run of the session: the one a new message continues."""
    forked_from: str | None = None
    status: str = "idle"
    """The head run's status, for listing without a join ("idle" before any run)."""
    title: str = ""
    """The first prompt, cut short, to recognise a session in a list."""


@final
@dataclass(slots=True, kw_only=True)
class RunRecord:
    id: str
    session_id: str
    status: RunStatus
    created_at: float
    updated_at: float
    parent_run_id: str | None = None
    prompt: str | None = None
    scalars: str = "{}"
    """JSON: usage, output, stop reason and message, error, metadata, elapsed, position,
    stop-block streak — the small part of the state, rewritten at each checkpoint."""
    checkpoint: Checkpoint | None = None
    lease_owner: str | None = None
    """Who holds the run's lease while `lease_until` is ahead, or held it last (a release
    ends the lease but keeps the name, so a writer fenced off can be told who took over)."""
    lease_until: float = 0.0
    policy_version: str = ""
    lease_epoch: int = 0
    """The fencing token: 0 for a run never held, then one more at every claim. A write
    names the epoch its writer claimed, and is refused once the run was claimed again."""


@final
@dataclass(slots=True, kw_only=True)
class Checkpoint:
    """Where the durable state of a run stands.

    How many messages, steps and decisions belong to the state as it stood when segment
    `segment` began (a segment is one turn of the loop: a step and the decision to go on)."""

    segment: int
    messages: int
    steps: int
    decisions: int
    scalars: str = "{}"
    """The run's scalars as they stood then (the run's `scalars` move on as it runs)."""


@final
@dataclass(slots=True, kw_only=True)
class JournalEntry:
    """One effect of the current segment (a fold's result, a model reply, an answer), keyed
    so a resumed run finds it instead of redoing it."""

    segment: int
    key: str
    kind: str
    data: str
    """JSON."""


@final
@dataclass(slots=True, kw_only=True)
class CallRecord:
    """A tool call's journal line: `planned → approved → started → done | failed`."""

    call_id: str
    step: int
    name: str
    args: str
    """Canonical JSON of the arguments the tool runs with."""
    idempotency_key: str
    state: CallState
    result: str | None = None
    """JSON of the result once done or failed."""
    updated_at: float = 0.0


@final
@dataclass(slots=True, kw_only=True)
class QuestionRecord:
    """A question a paused run waits on, and its answer once someone gave one."""

    id: str
    run_id: str
    session_id: str
    key: str
    """The journal key of the fold that asked."""
    data: str
    """JSON of the question (hook, point, text, tool, args, options, default)."""
    fingerprint: str | None
    created_at: float
    expires_at: float | None = None
    answer: str | None = None
    """JSON of the answer (approved, reason, by, scope, ttl)."""
    answered_at: float | None = None


@final
@dataclass(slots=True, kw_only=True)
class Flush:
    """Everything one durability barrier writes, in one transaction: rows appended since the
    last flush, journal entries, call states, and the run's new scalars."""

    run_id: str
    status: RunStatus
    scalars: str
    at: float
    """When (epoch seconds): the run's and its session's `updated_at`."""
    worker: str | None = None
    """Who writes, with `epoch`: the flush is refused unless the run's lease is still the
    one this worker claimed (same holder, same epoch). None writes to a run no one has ever
    held (epoch 0), as a fork does."""
    epoch: int = 0
    lease: float = 0.0
    """Seconds the writer's lease is extended by, from `at` (a barrier renews the lease)."""
    messages: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """(index, JSON) of messages appended since the last flush."""
    steps: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    """(index, JSON of the step record) of steps finished since the last flush."""
    decisions: list[tuple[int, str]] = field(default_factory=list[tuple[int, str]])
    journal: list[JournalEntry] = field(default_factory=list[JournalEntry])
    calls: list[CallRecord] = field(default_factory=list[CallRecord])
    """Tool-call journal lines to insert or update."""
    checkpoint: Checkpoint | None = None
    """Set when a segment begins: the state up to it is durable, and journal entries of
    older segments are no longer needed to resume."""
    questions: list[QuestionRecord] = field(default_factory=list[QuestionRecord])


@final
@dataclass(slots=True, kw_only=True)
class StoredRun:
    """A run's rows as every store's `load` and `rows` return them (a `RunRows`)."""

    run: RunRecord
    messages: Sequence[str] = field(default_factory=list[str])
    steps: Sequence[str] = field(default_factory=list[str])
    decisions: Sequence[str] = field(default_factory=list[str])
    journal: Sequence[JournalEntry] = field(default_factory=list[JournalEntry])
    calls: Sequence[CallRecord] = field(default_factory=list[CallRecord])


@final
@dataclass(slots=True, kw_only=True)
class TokenRecord:
    """A bearer token of `hookagent serve`: only the SHA-256 of its secret is kept, so the
    store never holds what a request presents."""

    id: str
    name: str
    role: TokenRole
    digest: str
    """Hex SHA-256 of the secret."""
    created_at: float
    revoked_at: float | None = None
