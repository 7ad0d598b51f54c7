"""What a message tells the user to do, in the words of the surface they are on.

The library's messages name its Python API ("pass approver= to run()"). A surface that is not
Python code, the command line, installs its own advice for the same situations with
`surface(...)`, and the message then names its options instead. The library knows the
situations, never the surface.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import Final

__all__ = ["NO_APPROVER", "UNPRICED_MODEL", "advice", "surface"]

NO_APPROVER: Final = "no_approver"
"""A hook asked a question and the run has no approver to ask it of."""
UNPRICED_MODEL: Final = "unpriced_model"
"""A cost limit met a model it has no price for; `{model}` is the model's name."""

_ADVICE: ContextVar[Mapping[str, str]] = ContextVar(
    "hookagent_advice", default=MappingProxyType({})
)


def advice(situation: str, default: str, **fields: str) -> str:
    """The current surface's advice for `situation`, else `default`; `{name}` placeholders
    in either are filled from `fields`."""
    text = _ADVICE.get().get(situation, default)
    for name, value in fields.items():
        text = text.replace("{" + name + "}", value)
    return text


@contextmanager
def surface(remedies: Mapping[str, str]) -> Iterator[None]:
    """Within the block (and the tasks and runs it starts), `advice` gives `remedies`."""
    token = _ADVICE.set(MappingProxyType(dict(remedies)))
    try:
        yield
    finally:
        _ADVICE.reset(token)
