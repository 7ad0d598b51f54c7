"""The inbox's HTML, rendered on the server: every value from the store goes through
`html.escape` (`_e`), so a tool argument holding markup shows as text."""

from __future__ import annotations

import json
import time
from html import escape
from typing import Any

__all__ = ["inbox_page", "login_page", "run_page"]


def _e(value: object) -> str:
    return escape("" if value is None else str(value), quote=True)


def _when(at: float | None) -> str:
    if at is None:
        return "never"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at))


def _layout(
    title: str, body: str, *, script: str | None = None, signed_in: str = "", csrf: str = ""
) -> str:
    nav = (
        f'<nav><a href="/ui">Inbox</a> <span class="who">{_e(signed_in)}</span>'
        '<form method="post" action="/ui/logout" class="inline">'
        f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
        "<button>Sign out</button></form></nav>"
        if signed_in
        else ""
    )
    tag = f'<script src="/ui/static/{script}" defer></script>' if script else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)} · hookagent</title>"
        f'<link rel="stylesheet" href="/ui/static/style.css">{tag}</head>'
        f"<body>{nav}<main><h1>{_e(title)}</h1>{body}</main></body></html>"
    )


def _message(text: str | None) -> str:
    return f'<p class="message" role="alert">{_e(text)}</p>' if text else ""


def login_page(nonce: str, message: str | None = None) -> str:
    body = (
        f"{_message(message)}"
        '<form method="post" action="/ui/login" class="card">'
        f'<input type="hidden" name="csrf" value="{_e(nonce)}">'
        '<label>Token <input type="password" name="token" autocomplete="off" required></label>'
        "<button>Sign in</button></form>"
        "<p>A token of <code>hookagent tokens create --role viewer|approver|admin</code>.</p>"
    )
    return _layout("Sign in", body)


def _value(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _rewrites(item: dict[str, Any]) -> str:
    """What hooks before the asking one changed in the call's arguments, a line per
    argument as a unified diff shows it: `-` as the model gave it, `+` as asked about."""
    changes = item.get("rewritten") or []
    if not changes:
        return ""
    lines = []
    for change in changes:
        key = change["key"]
        if change["change"] != "added":
            lines.append(f"<del>- {_e(key)}: {_e(_value(change['before']))}</del>")
        if change["change"] != "removed":
            lines.append(f"<ins>+ {_e(key)}: {_e(_value(change['after']))}</ins>")
    diff = "\n".join(lines)
    return (
        '<details class="rewritten" open><summary>Rewritten by earlier hooks '
        f"({len(changes)} argument{'s' if len(changes) != 1 else ''})</summary>"
        f'<pre class="diff">{diff}</pre></details>'
    )


def _question(item: dict[str, Any], csrf: str, can_answer: bool) -> str:
    session = item.get("session") or {}
    args = json.dumps(item.get("args"), indent=2, sort_keys=True, ensure_ascii=False)
    form = (
        f'<form method="post" action="/ui/questions/{_e(item["id"])}/answer">'
        f'<input type="hidden" name="csrf" value="{_e(csrf)}">'
        f'<input type="hidden" name="fingerprint" value="{_e(item.get("fingerprint"))}">'
        '<label>Scope <select name="scope"><option value="once">once</option>'
        '<option value="run">this run</option><option value="session">this session</option>'
        "</select></label>"
        '<label>Reason <input name="reason" maxlength="4000"></label>'
        '<button name="decision" value="approve">Approve</button>'
        '<button name="decision" value="deny" class="deny">Deny</button></form>'
        if can_answer
        else "<p>Your token may read only: an approver's answers.</p>"
    )
    return (
        f'<article class="card" id="q-{_e(item["id"])}" data-question="{_e(item["id"])}">'
        f"<h2>{_e(item.get('tool'))}</h2>"
        f"<p>{_e(item.get('question'))}</p>"
        "<dl>"
        f"<dt>Session</dt><dd>{_e(session.get('name') or item['session_id'])}: "
        f"{_e(session.get('title'))}</dd>"
        f'<dt>Run</dt><dd><a href="/ui/runs/{_e(item["run_id"])}">{_e(item["run_id"])}</a></dd>'
        f"<dt>Asked by</dt><dd>{_e(item.get('hook'))} at {_e(item.get('point'))}</dd>"
        f"<dt>Asked</dt><dd>{_when(item.get('created_at'))}</dd>"
        f"<dt>Expires</dt><dd>{_when(item.get('expires_at'))}, then "
        f"{_e(item.get('default'))}</dd></dl>"
        f"<pre>{_e(args)}</pre>{_rewrites(item)}{form}</article>"
    )


def inbox_page(
    items: list[dict[str, Any]], *, csrf: str, who: str, can_answer: bool, message: str | None
) -> str:
    cards = "".join(_question(i, csrf, can_answer) for i in items)
    body = _message(message) + (cards or '<p class="empty">No run waits on a question.</p>')
    return _layout(
        "Inbox", f'<div id="inbox">{body}</div>', script="inbox.js", signed_in=who, csrf=csrf
    )


def run_page(run: dict[str, Any], *, csrf: str, who: str) -> str:
    body = (
        "<dl>"
        f'<dt>Status</dt><dd id="status">{_e(run["status"])}</dd>'
        f"<dt>Session</dt><dd>{_e(run['session_id'])}</dd>"
        f"<dt>Prompt</dt><dd>{_e(run.get('prompt'))}</dd></dl>"
        f'<ol id="timeline" data-run="{_e(run["id"])}"></ol>'
    )
    return _layout(f"Run {run['id']}", body, script="run.js", signed_in=who, csrf=csrf)
