"""`--max-cost` with `--price MODEL=IN/OUT`: a model the built-in table does not know is
priced from the command line, and the message for an unpriced one says how."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookagent._errors import ConfigError
from hookagent.models._prices import Price
from hookagent.sessions._agent_spec import RunOptions, build_agent, from_saved, saved_options
from hookagent.sessions._prices import parse_prices

from .run_cli import hookagent

USAGE = {"input_tokens": 10_000, "output_tokens": 1_000}


def script(tmp_path: Path) -> None:
    call = {"tool_calls": [{"name": "missing", "args": {}}], "usage": USAGE, "model": "acme-1"}
    (tmp_path / "turns.json").write_text(json.dumps([call] * 3))


def run(tmp_path: Path, *extra: str) -> tuple[int, dict[str, object], str]:
    args = ("run", "hi", "-m", "scripted:turns.json", "--json", "--max-cost", "0.5")
    done = hookagent(tmp_path, *args, *extra)
    return done.returncode, json.loads(done.stdout) if done.stdout else {}, done.stderr


def test_an_unpriced_model_stops_the_run_naming_the_price_option(tmp_path: Path) -> None:
    script(tmp_path)
    code, out, stderr = run(tmp_path)
    assert code == 0, stderr
    assert (out["status"], out["stop_reason"]) == ("stopped", "guard")
    message = str(out["stop_message"])
    assert "no price for model 'acme-1'" in message
    assert "--price acme-1=IN/OUT" in message
    assert "CostLimit" not in message


def test_price_flags_price_the_model(tmp_path: Path) -> None:
    script(tmp_path)
    # $20 in and $100 out per million tokens: $0.30 a turn, so the limit is reached at step 2
    code, out, stderr = run(tmp_path, "--price", "acme-1=20/100", "--price", "other=1/1")
    assert code == 0, stderr
    assert (out["status"], out["stop_reason"], out["steps"]) == ("stopped", "cost_limit", 2)
    assert str(out["stop_message"]).startswith("cost limit reached ($0.6000 of $0.50)")


@pytest.mark.parametrize("value", ["acme-1", "acme-1=2", "=1/2", "acme-1=a/2", "acme-1=-1/2"])
def test_a_bad_price_is_exit_2_naming_option_and_value(tmp_path: Path, value: str) -> None:
    script(tmp_path)
    done = hookagent(
        tmp_path, "run", "hi", "-m", "scripted:turns.json", "--max-cost", "1", "--price", value
    )
    assert done.returncode == 2
    assert "--price" in done.stderr and repr(value) in done.stderr
    assert "MODEL=IN/OUT" in done.stderr


def test_a_price_without_max_cost_is_exit_2(tmp_path: Path) -> None:
    script(tmp_path)
    done = hookagent(tmp_path, "run", "hi", "-m", "scripted:turns.json", "--price", "acme-1=1/2")
    assert done.returncode == 2
    assert "--price" in done.stderr and "--max-cost" in done.stderr


async def test_prices_are_saved_with_the_run_and_rebuilt(tmp_path: Path) -> None:
    script(tmp_path)
    options = RunOptions(
        prompt="hi",
        model="scripted:turns.json",
        max_cost=0.5,
        prices=("acme-1=20/100",),
        cwd=str(tmp_path),
    )
    again = from_saved(json.loads(json.dumps(saved_options(options))))
    assert again.prices == ("acme-1=20/100",)
    agent, _ = build_agent(again)
    result = await agent.run("hi")
    assert (result.stop_reason, len(result.steps)) == ("cost_limit", 2)


def test_parse_prices() -> None:
    assert parse_prices(["a:b=0.5/1.5", " c = 1/2"]) == {
        "a:b": Price(input=0.5, output=1.5),
        "c": Price(input=1, output=2),
    }
    with pytest.raises(ConfigError) as info:
        parse_prices(["x=1/inf"])
    assert (info.value.key, info.value.value) == ("--price", "x=1/inf")


def test_a_run_that_answers_on_the_step_that_crosses_the_cost_limit_completes(
    tmp_path: Path,
) -> None:
    call = {"tool_calls": [{"name": "missing", "args": {}}], "usage": USAGE, "model": "acme-1"}
    answer = {"text": "all done", "usage": USAGE, "model": "acme-1"}
    (tmp_path / "turns.json").write_text(json.dumps([call, answer]))
    code, out, stderr = run(tmp_path, "--price", "acme-1=20/100")  # $0.30 a turn
    assert code == 0, stderr
    assert (out["status"], out["output"], out["steps"]) == ("completed", "all done", 2)


def judged(tmp_path: Path) -> None:
    """A prompt hook judging the prompt on model `judge-1`, its answer 11,000 tokens."""
    script(tmp_path)
    spent = {"input_tokens": 10_000, "output_tokens": 1_000}
    answer = {"text": json.dumps({"ok": True}), "usage": spent, "model": "judge-1"}
    (tmp_path / "judge.json").write_text(json.dumps([answer] * 3))
    handler = {"type": "prompt", "prompt": "Allow it? $ARGUMENTS", "model": "scripted:judge.json"}
    hooks = {"UserPromptSubmit": [{"hooks": [handler]}]}
    (tmp_path / "settings.json").write_text(json.dumps({"hooks": hooks}))


def test_price_flags_price_a_prompt_hooks_model_calls(tmp_path: Path) -> None:
    judged(tmp_path)
    # a turn: $0.30; the judgement at $10 in and $110 out per million: $0.21; $0.51 at step 1
    prices = ("--price", "acme-1=20/100", "--price", "judge-1=10/110")
    code, out, stderr = run(tmp_path, "--settings", "settings.json", *prices)
    assert code == 0, stderr
    assert (out["status"], out["stop_reason"], out["steps"]) == ("stopped", "cost_limit", 1)
    assert str(out["stop_message"]).startswith("cost limit reached ($0.5100 of $0.50)")


def test_an_unpriced_hook_model_is_told_to_use_the_price_option(tmp_path: Path) -> None:
    judged(tmp_path)
    code, out, stderr = run(tmp_path, "--settings", "settings.json", "--price", "acme-1=1/1")
    assert code == 0, stderr
    assert (out["status"], out["stop_reason"]) == ("stopped", "guard")
    message = str(out["stop_message"])
    assert "no price for model 'judge-1'" in message and "--price judge-1=IN/OUT" in message
