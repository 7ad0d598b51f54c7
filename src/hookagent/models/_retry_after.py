"""How long a provider asked us to wait: `retry-after-ms`, or `Retry-After` in seconds or as
an HTTP date. The error policy honours it instead of its own backoff."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

__all__ = ["retry_after"]


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, or None when the response did not say (or said nonsense)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)
