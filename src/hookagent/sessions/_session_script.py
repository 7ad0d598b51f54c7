"""A `scripted:` model continuing a session: which of the session's replies its script covers.

A script kept with a session answers by the history (turn k for the k-th reply), so one
script can serve a whole session, across resumes. Continuing the session with the script its
last run used goes on counting from where that script started; continuing it with another
script starts that script at the new run: its turns are this run's replies. What was decided
is saved with the run (`RunOptions.replies_before`), so `resume` and `worker` count the same.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from hookagent._errors import ConfigError
from hookagent.sessions._agent_spec import RunOptions, options_of, scripted_path

if TYPE_CHECKING:
    from hookagent.store._base import Store

__all__ = ["continued_script"]


async def continued_script(store: Store, options: RunOptions) -> RunOptions:
    """`options` with `replies_before` set for a scripted run that continues a session."""
    path = scripted_path(options)
    if path is None or options.session is None or options.clear:  # cleared: no replies before
        return options
    session = await store.session(options.session)
    if session is None or session.head_run_id is None:
        return options
    head = await store.load(session.head_run_id)
    if head is None:
        return options
    try:
        before = options_of(head.run)
    except ConfigError:  # a run started from Python: its script is not this one
        before = None
    if before is not None and scripted_path(before) == path:
        return replace(options, replies_before=before.replies_before)
    from hookagent._messages import AssistantMessage
    from hookagent.durable import _codec as codec

    messages = (codec.load("message", m) for m in head.messages)
    replies = sum(1 for m in messages if isinstance(m, AssistantMessage))
    return replace(options, replies_before=replies)
