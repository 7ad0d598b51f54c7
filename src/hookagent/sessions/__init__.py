"""Kept runs put to work again: resumed, submitted, forked, replayed under changed hooks.

What the command line and `hookagent serve` share. Above the agent: these rebuild agents
from what a run kept, where `hookagent.durable` below only keeps and reopens runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookagent._lazy import attribute_loader

if TYPE_CHECKING:
    from hookagent.sessions._kept_runs import replay_run, resume, submit
    from hookagent.sessions._replay import Recording, ReplayReport, load_recording, replay

_HOME = {
    "load_recording": "hookagent.sessions._replay",
    "Recording": "hookagent.sessions._replay",
    "replay_run": "hookagent.sessions._kept_runs",
    "ReplayReport": "hookagent.sessions._replay",
    "replay": "hookagent.sessions._replay",
    "resume": "hookagent.sessions._kept_runs",
    "submit": "hookagent.sessions._kept_runs",
}

__all__ = [
    "Recording",
    "ReplayReport",
    "load_recording",
    "replay",
    "replay_run",
    "resume",
    "submit",
]

__getattr__ = attribute_loader(__name__, _HOME, globals())
