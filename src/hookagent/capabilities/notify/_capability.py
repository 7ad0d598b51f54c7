"""`Notify`: POST a JSON message to webhooks each time a run asks a human a question.

Two observer hooks, which never vote. At `permission_request` a human is about to be asked,
unless a permission hook answered (this hook runs last and sees the fold's outcome): a run
kept nowhere asks its approver, so the question is sent at once. A run kept in a store
either pauses, and its question is then looked up in the store for its id (the inbox link
names it) and its expiry, and sent; or, with an approver, asks it in this process, which the
`notification` hook (`permission_prompt`) sees: the question is sent at once, without an id.

Delivery is fire-and-forget for the run: each message is a task of its own, retried with
backoff (`Retry`), and a failure never reaches the run. It is logged (logger
`hookagent.notify`), kept in `deliveries` and handed to `on_failure`. A process that ends
after its runs should `await notify.drain()` first, so that messages still in flight go out.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, final

from hookagent._errors import ConfigError
from hookagent._record import record
from hookagent.capabilities.notify._delivery import (
    Retry,
    check_retry,
    check_url,
    post,
    shown,
    tls_for,
)
from hookagent.capabilities.notify._payload import Asked, payload
from hookagent.hooks._events import NotificationEvent, PermissionEvent
from hookagent.hooks._hook import Hook, make_hook
from hookagent.hooks._points import NOTIFICATION, PERMISSION_REQUEST
from hookagent.hooks._result import HookResult
from hookagent.store._records import QuestionRecord, SessionRecord
from hookagent.tools._base import Tool

if TYPE_CHECKING:
    from hookagent._agent import Agent
    from hookagent.store._base import Store

__all__ = ["Delivery", "Notify"]

log = logging.getLogger("hookagent.notify")


@record
class Delivery:
    """One message to one webhook: `error` is None once it was accepted (a 2xx)."""

    url: str
    """The webhook as logs show it: scheme, host and port (see `delivery.shown`)."""
    run_id: str
    question_id: str | None
    attempts: int
    error: str | None = None

    def __str__(self) -> str:
        about = f"question {self.question_id}" if self.question_id else "a question"
        where = f"{about} of run {self.run_id} to {self.url}"
        if self.error is None:
            return f"notified {where}"
        tries = "attempt" if self.attempts == 1 else "attempts"
        return f"notification of {where} failed after {self.attempts} {tries}: {self.error}"


@final
class Notify:
    """POST each question a run asks a human to `url` (one or several webhooks).

    Args:
        url: the webhook(s): http:// or https:// URLs.
        inbox_url: the inbox page of `hookagent serve` (e.g. `https://host/ui`): each
            message links to it, at the question's card.
        headers: sent with every POST (e.g. `{"Authorization": "Bearer …"}`); never logged.
        attempts, backoff, max_backoff, timeout: see `Retry`.
        max_chars: strings in a call's arguments longer than this are cut.
        find_within: seconds to look for a paused run's question in the store before it is
            sent without its id.
        on_failure: called with each `Delivery` that failed for good.
    """

    name = "notify"

    def __init__(
        self,
        url: str | Sequence[str],
        *,
        inbox_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        attempts: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        timeout: float = 5.0,
        max_chars: int = 2000,
        find_within: float = 5.0,
        on_failure: Callable[[Delivery], None] | None = None,
    ) -> None:
        urls = [url] if isinstance(url, str) else list(url)
        if not urls:
            raise ConfigError("at least one webhook URL is needed", key="Notify(url)")
        self.urls = tuple(dict.fromkeys(check_url(u, key="Notify(url)") for u in urls))
        self.inbox_url = (
            check_url(inbox_url, key="Notify(inbox_url)") if inbox_url is not None else None
        )
        self._headers = _checked_headers(headers)
        check_retry(
            {
                "attempts": attempts,
                "backoff": backoff,
                "max_backoff": max_backoff,
                "timeout": timeout,
            },
            where="Notify",
        )
        self.retry = Retry(
            attempts=attempts, backoff=backoff, max_backoff=max_backoff, timeout=timeout
        )
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1:
            raise ConfigError(f"must be at least 1, not {max_chars!r}", key="Notify(max_chars)")
        self.max_chars = max_chars
        if isinstance(find_within, bool) or not isinstance(find_within, int | float):
            raise ConfigError(f"must be seconds, not {find_within!r}", key="Notify(find_within)")
        if not find_within >= 0:
            raise ConfigError(f"must be ≥ 0, not {find_within!r}", key="Notify(find_within)")
        self.find_within = float(find_within)
        self.on_failure = on_failure
        self._tls = tls_for(self.urls)
        self._store: Store | None = None
        self._looking: list[Asked] = []
        """Questions of runs kept in a store, looked up there until found or prompted."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._deliveries: list[Delivery] = []

    def __repr__(self) -> str:
        return f"Notify({', '.join(shown(u) for u in self.urls)})"

    @property
    def deliveries(self) -> tuple[Delivery, ...]:
        """Every message finished so far, delivered or failed, in order."""
        return tuple(self._deliveries)

    @property
    def failures(self) -> tuple[Delivery, ...]:
        return tuple(d for d in self._deliveries if d.error is not None)

    async def drain(self, timeout: float | None = None) -> None:  # noqa: ASYNC109
        """Wait for the messages in flight in this event loop (at most `timeout` seconds;
        None: until each is delivered or has failed, which `Retry` and `find_within`
        bound). What is still in flight then is given up, as a failure."""
        loop = asyncio.get_running_loop()
        mine = [task for task in self._tasks if task.get_loop() is loop]
        if not mine:
            return
        _, late = await asyncio.wait(mine, timeout=timeout)
        for task in late:
            task.cancel()
        if late:
            await asyncio.wait(late)

    # -- capability -------------------------------------------------------------------
    def tools(self) -> Iterable[Tool]:
        return ()

    def hooks(self) -> Iterable[Hook[Any]]:
        options: dict[str, Any] = {
            "source": self.name,
            "tier": "audit",
            "kind": "observer",
            "always": True,
            "timeout": None,  # sync, and instant: they only start tasks
        }
        yield make_hook(PERMISSION_REQUEST, self._asking, name="asked", **options)
        yield make_hook(NOTIFICATION, self._prompted, name="prompted", **options)

    def bind(self, agent: Agent, /) -> None:
        """The agent's store, where a paused run's question is looked up."""
        self._store = agent.store

    bind_agent = bind

    # -- hooks ------------------------------------------------------------------------
    def _asking(self, event: PermissionEvent, outcome: HookResult) -> None:
        if outcome.kind in ("block", "stop") or event.answer is not None:
            return  # a permission hook answered: no human is asked
        run = event.run
        asked = Asked(
            question=event.question,
            session_id=run.session_id,
            agent_type=run.agent_type,
            asked_at=time.time(),
        )
        if self._store is None or run.session_id is None:
            self._start(self._send(asked, None, _expiry(asked), None))
        else:
            self._looking.append(asked)
            self._start(self._pause_of(asked, self._store))

    def _prompted(self, event: NotificationEvent) -> None:
        """A run kept in a store asks its approver: the question is not stored."""
        if event.kind != "permission_prompt":
            return
        for asked in self._looking:
            question = asked.question
            if (
                question.run_id == event.run.run_id
                and question.question == event.message
                and question.point == event.details.get("point")
            ):
                self._claim(asked)
                self._start(self._send(asked, None, _expiry(asked), None))
                return

    # -- delivery ---------------------------------------------------------------------
    def _start(self, job: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(job)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _still_looking(self, asked: Asked) -> bool:
        return any(item is asked for item in self._looking)

    async def _pause_of(self, asked: Asked, store: Store) -> None:
        """Wait for the question the paused run left in the store, then send it; stop
        looking when the approver is asked instead (`_prompted` sends it), or after
        `find_within` seconds."""
        found: QuestionRecord | None = None
        session: SessionRecord | None = None
        deadline, wait = time.monotonic() + self.find_within, 0.01
        claimed = False
        try:
            while self._still_looking(asked):
                found = _match(asked, await store.questions(asked.question.run_id))
                if found is not None or time.monotonic() >= deadline:
                    break
                await asyncio.sleep(wait)
                wait = min(wait * 2, 0.25)
            claimed = self._claim(asked)
            if claimed:
                session = await store.session(asked.session_id) if asked.session_id else None
        except Exception as exc:  # the store failed or closed: the message still goes
            log.warning("the store could not be read for a question: %s", exc)
            claimed = claimed or self._claim(asked)
        if not claimed:
            return
        if found is None:
            log.warning("question of run %s sent without its id", asked.question.run_id)
            await self._send(asked, None, None, session)
        else:
            await self._send(asked, found.id, found.expires_at, session)

    def _claim(self, asked: Asked) -> bool:
        """Take `asked` off the questions looked up: False if `_prompted` took it first."""
        for index, item in enumerate(self._looking):
            if item is asked:
                del self._looking[index]
                return True
        return False

    async def _send(
        self,
        asked: Asked,
        question_id: str | None,
        expires_at: float | None,
        session: SessionRecord | None,
    ) -> None:
        body = payload(
            asked,
            question_id=question_id,
            expires_at=expires_at,
            session=session,
            inbox_url=self.inbox_url,
            max_chars=self.max_chars,
        )
        data = json.dumps(body, ensure_ascii=False, default=str).encode()
        await asyncio.gather(*(self._post(url, data, asked, question_id) for url in self.urls))

    async def _post(self, url: str, data: bytes, asked: Asked, question_id: str | None) -> None:
        made = 0

        def attempting(attempt: int) -> None:
            nonlocal made
            made = attempt

        try:
            attempts, error = await post(
                url, data, self._headers, self.retry, verify=self._tls, attempting=attempting
            )
        except asyncio.CancelledError:
            self._done(url, asked, question_id, made, "given up: stopped waiting for it")
            raise
        except Exception as exc:  # a message never fails its run
            attempts, error = made, f"{type(exc).__name__}: {exc}"
        self._done(url, asked, question_id, attempts, error)

    def _done(
        self, url: str, asked: Asked, question_id: str | None, attempts: int, error: str | None
    ) -> None:
        delivery = Delivery(
            url=shown(url),
            run_id=asked.question.run_id,
            question_id=question_id,
            attempts=attempts,
            error=error,
        )
        self._deliveries.append(delivery)
        if error is None:
            return
        log.warning("%s", delivery)
        if self.on_failure is not None:
            try:
                self.on_failure(delivery)
            except Exception:
                log.exception("Notify(on_failure) failed")


def _match(asked: Asked, records: list[QuestionRecord]) -> QuestionRecord | None:
    """The record of `asked` among a run's open questions: same point, hook, step, call and
    text; the newest if several."""
    question = asked.question
    want = (question.point, question.hook, question.step, question.call_id, question.question)
    for row in sorted(records, key=lambda r: r.created_at, reverse=True):
        try:
            data = json.loads(row.data)
        except ValueError:
            continue
        keys = ("point", "hook", "step", "call_id", "question")
        if tuple(data.get(key) for key in keys) == want:
            return row
    return None


def _expiry(asked: Asked) -> float | None:
    timeout = asked.question.timeout
    return asked.asked_at + timeout if timeout is not None else None


def _checked_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ConfigError("must be a mapping of names to values", key="Notify(headers)")
    bad = [
        name
        for name, value in headers.items()
        if not (isinstance(name, str) and isinstance(value, str))
    ]
    if bad:
        raise ConfigError(
            f"names and values must be strings; not for {', '.join(map(repr, bad))}",
            key="Notify(headers)",
        )
    return dict(headers)
