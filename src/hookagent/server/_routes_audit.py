"""Verifying an audit trail's hash chain (a viewer's): `capabilities.audit.verify`, which
`hookagent audit verify` runs, on a file under the server's `--files-root`."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from hookagent.capabilities.audit._verify import verify
from hookagent.server._auth import Viewer
from hookagent.server._files import confined
from hookagent.server._problems import Problem
from hookagent.server._schemas import PROBLEMS, VerifyOut, problem

__all__ = ["router"]

router = APIRouter(responses=PROBLEMS)


class VerifyBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        max_length=1000, description="The audit file (JSONL), relative to --files-root."
    )
    head: str | None = Field(
        None,
        max_length=200,
        description="The hash its last record must have (AuditTrail.head, noted "
        "elsewhere): also catches lines cut off the end.",
    )


@router.post(
    "/audit/verify",
    response_model=VerifyOut,
    summary="Check an audit file's hash chain: intact, or the first bad line (viewer)",
    responses={403: problem("The token's role is too low, or the file is outside --files-root.")},
)
async def verify_audit(request: Request, _: Viewer, body: VerifyBody) -> dict[str, Any]:
    path = confined(request, body.path, "audit file")
    try:
        report = await anyio.to_thread.run_sync(lambda: verify(path, head=body.head))
    except OSError as exc:
        raise Problem(422, f"cannot read {body.path!r}: {exc.strerror or exc}") from None
    return {**report.to_dict(), "path": body.path}  # not where the server keeps it
