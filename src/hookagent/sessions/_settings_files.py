"""Which Claude Code settings files the command line reads: one rule for `run` (and the runs
`submit`, `resume` and `worker` rebuild), `hooks check` and `hooks test`, so what `hooks
check` shows is what `run` runs.

By default only the `--settings` files are read; `--discover-settings` adds the standard
locations (managed, `~/.claude`, the project's `.claude/`), as Claude Code reads them. Each
command says which files it read (`settings_line`, and `settings_files` in `--json`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookagent.claude._model import LoadedSettings
    from hookagent.sessions._agent_spec import RunOptions

__all__ = ["read_settings", "run_settings_files", "settings_files", "settings_line"]


def read_settings(
    project: str | os.PathLike[str], explicit: Iterable[str | os.PathLike[str]], *, standard: bool
) -> LoadedSettings:
    """The `explicit` files, after the standard locations of `project` when `standard`."""
    from hookagent.claude._sources import discover

    return discover(project, explicit=explicit, include_standard=standard)


def run_settings_files(options: RunOptions) -> list[str]:
    """The settings files a run with `options` read (`settings_files` of its `--json`)."""
    if options.claude_project is not None or options.claude_plugins:
        return []  # a Claude Code project is read as a whole (see `cli.claude_project`)
    if not (options.settings or options.discover_settings):
        return []
    project = options.cwd or "."
    read = read_settings(project, options.settings, standard=options.discover_settings)
    return settings_files(read)


def settings_files(loaded: LoadedSettings) -> list[str]:
    """The files read, in merge order, as absolute paths."""
    return [os.path.abspath(file) for file in loaded.files]


def settings_line(
    loaded: LoadedSettings, project: str | os.PathLike[str], *, standard: bool
) -> str:
    """`settings: read A, B`; when none was read, the standard files that exist and the flag
    that reads them."""
    if loaded.files:
        return "settings: read " + ", ".join(settings_files(loaded))
    if standard:
        return "settings: none read (no Claude Code settings file in the standard locations)"
    from hookagent.claude._sources import standard_locations

    present = [os.path.abspath(path) for path, _ in standard_locations(project) if path.is_file()]
    if not present:
        return "settings: none read"
    return (
        f"settings: none read ({', '.join(present)} not read: add --discover-settings to read "
        "the standard locations)"
    )
