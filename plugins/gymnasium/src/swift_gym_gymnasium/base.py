"""`GymnasiumEnv`: one Gymnasium env behind ms-swift's gym protocol, with words for a model.

Each game (frozen_lake, taxi, cliff_walking, blackjack) subclasses it with its fixed id, its
action names, its text and its statuses; this module owns what they share: building the env
from a listed id only, seeding every reset, reading replies, invalid replies (no Gymnasium
step, a configurable reward, the episode goes on), the time limit, and the info dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from swift_gym import Env, EnvConfig

from .actions import answer_format, reader, reply_text
from .config import GymnasiumConfig
from .ids import GYM_IDS

OVER_EVENT = "The episode is over; no more moves are taken. Start a new episode."


def make_gym(gym_id: str, kwargs: Mapping[str, Any], max_episode_steps: int | None) -> Any:
    """`gymnasium.make` for one of `GYM_IDS`, never anything else (an id can import a module).

    The passive env checker is off: every action this package passes is a valid one, and the
    checker only warns on the first call of each instance.
    """
    if gym_id not in GYM_IDS:
        raise ValueError(f"{gym_id!r} is not one of the Gymnasium ids this package wraps")
    import gymnasium

    return gymnasium.make(
        gym_id, max_episode_steps=max_episode_steps, disable_env_checker=True, **kwargs
    )


class GymnasiumEnv(Env):
    """A Gymnasium env played through `<action>NAME</action>` replies.

    Subclasses set `gym_id`, `actions` (the names in Gymnasium's action order) and
    `config_model`, and implement `gym_kwargs`, `rules`, `view`, `event` and `outcome`.
    Each reset passes the config's `seed` to Gymnasium's `reset`, so the same seed and replies
    replay the same episode; without a seed, Gymnasium draws one.
    """

    gym_id: ClassVar[str]
    actions: ClassVar[tuple[str, ...]]
    config_model: ClassVar[type[EnvConfig]] = GymnasiumConfig
    config: GymnasiumConfig

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        self.steps_limit: int | None = getattr(self.config, "max_episode_steps", None)
        self.gym = make_gym(self.gym_id, self.gym_kwargs(), self.steps_limit)
        self.unwrapped = self.gym.unwrapped
        self._reader = reader(self.actions, self.config.action_parsing)
        self._invalid_reward = self.config.invalid_action_reward
        self._answer = answer_format(self.actions)
        self.system_prompt = "\n".join(
            [
                *self.rules(),
                "A reply without a valid action changes nothing and earns "
                f"{self._invalid_reward:g}; it does not count as a move.",
                "Think briefly if you like, then answer with exactly one action tag: "
                + self._answer
                + ".",
            ]
        )
        self._started = False
        self._done = False
        self._success = False
        self._steps = 0
        self.state: Any = None

    # What each game defines.

    def gym_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of `gymnasium.make` taken from the config."""
        return {}

    def rules(self) -> list[str]:
        """The system prompt's lines before the answer format."""
        raise NotImplementedError

    def view(self, state: Any) -> str:
        """The state as the model reads it (grid and legend, or hands)."""
        raise NotImplementedError

    def event(self, status: str, action: int, before: Any, state: Any, reward: float) -> str:
        """One or two sentences on what the step did."""
        raise NotImplementedError

    def outcome(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> tuple[str, bool]:
        """(status, success) of a Gymnasium step."""
        raise NotImplementedError

    def state_info(self, state: Any) -> dict[str, Any]:
        """JSON facts about `state` for info (position, hands...)."""
        return {}

    def step_metrics(self, status: str, before: Any, state: Any) -> dict[str, float]:
        """Per-step metrics besides success and valid_action."""
        return {}

    # The protocol.

    def _start(self) -> None:
        self.state, _ = self.gym.reset(seed=self.config.seed)
        self._started, self._done, self._success, self._steps = True, False, False, 0

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Start an episode: Gymnasium's reset with the config's seed. `request` is not used."""
        self._start()
        observation = f"A new episode starts.\n\n{self.view(self.state)}"
        info = {"status": "reset", "step": 0, "seed": self.config.seed, "gym_id": self.gym_id}
        info.update(self.state_info(self.state))
        return observation, info, self.system_prompt

    async def step(self, messages: list[dict[str, Any]]) -> tuple[str, float, bool, dict[str, Any]]:
        """Apply the action in `messages[-1]`; see the package README for statuses and rewards."""
        if not self._started:
            self._start()
        if self._done:
            observation = f"{OVER_EVENT}\n\n{self.view(self.state)}"
            return observation, 0.0, True, self._info("episode_over", None, {})
        text = reply_text(messages)
        action = self._reader.parse(text)
        if action is None:
            reason = self._reader.explain(text)
            event = f"No valid action found: {reason}. Answer with exactly one of {self._answer}."
            observation = f"{event}\n\n{self.view(self.state)}"
            return observation, self._invalid_reward, False, self._info("invalid_action", None, {})
        before = self.state
        self.state, raw_reward, terminated, truncated, gym_info = self.gym.step(action)
        self._steps += 1
        reward = float(raw_reward)
        status, success = self.outcome(action, before, self.state, reward, terminated)
        self._success = self._success or success
        event = self.event(status, action, before, self.state, reward)
        metrics = self.step_metrics(status, before, self.state)
        if truncated and not terminated:
            status = "time_limit"
            event += f" The time limit of {self.steps_limit} moves is reached. The episode is over."
        self._done = bool(terminated or truncated)
        info = self._info(status, action, metrics)
        info["terminated"], info["truncated"] = bool(terminated), bool(truncated)
        if "prob" in gym_info:
            info["prob"] = float(gym_info["prob"])
        return f"{event}\n\n{self.view(self.state)}", reward, self._done, info

    def _info(self, status: str, action: int | None, metrics: dict[str, float]) -> dict[str, Any]:
        name = None if action is None else self.actions[action]
        info: dict[str, Any] = {
            "status": status,
            "action": name,
            "parsed_action": name,
            "gym_action": action,
            "step": self._steps,
            "seed": self.config.seed,
        }
        info.update(self.state_info(self.state))
        info["metrics"] = {
            "success": 1.0 if self._success else 0.0,
            "valid_action": 0.0 if action is None else 1.0,
            **metrics,
        }
        return info

    async def close(self) -> None:
        """Close the Gymnasium env (safe twice; it holds no window in text mode)."""
        self.gym.close()

    @property
    def done(self) -> bool:
        """Whether the current episode is over."""
        return self._done

    @property
    def steps_left(self) -> int | None:
        """Moves before the time limit, or None without one."""
        return None if self.steps_limit is None else self.steps_limit - self._steps

    def oracle_action(self) -> int:
        """The reference policy's action (Gymnasium's number) in the current state."""
        raise NotImplementedError(f"{type(self).__name__} defines no oracle")

    def oracle_reply(self) -> str:
        """`oracle_action()` as the model should write it: `<action>NAME</action>`."""
        if not self._started:
            self._start()
        if self._done:
            raise RuntimeError("the episode is over: call reset() before asking for an action")
        return f"<action>{self.actions[self.oracle_action()]}</action>"

    def sample_replies(self) -> tuple[str, ...]:
        """Every valid action tag: `--policy random` is the uniform random policy."""
        return tuple(f"<action>{name}</action>" for name in self.actions)
