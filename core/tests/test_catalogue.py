"""The catalogue's entry of one env (`swift_gym.evaluation.catalogue`): the random and the
oracle policy's scores from seeded episodes, "no oracle" for an env without one, the reason an
env cannot be played with its config, its declared tools and whether it sent images."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from swift_gym.evaluation.catalogue import entry, sends_images

pytestmark = pytest.mark.usefixtures("clean_plugin_env")

FakeDist = Callable[..., Path]

GAMES = """
    from typing import ClassVar

    from pydantic import Field

    from swift_gym import Env, EnvConfig


    class GuessConfig(EnvConfig):
        secret: int = Field(2, ge=0, le=3)


    class Guess(Env):
        '''Guess a digit from 0 to 3 in one reply.'''

        config_model = GuessConfig
        tool_use = "no"

        async def reset(self, request=None):
            return "Guess.", {}, "Say a digit from 0 to 3."

        async def step(self, messages):
            right = messages[-1]["content"].strip() == str(self.config.secret)
            return "", float(right), True, {"success": right}

        def sample_replies(self):
            return ["0", "1", "2", "3"]


    class GuessWithOracle(Guess):
        def oracle_reply(self):
            return str(self.config.secret)


    class Broken(GuessWithOracle):
        async def reset(self, request=None):
            raise RuntimeError("no board today")


    class NeedsRows(Guess):
        class config_model(EnvConfig):
            prompt: str
            answer: str
"""


@pytest.fixture
def games(fake_dist: FakeDist, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_dist(
        "gym-guess",
        envs={
            "guess": "gym_guess:Guess",
            "guess_oracle": "gym_guess:GuessWithOracle",
            "needs_rows": "gym_guess:NeedsRows",
            "broken": "gym_guess:Broken",
        },
        modules={"gym_guess": GAMES},
    )
    monkeypatch.setenv("SWIFT_GYM_LOAD_PLUGINS", "gym-guess")
    from swift_gym import registry

    monkeypatch.setattr(registry, "_default", None)


@pytest.mark.usefixtures("games")
def test_an_env_with_an_oracle_gets_both_policies_scores() -> None:
    card = entry("guess_oracle", episodes=40)
    assert card["name"] == "guess_oracle" and card["distribution"] == "gym-guess"
    assert card["oracle"]["success_rate"] == 1.0
    assert card["oracle"]["success_rate_ci95"][1] == 1.0
    assert card["oracle"]["episodes"] == 40
    random = card["random"]
    assert 0.0 < random["success_rate"] < 1.0  # one digit of four: about a quarter of 40
    low, high = random["success_rate_ci95"]
    assert low < random["success_rate"] < high
    assert (card["oracle_note"], card["not_measured"], card["images"]) == (None, None, False)
    # the same seeds give the same episodes: the numbers are reproducible
    assert entry("guess_oracle", episodes=40)["random"] == random


@pytest.mark.usefixtures("games")
def test_an_env_without_one_says_no_oracle() -> None:
    card = entry("guess", {"secret": 3}, episodes=4)
    assert card["oracle"] is None and card["oracle_note"] == "no oracle"
    assert card["random"]["episodes"] == 4
    assert card["config"] == {"secret": 3}
    assert card["tool_use"] == "no"  # the env's declaration, as swift-gym list shows it


@pytest.mark.usefixtures("games")
def test_an_env_its_config_cannot_play_says_why_instead_of_numbers() -> None:
    card = entry("needs_rows", episodes=4)
    assert card["random"] is None and card["oracle"] is None and card["images"] is None
    assert card["not_measured"] == "needs prompt, answer in its config, which rows give"
    bad = entry("guess", {"secret": 9}, episodes=4)
    assert bad["random"] is None
    assert "secret" in bad["not_measured"] and "less than or equal to 3" in bad["not_measured"]


@pytest.mark.usefixtures("games")
def test_an_env_whose_every_episode_fails_says_so_instead_of_zeros() -> None:
    card = entry("broken", episodes=3)
    assert card["random"] is None and card["oracle"] is None
    assert card["not_measured"].startswith("every episode failed: ")
    assert "no board today" in card["not_measured"]


def test_images_are_whatever_an_episode_sent_that_is_not_text() -> None:
    text = {"observation": "hello", "reset_info": {}, "turns": [{"observation": "x", "info": {}}]}
    assert not sends_images([text])
    part = [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "f.png"}}]
    assert sends_images([{**text, "observation": part}])
    assert not sends_images([{**text, "observation": [{"type": "text", "text": "a"}]}])
    tool_image = {"observation": "", "tool_results": [{"content": part}]}
    assert sends_images([{**text, "turns": [tool_image]}])
    assert sends_images([{**text, "reset_info": {"images": ["map.png"]}}])
