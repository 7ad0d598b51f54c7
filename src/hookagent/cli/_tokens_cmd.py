"""`hookagent tokens create | ls | revoke`: the bearer tokens `hookagent serve` accepts, kept
in the store (as the SHA-256 of each secret: a secret is shown once, when it is made)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hookagent.cli._groups import command_group
from hookagent.cli._json_out import emit_json
from hookagent.cli._shared_options import JsonOpt, StoreOpt
from hookagent.cli._store_access import existing, guard, in_store, missing, open_at
from hookagent.sessions._records_json import fields_dict

if TYPE_CHECKING:
    from hookagent.store._records import TokenRecord

__all__ = ["tokens_app"]

tokens_app = command_group(
    "Bearer tokens for `hookagent serve`: create (shown once), list, revoke."
)


def token_dict(token: TokenRecord) -> dict[str, Any]:
    """A token as `--json` shows it: never its secret, nor the secret's digest."""
    return fields_dict(token, ("id", "name", "role", "created_at", "revoked_at"))


@tokens_app.command("create")
def create(
    role: Annotated[
        str,
        typer.Option(
            metavar="viewer|approver|admin",
            help="viewer reads; approver also answers questions; admin may do all.",
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option("--name", help="Who holds it: answers given with it are recorded so."),
    ] = None,
    store: StoreOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Make a token; its secret is printed once and kept nowhere."""
    from hookagent.store import _tokens as tokens

    def go() -> int:
        record, secret = in_store(open_at(store), lambda s: tokens.issue(s, role, name))
        if json_output:
            emit_json({**token_dict(record), "token": secret})
            return 0
        typer.echo(
            f"token {record.id} ({record.name}, {record.role}); copy it now, "
            "it is not shown again:",
            err=True,
        )
        typer.echo(secret)
        return 0

    raise typer.Exit(guard(go))


@tokens_app.command("ls")
def ls(store: StoreOpt = None, json_output: JsonOpt = False) -> None:
    """List the tokens, revoked ones too, oldest first."""

    def go() -> int:
        opened = open_at(store)
        found = [] if missing(opened) else in_store(opened, lambda s: s.tokens())
        if json_output:
            emit_json([token_dict(t) for t in found])
            return 0
        if not found:
            typer.echo("no tokens (hookagent tokens create --role viewer|approver|admin)")
            return 0
        rows = [
            (t.id, t.name, t.role, _when(t.created_at), _when(t.revoked_at) if t.revoked_at else "")
            for t in found
        ]
        header = ("ID", "NAME", "ROLE", "CREATED", "REVOKED")
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            typer.echo("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
        return 0

    raise typer.Exit(guard(go))


@tokens_app.command("revoke")
def revoke(
    token_id: Annotated[str, typer.Argument(metavar="ID", help="The token's id (tokens ls).")],
    store: StoreOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Revoke a token: requests bearing it are refused from now on."""
    from hookagent.store import _tokens as tokens

    def go() -> int:
        record = in_store(existing(store), lambda s: tokens.revoke(s, token_id))
        if json_output:
            emit_json(token_dict(record))
        else:
            typer.echo(f"revoked token {record.id} ({record.name}, {record.role})")
        return 0

    raise typer.Exit(guard(go))


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))
