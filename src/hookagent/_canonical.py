"""Canonical JSON and the digests built on it: equal values, equal text, equal hash.

Used wherever a value must be recognised again later: a tool call's idempotency key (the
same in a run with or without a store), an approval's fingerprint, an agent's policy version.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from hookagent import _surrogates as surrogates

__all__ = ["call_key", "canonical", "digest", "plain"]


def plain(value: Any) -> Any:
    """Read-only mappings and sequences (views of the run, windows of its history) as plain
    objects and lists; anything else as its repr."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    return repr(value)


def canonical(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal arguments, equal text (surrogates replaced,
    so arguments read back from the store give the text they were written with)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=plain)
    return surrogates.replace_escapes(text)


def digest(*parts: Any) -> str:
    return hashlib.sha256(canonical(list(parts)).encode()).hexdigest()[:32]


def call_key(run_id: str, call_id: str, canonical_args: str) -> str:
    """A tool call's idempotency key: what the journal records and the tool is given."""
    return digest(run_id, call_id, canonical_args)
