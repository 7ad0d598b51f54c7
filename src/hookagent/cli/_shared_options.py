"""Options several `hookagent` commands take, declared once so that they read the same in
every command's help."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["JsonOpt", "StoreOpt"]

StoreOpt = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="URL",
        help="The store: a path, sqlite:///path or postgresql://… "
        "(default: .hookagent/sessions.db).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
