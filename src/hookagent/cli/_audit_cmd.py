"""`hookagent audit verify FILE`: check an `AuditTrail` file's hash chain.

Exit codes: 0 the chain is intact; 1 it was tampered with (the first bad line is named);
2 the file cannot be read (`error: …` on stderr).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from hookagent.cli._groups import command_group
from hookagent.cli._shared_options import JsonOpt

__all__ = ["audit_app"]

audit_app = command_group("Audit trails: verify a hash-chained JSONL file.")


@audit_app.command("verify")
def verify_command(
    file: Annotated[Path, typer.Argument(help="The audit file (JSONL) an AuditTrail wrote.")],
    as_json: JsonOpt = False,
    head: Annotated[
        str | None,
        typer.Option(
            metavar="HASH",
            help="The hash the last record must have (AuditTrail.head, noted elsewhere): "
            "also catches lines cut off the end of the file.",
        ),
    ] = None,
) -> None:
    """Check every record's hash and its link to the one before; name the first bad line."""
    from hookagent.capabilities.audit._verify import verify

    try:
        report = verify(file, head=head)
    except OSError as exc:
        typer.echo(f"error: cannot read {file}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report.to_dict()))
    elif report.ok:
        typer.echo(f"ok: {report.records} records, chain intact")
    else:
        typer.echo(f"tampered: {report.problem}")
    raise typer.Exit(0 if report.ok else 1)
