"""A SQLite store's durability mode: what its commits survive, chosen where the store is."""

from __future__ import annotations

from pathlib import Path

import pytest

import hookagent as h
from hookagent._errors import ConfigError
from hookagent.store._memory import MemoryStore
from hookagent.store._open import open_store
from hookagent.store._sqlite import SQLiteStore
from hookagent.testing import ScriptedModel, reply, turn

SYNCED = "PRAGMA synchronous = FULL"


def test_the_mode_is_named_by_argument_url_or_builder(tmp_path: Path) -> None:
    assert SQLiteStore(tmp_path / "a.db").durability == "process"
    assert SQLiteStore(tmp_path / "b.db", durability="power").durability == "power"
    url = f"sqlite:///{tmp_path}/c.db?durability=power"
    assert open_store(url).durability == "power"  # type: ignore[attr-defined]
    assert open_store(tmp_path / "d.db", durability="power").durability == "power"  # type: ignore[attr-defined]
    built = h.AgentBuilder().model(ScriptedModel([reply("ok")]))
    agent = built.store(tmp_path / "e.db", durability="power").build()
    assert agent.store.durability == "power"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda p: SQLiteStore(p / "x.db", durability="disk"), "durability"),  # type: ignore[arg-type]
        (lambda p: open_store(f"sqlite:///{p}/x.db?durability=never"), "durability"),
        (lambda p: open_store(f"sqlite:///{p}/x.db?fsync=1"), "'fsync'"),
        (
            lambda p: open_store(f"sqlite:///{p}/x.db?durability=power", durability="process"),
            "twice",
        ),
        (
            lambda p: open_store("postgresql://u@localhost/db?durability=power"),
            "synchronous_commit",
        ),
        (
            lambda p: h.AgentBuilder().store(MemoryStore(), durability="power"),
            "SQLiteStore(path, durability=...)",
        ),
    ],
)
def test_a_bad_mode_is_a_config_error_naming_it(tmp_path: Path, make: object, named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make(tmp_path)  # type: ignore[operator]
    assert named in str(caught.value)


async def traced_run(tmp_path: Path, durability: str) -> list[str]:
    """The statements a two-call durable run sends on the store's fast connection."""

    @h.tool(blocking=False)
    def note(text: str) -> str:
        """Note it."""
        return text

    model = ScriptedModel(
        [
            turn("", {"name": "note", "args": {"text": "a"}, "id": "c1"}),
            turn("", {"name": "note", "args": {"text": "b"}, "id": "c2"}),
            reply("done"),
        ]
    )
    store = SQLiteStore(tmp_path / f"{durability}.db", durability=durability)  # type: ignore[arg-type]
    await store.open()
    seen: list[str] = []
    assert store._fast is not None
    store._fast.set_trace_callback(seen.append)
    try:
        agent = h.AgentBuilder().model(model).tools(note).store(store).build()
        result = await agent.run("go", session="s")
    finally:
        await store.close()
    assert result.status == "completed"
    return seen


async def test_power_mode_syncs_before_each_effect_and_at_the_end_only(tmp_path: Path) -> None:
    seen = await traced_run(tmp_path, "power")
    commits = [i for i, sql in enumerate(seen) if sql == "COMMIT"]
    synced = [i for i, sql in enumerate(seen) if sql == SYNCED]
    # Each call's `started` (before the tool runs) and the end: 3 of the run's commits.
    assert len(synced) == 3 and len(commits) > 3, seen
    for start in synced:
        following = seen[start:]
        assert following.index("COMMIT") < following.index("PRAGMA synchronous = NORMAL")
    process = await traced_run(tmp_path, "process")
    assert SYNCED not in process
