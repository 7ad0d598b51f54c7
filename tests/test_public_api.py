"""The README's "Public API" section is what the code exports: each listed module's
`__all__`, name for name, and no public module left out of the list."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"
ITEM = re.compile(r"^- `(hookagent[\w.]*)`: (.*)$")


def listed() -> dict[str, set[str]]:
    """Per module the README lists, the names it gives."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Public API\n", 1)[1].split("\n## ", 1)[0]
    found: dict[str, set[str]] = {}
    module = ""
    for line in section.splitlines():
        match = ITEM.match(line)
        if match:
            module = match.group(1)
            found[module] = set(re.findall(r"`(\w+)`", match.group(2)))
        elif line.startswith("  ") and module:
            found[module] |= set(re.findall(r"`(\w+)`", line))
        else:
            module = ""
    return found


def test_every_listed_module_exports_exactly_the_names_listed() -> None:
    found = listed()
    assert "hookagent" in found and "hookagent.testing" in found
    for module, names in found.items():
        exported = set(importlib.import_module(module).__all__)
        assert names == exported, (module, sorted(names ^ exported))


def test_every_capability_package_is_listed() -> None:
    root = Path(importlib.import_module("hookagent.capabilities").__file__ or "").parent
    packages = {
        f"hookagent.capabilities.{path.stem if path.is_file() else path.name}"
        for path in root.iterdir()
        if (path.is_dir() and (path / "__init__.py").exists())
        or (path.suffix == ".py" and not path.name.startswith("_"))
    }
    assert packages <= set(listed())


def test_every_listed_name_resolves() -> None:
    for module, names in listed().items():
        imported = importlib.import_module(module)
        missing = [name for name in sorted(names) if getattr(imported, name, None) is None]
        assert missing == [], module
