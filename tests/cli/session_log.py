"""A settings file whose SessionStart and SessionEnd command hooks log what they were told."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

__all__ = ["logged", "session_hooks"]

_LOG_SESSION = """
import json, sys
event = json.load(sys.stdin)
with open("sessions.log", "a") as log:
    log.write(f"{event['hook_event_name']} {event.get('source') or event.get('reason')}\\n")
"""


def session_hooks(project: Path) -> str:
    """Write `settings.json` into `project`: each SessionStart and SessionEnd hook appends
    `EVENT SOURCE-OR-REASON` to `sessions.log` there. The settings file's name."""
    (project / "log_session.py").write_text(_LOG_SESSION)
    command = f"{shlex.quote(sys.executable)} log_session.py"
    hook = {"hooks": [{"type": "command", "command": command}]}
    settings = {"hooks": {"SessionStart": [hook], "SessionEnd": [hook]}}
    (project / "settings.json").write_text(json.dumps(settings))
    return "settings.json"


def logged(project: Path) -> list[str]:
    """The lines the session hooks logged in `project`, in order."""
    return (project / "sessions.log").read_text().splitlines()
