"""Schema migrations, one module per database: `sqlite` and `postgres`.

Each module holds `MIGRATIONS`, a tuple whose item `n - 1` brings a store from schema version
`n - 1` to `n`. Append new migrations; never edit one that has shipped."""

from __future__ import annotations

from hookagent._errors import StoreError

__all__ = ["known_version"]


def known_version(url: str, version: int, latest: int) -> int:
    """`version`, if this hookagent knows it (`latest` or older); else a `StoreError` that
    says to upgrade: a newer hookagent's store is never migrated backwards or written."""
    if version > latest:
        raise StoreError(
            f"{url}: written by a newer hookagent (schema version {version}; this "
            f"hookagent knows versions up to {latest}); upgrade hookagent to open it. "
            "Nothing was changed"
        )
    return version
