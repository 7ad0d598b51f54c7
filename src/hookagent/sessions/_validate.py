"""Options checked at the door: a bad value is a `ConfigError` naming the option and the
value, before a store is opened or a model is called, so a typo never becomes half a run
(and the message speaks of `--max-steps`, not of the Python class it configures)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent.sessions._agent_spec import RunOptions

__all__ = ["check_run_options", "existing_dir", "positive_number", "whole_number"]


def whole_number(option: str, value: int | None, *, least: int = 1, note: str = "") -> None:
    """`value` is None or a whole number >= `least`."""
    if value is not None and (isinstance(value, bool) or value < least):
        raise ConfigError(
            f"must be a whole number >= {least}{note}, not {value}", key=option, value=value
        )


def positive_number(option: str, value: float | None, *, unit: str = "") -> None:
    """`value` is None or a finite number > 0 (NaN and infinity are refused too)."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise ConfigError(
            f"must be a positive number{unit}, not {value:g}", key=option, value=value
        )


def existing_dir(option: str, path: str | Path | None, *, cwd: str | None = None) -> None:
    """`path` is None or a directory that exists (relative to `cwd`)."""
    if path is None:
        return
    full = Path(cwd or os.getcwd(), os.path.expanduser(path))
    if not full.is_dir():
        what = "not a directory" if full.exists() else "no such directory"
        raise ConfigError(f"{what}: {path} ({full.resolve()})", key=option, value=str(path))


def check_run_options(options: RunOptions) -> None:
    """Every numeric and path option of `hookagent run` (and of the runs `resume` and
    `worker` rebuild from saved options)."""
    whole_number("--max-steps", options.max_steps)
    whole_number("--max-tokens", options.max_tokens)
    positive_number("--max-seconds", options.max_seconds, unit=" of seconds")
    positive_number("--max-cost", options.max_cost, unit=" of US dollars")
    if options.prices:
        from hookagent.sessions._prices import parse_prices

        parse_prices(options.prices)
        if options.max_cost is None:
            raise ConfigError(
                "prices models for --max-cost, which is not given; add --max-cost USD",
                key="--price",
                value=options.prices[0],
            )
    if options.model_aliases:
        from hookagent.sessions._model_aliases import parse_model_aliases

        parse_model_aliases(options.model_aliases)
    whole_number("--max-result-chars", options.max_result_chars, least=0, note=" (0: no limit)")
    if options.clear and options.session is None:
        raise ConfigError(
            "starts a session's conversation afresh: name the session with --session NAME",
            key="--clear",
        )
    existing_dir("--root", options.root, cwd=options.cwd)
    for file in options.mcp_configs:
        full = Path(options.cwd or os.getcwd(), os.path.expanduser(file))
        if not full.is_file():
            what = "not a file" if full.exists() else "no such file"
            raise ConfigError(f"{what}: {file} ({full.resolve()})", key="--mcp-config", value=file)
    if options.base_url is not None and not options.base_url.startswith(("http://", "https://")):
        raise ConfigError(
            f"must be an http:// or https:// URL, not {options.base_url!r}",
            key="--base-url",
            value=options.base_url,
        )
