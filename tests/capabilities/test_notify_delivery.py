"""How `Notify` delivers: retried with exponential backoff until a 2xx, a 4xx given up at
once, and a webhook that never answers or refuses the connection costs the run nothing (it
ends while the message is still in flight); failures are logged and reported without the
webhook's path or headers; bad options are refused, naming the option."""

from __future__ import annotations

import logging
import socket
import ssl
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.capabilities.notify import Delivery, Notify, Retry, check_url
from hookagent.capabilities.notify._delivery import post, shown

from .test_notify import builder, deploying
from .webhook_server import webhook

APPROVE = {"approver": lambda q: h.Answer.approve()}


async def run_once(notify: Notify) -> h.RunResult:
    agent = builder(notify, deploying(), h.testing.reply("Done.")).build()
    return await agent.run("ship it", **APPROVE)


async def test_a_failing_webhook_is_retried_until_it_accepts() -> None:
    with webhook([500, 503], path="/hook/SECRET-PATH") as hook:
        notify = Notify(hook.url, backoff=0.01)
        result = await run_once(notify)
        await notify.drain()
    assert result.status == "completed"
    assert len(hook.bodies) == 3 and hook.bodies[0] == hook.bodies[2]
    [delivery] = notify.deliveries
    assert (delivery.attempts, delivery.error) == (3, None)
    assert notify.failures == ()


async def test_retries_wait_longer_each_time_up_to_the_cap() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    retry = Retry(attempts=5, backoff=0.25, max_backoff=1.0, timeout=5)
    with webhook([500, 502, 503, 504, 500]) as hook:
        attempts, error = await post(hook.url, b"{}", {}, retry, sleep=sleep)
    assert (attempts, error) == (5, "HTTP 500")
    assert waits == [0.25, 0.5, 1.0, 1.0]
    assert retry.longest == 5 * 5 + sum(waits)


async def test_a_refusal_is_not_retried_and_is_reported_without_secrets(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reported: list[Delivery] = []
    with webhook([403], path="/services/T0/B0/SECRET-PATH?token=SECRET-QUERY") as hook:
        notify = Notify(
            hook.url,
            headers={"Authorization": "Bearer SECRET-TOKEN"},
            backoff=0.01,
            on_failure=reported.append,
        )
        with caplog.at_level(logging.WARNING, logger="hookagent.notify"):
            result = await run_once(notify)
            await notify.drain()
    assert result.status == "completed"
    assert len(hook.received) == 1
    assert hook.received[0]["headers"]["authorization"] == "Bearer SECRET-TOKEN"
    [failure] = reported
    assert notify.failures == (failure,)
    assert (failure.attempts, failure.error) == (1, "HTTP 403")
    port = hook.url.split(":")[2].split("/")[0]
    assert failure.url == f"http://127.0.0.1:{port}/…"
    shown_text = str(failure) + caplog.text + repr(notify)
    assert f"run {result.run_id} to http://127.0.0.1:{port}/… failed after 1 attempt" in (
        shown_text
    )
    assert "SECRET" not in shown_text


async def test_a_webhook_that_never_answers_does_not_hold_the_run() -> None:
    with webhook(hold=True) as hook:
        notify = Notify(hook.url, attempts=2, timeout=1.0, backoff=0.01)
        started = time.monotonic()
        result = await run_once(notify)
        took = time.monotonic() - started
        in_flight = notify.deliveries  # the run ended first
        await notify.drain()
        drained = time.monotonic() - started
    assert result.status == "completed" and in_flight == ()
    assert took < notify.retry.longest <= drained  # a bound, generous either way
    [failure] = notify.failures
    assert failure.attempts == 2 and failure.error is not None
    assert failure.error.startswith("ReadTimeout")
    assert len(hook.received) == 2


async def test_a_refused_connection_fails_the_message_never_the_run() -> None:
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    notify = Notify(f"http://127.0.0.1:{port}/hook", attempts=3, backoff=0.01)
    result = await run_once(notify)
    await notify.drain()
    assert result.status == "completed"
    [failure] = notify.failures
    assert failure.attempts == 3 and str(failure.error).startswith("ConnectError")


async def test_drain_gives_up_what_is_still_in_flight_after_its_timeout() -> None:
    with webhook(hold=True) as hook:
        notify = Notify(hook.url, attempts=1, timeout=30.0)
        await run_once(notify)
        started = time.monotonic()
        await notify.drain(timeout=0.2)
        assert time.monotonic() - started < 10
    [failure] = notify.failures
    assert (failure.attempts, failure.error) == (1, "given up: stopped waiting for it")


async def test_several_webhooks_each_get_the_message() -> None:
    with webhook() as first, webhook([400]) as second:
        notify = Notify([first.url, second.url, first.url], backoff=0.01)
        await run_once(notify)
        await notify.drain()
    assert len(first.bodies) == 1 and first.bodies == second.bodies  # repeats sent once
    assert sorted(str(d.error) for d in notify.deliveries) == ["HTTP 400", "None"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"url": "ftp://example.com/hook"}, "Notify(url): must be an http:// or https:// URL"),
        ({"url": "http://"}, "Notify(url): must be an http:// or https:// URL with a host"),
        ({"url": "https://host:99999/x"}, "Notify(url): not a URL"),
        ({"url": []}, "Notify(url): at least one webhook URL is needed"),
        ({"url": [None]}, "Notify(url): must be an http:// or https:// URL, not None"),
        ({"inbox_url": "localhost:8765/ui"}, "Notify(inbox_url): must be an http://"),
        ({"attempts": 0}, "Notify(attempts): must be at least 1"),
        ({"backoff": -1}, "Notify(backoff): must be a number of seconds ≥ 0"),
        ({"timeout": 0}, "Notify(timeout): must be more than 0 seconds"),
        ({"max_chars": 0}, "Notify(max_chars): must be at least 1"),
        ({"headers": {"X-Token": 1}}, "Notify(headers): names and values must be strings"),
        ({"find_within": -1}, "Notify(find_within): must be ≥ 0"),
    ],
)
def test_bad_options_are_refused_naming_the_option(kwargs: dict[str, object], message: str) -> None:
    options: dict[str, object] = {"url": "https://hooks.example.com/x", **kwargs}
    with pytest.raises(ConfigError) as caught:
        Notify(**options)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_check_url_names_the_option_it_checks() -> None:
    assert check_url(" https://h.example/x ", key="--notify") == "https://h.example/x"
    with pytest.raises(ConfigError, match=r"^--notify: must be an http"):
        check_url("hooks.example.com", key="--notify")


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=8, max_size=40))
def test_a_url_is_shown_without_its_path_query_or_password(secret: str) -> None:
    url = f"https://bot:{secret}@hooks.example.net:8443/services/{secret}?token={secret}"
    assert shown(url) == "https://hooks.example.net:8443/…"


async def test_certificates_are_loaded_once_not_on_the_loop_at_each_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(self: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loads.append(args or kwargs)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    notify = Notify(["https://127.0.0.1:9/x", "http://127.0.0.1:9/y"], attempts=1)
    made = len(loads)
    for _ in range(3):
        await run_once(notify)
    await notify.drain()
    assert len(notify.failures) == 6 and len(loads) == made
