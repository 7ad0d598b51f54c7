"""Reading how long a provider asked us to wait."""

from __future__ import annotations

import email.utils
import time

import pytest

from hookagent.models._retry_after import retry_after


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": "whenever"}, None),
        ({}, None),
    ],
)
def test_seconds_and_milliseconds(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_an_http_date_counts_from_now() -> None:
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    wait = retry_after({"retry-after": later})
    assert wait is not None and 25 <= wait <= 30
    earlier = email.utils.formatdate(time.time() - 30, usegmt=True)
    assert retry_after({"retry-after": earlier}) == 0.0
