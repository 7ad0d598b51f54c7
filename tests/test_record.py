"""`record`: what every value type in hookagent is, checked at run time."""

from __future__ import annotations

import dataclasses

import pytest

from hookagent._record import record


@record
class Point:
    x: int
    y: int = 0


def test_a_record_is_a_frozen_slotted_keyword_only_dataclass() -> None:
    point = Point(x=1)
    assert dataclasses.is_dataclass(point)
    assert not hasattr(point, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Point(1, 2)  # type: ignore[misc]
    assert Point.__final__  # type: ignore[attr-defined]


def test_subclassing_a_record_is_refused_when_the_subclass_is_defined() -> None:
    with pytest.raises(TypeError, match="Point is a record and cannot be subclassed"):

        class Point3(Point):  # type: ignore[misc]
            z: int = 0


def test_hookagent_records_are_refused_as_bases() -> None:
    from hookagent.hooks._decision import Decision, Vote

    for cls in (Decision, Vote):
        with pytest.raises(TypeError, match="cannot be subclassed"):
            type("Sub", (cls,), {})


@record(kw_only=False)
class Delta:
    step: int
    text: str = ""


def test_a_record_made_with_kw_only_false_takes_its_fields_by_position() -> None:
    assert Delta(1, "a") == Delta(step=1, text="a")
    assert Delta.__final__  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Delta(1).text = "b"  # type: ignore[misc]
    with pytest.raises(TypeError, match="Delta is a record and cannot be subclassed"):
        type("Sub", (Delta,), {})
