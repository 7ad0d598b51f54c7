"""`__all__` stays honest: sorted, no duplicates, and every name in it importable."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

import hookagent
import hookagent.testing

PUBLIC_MODULES = [hookagent, hookagent.testing]


def module_params() -> list[object]:
    return [pytest.param(module, id=module.__name__) for module in PUBLIC_MODULES]


@pytest.mark.parametrize("module", module_params())
def test_all_is_sorted(module: ModuleType) -> None:
    assert module.__all__ == sorted(module.__all__)


@pytest.mark.parametrize("module", module_params())
def test_all_has_no_duplicates(module: ModuleType) -> None:
    assert len(set(module.__all__)) == len(module.__all__)


@pytest.mark.parametrize("module", module_params())
def test_every_name_in_all_is_importable(module: ModuleType) -> None:
    fresh = importlib.import_module(module.__name__)
    missing = [name for name in fresh.__all__ if not hasattr(fresh, name)]
    assert missing == []
    namespace: dict[str, object] = {}
    exec(f"from {module.__name__} import *", namespace)  # star-import honours __all__
    assert set(fresh.__all__) <= set(namespace)


@pytest.mark.parametrize("module", module_params())
def test_all_names_are_public(module: ModuleType) -> None:
    assert [name for name in module.__all__ if name.startswith("_")] == []
