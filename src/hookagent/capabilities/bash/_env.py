"""The environment a command runs in: the host's, minus what could hijack or leak.

Following REFERENCE §9.1, dropped are loader and interpreter hooks (`LD_*`, `DYLD_*`,
`PYTHON*`, `NODE_OPTIONS`, `RUBY*`, `PHPRC`, ...), package-manager settings (`PIP_*`, `NPM_*`,
`GEM_*`) and cloud credentials (`AWS_*`, `AZURE_*`, `GCP_*`, `CLOUDSDK_*`,
`GOOGLE_APPLICATION_CREDENTIALS`). hookagent adds secrets by name (`*_TOKEN`, `*_SECRET`,
`*_API_KEY`, `*_PASSWORD`, ... so `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GITHUB_TOKEN` stay
behind) and bash's own start-up hooks (`BASH_ENV`, `ENV`, exported functions `BASH_FUNC_*`),
which `bash -c` would otherwise obey. `BashPolicy.env_allow` keeps names back from the scrub;
`BashPolicy.extra_env` adds variables; last, `HOOKAGENT_IDEMPOTENCY_KEY` is the call's key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase, translate
from typing import Final

__all__ = ["IDEMPOTENCY_KEY_VAR", "SCRUBBED", "command_env"]

IDEMPOTENCY_KEY_VAR: Final = "HOOKAGENT_IDEMPOTENCY_KEY"
"""Set in each command's environment to the call's idempotency key (`ToolContext`), the same
after a crash and resume, for commands that pass it to services that deduplicate."""

SCRUBBED: Final[tuple[str, ...]] = (
    # loaders and interpreters (REFERENCE §9.1)
    "LD_*",
    "DYLD_*",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "NODE_OPTIONS",
    "NPM_*",
    "PYTHON*",
    "PIP_*",
    "RUBY*",
    "GEM_*",
    # cloud credentials (REFERENCE §9.1)
    "AWS_*",
    "AZURE_*",
    "GCP_*",
    "CLOUDSDK_*",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_CREDENTIALS",
    # secrets by name
    "*_TOKEN",
    "*_TOKEN_*",
    "*_SECRET",
    "*_SECRET_*",
    "*_API_KEY",
    "*_APIKEY",
    "*_ACCESS_KEY",
    "*_PRIVATE_KEY",
    "*_PASSWORD",
    "*_PASSWD",
    "*_CREDENTIALS",
    # bash start-up hooks
    "BASH_ENV",
    "ENV",
    "BASH_FUNC_*",
    "SHELLOPTS",
    "BASHOPTS",
)
"""`fnmatch` globs over upper-cased names."""

_SCRUB: Final = re.compile("|".join(translate(pattern) for pattern in SCRUBBED))


def command_env(
    host: Mapping[str, str],
    *,
    allow: Sequence[str] = (),
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`host` without the `SCRUBBED` names (unless `allow` keeps them), plus `extra`."""
    env = {name: value for name, value in host.items() if _kept(name, allow)}
    env.update(extra or {})
    return env


def _kept(name: str, allow: Sequence[str]) -> bool:
    if any(fnmatchcase(name, pattern) for pattern in allow):
        return True
    return _SCRUB.match(name.upper()) is None
