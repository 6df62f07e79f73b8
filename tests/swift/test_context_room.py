"""An episode whose next prompt would not fit its engine's context ends; the run goes on.

ms-swift 4.6's engines raise `Input length (N) leaves no room for generation` for such a prompt,
which ends a training run. `RoomEngine` wraps conftest's scripted engine (an in-process fake,
named as such) with what a real engine has for that check: the tests' tiny model's real qwen2_5
template, a `max_model_len`, and ms-swift's own `set_default_max_tokens` run on every prompt.
Both of ms-swift's multi-turn paths run (`run_rollout`); tests/swift/test_context_training.py
trains for real.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from swift.infer_engine.infer_engine import InferEngine
from swift.infer_engine.protocol import RequestConfig
from tiny_model import build_tiny_model

from swift_gym.ms_swift.context_room import ContextRoom

MAX_TURNS = 8
LONG_REPLY = "I am thinking about where to go next, carefully and at length. " * 20


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from swift.model import get_processor
    from swift.template import get_template

    model = build_tiny_model(tmp_path_factory.mktemp("model"))
    processor = get_processor(str(model), model_type="qwen2")
    template = get_template(processor, template_type="qwen2_5")
    template.set_mode("transformers")
    template.max_length = None  # the engine's room is the limit here, not the template's
    return template


class RoomEngine:
    """The scripted engine, checking each prompt as ms-swift's engines do and keeping its size."""

    def __init__(self, scripted: Any, template: Any, max_model_len: int):
        self.scripted = scripted
        self.tokenizer = scripted.tokenizer
        self.template = template
        self.max_model_len = max_model_len
        self.max_tokens_offset = 0
        self.prompts: dict[str, list[int]] = {}

    _get_num_tokens = staticmethod(InferEngine._get_num_tokens)

    async def infer_async(self, request: Any, request_config: Any, **kwargs: Any):
        inputs = self.template.encode(request)
        self.prompts.setdefault(request.uuid, []).append(len(inputs["input_ids"]))
        InferEngine.set_default_max_tokens(self, RequestConfig(max_tokens=8), inputs)
        return await self.scripted.infer_async(request, request_config, **kwargs)


def talkative(request: Any, turn: int) -> str:
    """Row 0 writes long replies (its prompts grow fast), row 1 one short invalid word."""
    return LONG_REPLY if request.uuid.endswith("-0") else "hmm"


@pytest.fixture(name="play")
def player(template, make_scheduler, run_rollout, rows):
    """play(scheduler_name, max_model_len): two FrozenLake rows through the scheduler on a
    RoomEngine, by one of ms-swift's two paths; (each row's rollout_infos, the engine)."""

    def play(scheduler_name: str, max_model_len: int):
        scheduler = make_scheduler(scheduler_name, talkative, MAX_TURNS)
        engine = RoomEngine(scheduler.infer_engine, template, max_model_len)
        scheduler.infer_engine = engine
        requests = rows({"seed": 1}, {"seed": 2})
        outputs = run_rollout(scheduler_name, talkative, requests, MAX_TURNS, scheduler=scheduler)
        return [output.rollout_infos for output in outputs], engine

    return play


@pytest.fixture(name="roomy")
def roomy_sizes(play) -> dict[str, list[int]]:
    """Each row's prompt sizes, turn by turn, with room for all of them."""
    infos, engine = play("swift_gym", 100_000)
    assert [info["num_turns"] for info in infos] == [MAX_TURNS] * 2
    return engine.prompts


def limit_between(roomy: dict[str, list[int]]) -> int:
    """A max_model_len that row 0's 4th prompt reaches and row 1's prompts all stay under."""
    long, short = roomy["trajectory-0"], roomy["trajectory-1"]
    assert long[3] > max(short) + 1  # the rows differ enough for the test to mean something
    return long[3]


def test_ms_swift_gym_scheduler_ends_the_whole_rollout(play, roomy) -> None:
    with pytest.raises(ValueError, match="leaves no room for generation"):
        play("gym_scheduler", limit_between(roomy))


def test_swift_gym_ends_only_the_episode_that_would_not_fit(play, roomy) -> None:
    limit = limit_between(roomy)
    (long, short), engine = play("swift_gym", limit)
    # row 0 played 3 turns: its 4th prompt has `limit` tokens, which leaves no room
    assert long["num_turns"] == 3
    assert long["context_full"] == {
        "turn": 4,
        "prompt_tokens": limit,
        "counted": True,
        "max_model_len": limit,
    }
    assert long["gym_done"] is False and long["env_error"] is None
    assert engine.prompts["trajectory-0"] == roomy["trajectory-0"][:3]
    # row 1 is untouched
    assert short["num_turns"] == MAX_TURNS and short["context_full"] is None
    assert engine.prompts["trajectory-1"] == roomy["trajectory-1"]


def test_a_prompt_one_token_under_the_limit_still_plays(play, roomy) -> None:
    (long, _), engine = play("swift_gym", limit_between(roomy) + 1)
    assert long["num_turns"] > 3
    assert engine.prompts["trajectory-0"][3] == limit_between(roomy)


def test_it_counts_only_near_the_limit(play, monkeypatch) -> None:
    counted: list[int] = []
    count = ContextRoom.count

    def counting(self, messages, tools):
        counted.append(len(messages))
        return count(self, messages, tools)

    monkeypatch.setattr(ContextRoom, "count", counting)
    play("swift_gym", 100_000)
    # each episode counted once, its second prompt (system, observation, reply, observation);
    # from then on bounded, as 100,000 tokens stay far off
    assert counted == [4, 4]


def test_an_engine_that_says_nothing_of_its_room_is_not_checked(make_scheduler) -> None:
    scripted = make_scheduler("swift_gym", talkative).infer_engine
    assert ContextRoom.of(scripted) is None  # no template, no max_model_len
    assert ContextRoom.of(RoomEngine(scripted, object(), 100)) is None  # cannot encode


def test_a_template_that_refuses_the_prompt_as_too_long_counts_as_full(template) -> None:
    strict = copy.copy(template)
    strict.max_length, strict.truncation_strategy = 10, "raise"
    room = ContextRoom(strict, 1000)
    fit = room.next_prompt("a", None, lambda: ([{"role": "user", "content": "x " * 50}], None))
    assert not fit.fits and fit.tokens == 1000


def test_a_count_that_fails_turns_the_check_off_and_the_rollout_goes_on(
    play, monkeypatch, caplog
) -> None:
    def broken(self, messages, tools):
        raise RecursionError("deep")

    monkeypatch.setattr(ContextRoom, "count", broken)
    with caplog.at_level("WARNING", logger="swift_gym"):
        (long, short), _ = play("swift_gym", 100_000)
    assert long["num_turns"] == short["num_turns"] == MAX_TURNS
    assert [r.message for r in caplog.records if "counting a prompt" in r.message] == [
        "swift-gym: counting a prompt's tokens failed (RecursionError: deep): episodes are no "
        "longer ended before a prompt that leaves no room to generate"
    ]
