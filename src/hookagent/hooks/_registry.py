"""Hooks per point, ordered once at registration.

Order: tier (system, policy, default, audit), then priority high to low, then registration
order. Each point keeps a sorted list and a cached tuple; the call path reads the tuple and
never sorts, and a hook registered during a fold cannot disturb that fold.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Final, TypeVar, final

from hookagent.hooks._hook import Hook
from hookagent.hooks._points import HookPoint

__all__ = ["HookRegistry"]

E = TypeVar("E")
_EMPTY: Final[tuple[Hook[Any], ...]] = ()


@final
class HookRegistry:
    __slots__ = ("_cache", "_entries", "_seq")

    def __init__(self, hooks: Iterable[Hook[Any]] = ()) -> None:
        self._entries: dict[HookPoint[Any], list[tuple[int, int, int, Hook[Any]]]] = {}
        self._cache: dict[HookPoint[Any], tuple[Hook[Any], ...]] = {}
        self._seq = 0
        for hook in hooks:
            self.add(hook)

    def add(self, hook: Hook[Any]) -> None:
        tier, neg_priority = hook.sort_key
        entries = self._entries.setdefault(hook.point, [])
        self._seq += 1
        bisect.insort(entries, (tier, neg_priority, self._seq, hook), key=_order)
        self._refresh(hook.point, entries)

    def remove(self, predicate: Any) -> int:
        """Drop every hook for which `predicate(hook)` is true; returns how many."""
        removed = 0
        for point, entries in self._entries.items():
            kept = [entry for entry in entries if not predicate(entry[3])]
            removed += len(entries) - len(kept)
            entries[:] = kept
            self._refresh(point, entries)
        return removed

    def _refresh(
        self, point: HookPoint[Any], entries: list[tuple[int, int, int, Hook[Any]]]
    ) -> None:
        self._cache[point] = tuple(entry[3] for entry in entries)

    def snapshot(self) -> Mapping[HookPoint[Any], tuple[Hook[Any], ...]]:
        """Point → ordered hooks: a live read-only view for the call path."""
        return MappingProxyType(self._cache)

    def at(self, point: HookPoint[E]) -> tuple[Hook[E], ...]:
        return self._cache.get(point, _EMPTY)

    def __iter__(self) -> Iterator[Hook[Any]]:
        for entries in self._entries.values():
            for entry in entries:
                yield entry[3]

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._entries.values())

    def copy(self) -> HookRegistry:
        """An independent registry with the same hooks in the same order."""
        clone = HookRegistry()
        clone._entries = {name: list(entries) for name, entries in self._entries.items()}
        clone._cache = dict(self._cache)
        clone._seq = self._seq
        return clone


def _order(entry: tuple[int, int, int, Hook[Any]]) -> tuple[int, int, int]:
    return entry[0], entry[1], entry[2]
