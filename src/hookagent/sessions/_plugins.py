"""`--plugin`: a Python file or module whose `configure(builder)` adds tools and hooks.

This is how a CLI user gives a scripted run something to call and something to decide. Every
way a plugin can fail to load (missing, broken, no `configure`, `configure` raising) is a
`ConfigError` naming the plugin, so the CLI reports it as misuse rather than a crash.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from hookagent._errors import ConfigError

if TYPE_CHECKING:
    from hookagent._builder import AgentBuilder

__all__ = ["Configure", "apply_plugins", "load_plugin"]

Configure = Callable[["AgentBuilder"], None]


def apply_plugins(builder: AgentBuilder, specs: Iterable[str]) -> None:
    """Load each plugin in order and let it configure `builder`."""
    for spec in specs:
        configure = load_plugin(spec)
        try:
            configure(builder)
        except Exception as exc:
            raise ConfigError(_describe("configure(builder) failed", exc), key=_key(spec)) from exc


def load_plugin(spec: str) -> Configure:
    """The `configure` function of a plugin given as a file path or a module name."""
    module = _import_file(spec) if _is_path(spec) else _import_module(spec)
    configure = getattr(module, "configure", None)
    if configure is None:
        raise ConfigError("defines no configure(builder) function", key=_key(spec))
    if not callable(configure):
        raise ConfigError(
            f"configure is a {type(configure).__name__}, not a function", key=_key(spec)
        )
    plugin: Configure = configure
    return plugin


def _is_path(spec: str) -> bool:
    return spec.endswith(".py") or "/" in spec or os.sep in spec or Path(spec).is_file()


def _import_file(spec: str) -> ModuleType:
    path = Path(spec).resolve()
    if not path.is_file():
        raise ConfigError("no such file", key=_key(spec))
    # A name unique per path: two plugins called `plugin.py` in different folders coexist.
    digest = hashlib.sha1(str(path).encode(), usedforsecurity=False).hexdigest()[:8]
    name = f"hookagent_plugin_{path.stem}_{digest}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ConfigError("cannot be imported as a Python file", key=_key(spec))
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        module_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(_describe("cannot import it", exc), key=_key(spec)) from exc
    return module


def _import_module(spec: str) -> ModuleType:
    # The console script does not put the working directory on sys.path; `python -m` does.
    # Adding it makes `--plugin myplugin` find ./myplugin.py either way.
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(spec)
    except Exception as exc:
        raise ConfigError(_describe("cannot import it", exc), key=_key(spec)) from exc


def _key(spec: str) -> str:
    return f"plugin {spec}"


def _describe(what: str, exc: BaseException) -> str:
    if isinstance(exc, ConfigError):
        return f"{what}: {exc}"
    return f"{what}: {type(exc).__name__}: {exc}"
