"""Bearer tokens of `hookagent serve`, kept in the store: issued with a role, shown once,
verified by the SHA-256 of the secret (the store never holds a secret), revoked by id.

Roles nest: a `viewer` reads, an `approver` also answers questions, an `admin` may do all.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
import uuid
from typing import Final

from hookagent._errors import ConfigError, StoreError
from hookagent.store._base import Store
from hookagent.store._records import TokenRecord, TokenRole

__all__ = ["PREFIX", "ROLES", "allows", "digest", "issue", "live", "revoke", "verify"]

ROLES: Final[tuple[TokenRole, ...]] = ("viewer", "approver", "admin")
PREFIX: Final = "hka_"
"""Every secret starts so: a leaked one is recognisable (in logs, by secret scanners)."""


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def allows(role: str, needed: TokenRole) -> bool:
    """Whether `role` may do what needs `needed`."""
    return role in ROLES and ROLES.index(role) >= ROLES.index(needed)


async def issue(store: Store, role: str, name: str | None = None) -> tuple[TokenRecord, str]:
    """A new token and its secret, which exists nowhere else: show it once."""
    if role not in ROLES:
        raise ConfigError(f"--role is viewer, approver or admin, not {role!r}")
    if name is not None and not name.strip():
        raise ConfigError("--name is empty: give the token a name, or leave --name out")
    secret = PREFIX + secrets.token_urlsafe(32)
    token_id = uuid.uuid4().hex[:12]
    record = TokenRecord(
        id=token_id,
        name=name or f"{role}-{token_id[:6]}",
        role=role,
        digest=digest(secret),
        created_at=time.time(),
    )
    await store.create_token(record)
    return record, secret


async def verify(store: Store, secret: str) -> TokenRecord | None:
    """The live token `secret` belongs to, or None (unknown, revoked, malformed)."""
    if not secret.startswith(PREFIX):
        return None
    wanted = digest(secret)
    record = await store.token(wanted)
    if record is None or record.revoked_at is not None:
        return None
    return record if hmac.compare_digest(record.digest, wanted) else None


async def live(store: Store) -> list[TokenRecord]:
    return [t for t in await store.tokens() if t.revoked_at is None]


async def revoke(store: Store, token_id: str) -> TokenRecord:
    """Revoke the token `token_id`; a `StoreError` naming what is wrong otherwise."""
    found = next((t for t in await store.tokens() if t.id == token_id), None)
    if found is None:
        raise StoreError(f"no token {token_id!r} in {store.url} (hookagent tokens ls lists them)")
    if not await store.revoke_token(token_id, time.time()):
        raise StoreError(f"token {token_id} was revoked already ({store.url})")
    return next(t for t in await store.tokens() if t.id == token_id)
