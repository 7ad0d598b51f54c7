"""Live views of a run: the events `Agent.stream` yields, and the observer that makes them."""

from hookagent.live import _events
from hookagent.live._events import *  # noqa: F403  # every event type is this package's
from hookagent.live._observer import LiveObserver

__all__ = ["LiveObserver"]
__all__ += _events.__all__
