"""`GymnasiumEnv`: one Gymnasium env behind ms-swift's gym protocol, with words for a model.

Each game (frozen_lake, taxi, cliff_walking, blackjack) subclasses it with its fixed id, its
action names, its text and its statuses; this module owns what they share: building the env
from a listed id only, seeding every reset, reading replies, invalid replies (no Gymnasium
step, a configurable reward, the episode goes on), the time limit, and the info dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from swift_gym import Deployment, Env, EnvConfig, StepResult
from swift_gym.tools import ChoiceTool

from .actions import answer_format, reader, reply_text
from .config import GymnasiumConfig
from .ids import GYM_IDS

Transition = tuple[str, bool, str, dict[str, float]]
"""(status, success, event sentence, metrics) of one Gymnasium step, from `transition`."""

OVER_EVENT = "The episode is over; no more moves are taken. Start a new episode."


@cache
def choice_tool(env_class: type[GymnasiumEnv]) -> ChoiceTool:
    """The tool of `action_format: tool` for a game: its `tool` with `actions` as the enum."""
    name, parameter, description = env_class.tool
    return ChoiceTool(
        name, parameter, description, choices=env_class.actions, label=env_class.gym_id
    )


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
    `config_model`, and implement `gym_kwargs`, `rules`, `view`, `transition` and `state_info`.
    Each reset passes the config's `seed` to Gymnasium's `reset`, so the same seed and replies
    replay the same episode; without a seed, Gymnasium draws one.
    """

    gym_id: ClassVar[str]
    actions: ClassVar[tuple[str, ...]]
    gym_defaults: ClassVar[dict[str, Any]] = {}
    """Gymnasium's value of each `gym_kwargs` key for this id (tested against Gymnasium)."""
    gym_limit: ClassVar[int | None] = None
    """Gymnasium's `max_episode_steps` for this id."""
    horizon_without_limit: ClassVar[int | None] = None
    """`max_turns_hint` of a config without a time limit (None: eval's default)."""
    tool: ClassVar[tuple[str, str, str]] = ("act", "action", "Take one action.")
    """(function name, parameter name, description) of `action_format: tool`."""
    config_model: ClassVar[type[EnvConfig]] = GymnasiumConfig
    config: GymnasiumConfig

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        super().__init__(env_config)
        self.steps_limit: int | None = getattr(self.config, "max_episode_steps", None)
        # Only what differs from the id's defaults goes to gymnasium.make: each keyword costs
        # it a deep copy, a quarter of a cheap env's construction.
        kwargs = {
            key: value
            for key, value in self.gym_kwargs().items()
            if key not in self.gym_defaults or self.gym_defaults[key] != value
        }
        limit = None if self.steps_limit == self.gym_limit else self.steps_limit
        self.gym = make_gym(self.gym_id, kwargs, limit)
        self.unwrapped = self.gym.unwrapped
        self._reader = reader(self.actions, self.config.action_parsing)
        self._invalid_reward = self.config.invalid_action_reward
        self._answer = answer_format(self.actions)
        self._tool = choice_tool(type(self)) if self.config.action_format == "tool" else None
        if self._tool is None:
            how = f"answer with exactly one action tag: {self._answer}."
        else:
            how = f"{self._tool.how.replace('call ', 'call the function ', 1)}."
        self.system_prompt = "\n".join(
            [
                *self.rules(),
                "A reply without a valid action changes nothing and earns "
                f"{self._invalid_reward:g}; it does not count as a move.",
                f"Think briefly if you like, then {how}",
            ]
        )
        self._seed = self.config.seed
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

    def transition(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        """(status, success, event sentence, per-step metrics) of a Gymnasium step.

        Metrics besides success and valid_action (`moved`...); the dict is copied into info, so
        a game may return the same one for the same transition (the grid games cache them).
        """
        raise NotImplementedError

    def state_info(self, state: Any) -> dict[str, Any]:
        """JSON facts about `state` for info (position, hands...): a new dict every call."""
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

    def tools(self) -> Any:
        """The game's one function with `action_format: tool`; none (a text env) with `tag`."""
        return self._tool.tools if self._tool is not None else []

    async def step(self, messages: list[dict[str, Any]]) -> Any:
        """Apply the action in `messages[-1]`; see the package README for statuses and rewards.

        The hot path is kept flat (one game call, one info literal): a Gymnasium toy-text step
        takes about 20 us, and the adapter's share should stay small next to it.
        """
        if self._tool is not None:
            return self._tool_step(messages)
        if self._done or not self._started:
            if not self._started:
                self._start()
            if self._done:
                observation = f"{OVER_EVENT}\n\n{self.view(self.state)}"
                return observation, 0.0, True, self._info("episode_over")
        text = reply_text(messages)
        action = self._reader.parse(text)
        if action is None:
            reason = self._reader.explain(text)
            event = f"No valid action found: {reason}. Answer with exactly one of {self._answer}."
            observation = f"{event}\n\n{self.view(self.state)}"
            return observation, self._invalid_reward, False, self._info("invalid_action")
        return self._apply(action)

    def _apply(self, action: int) -> tuple[str, float, bool, dict[str, Any]]:
        """Step Gymnasium with a valid `action`: (observation, reward, done, info)."""
        before = self.state
        state, raw_reward, terminated, truncated, gym_info = self.gym.step(action)
        self.state = state
        self._steps += 1
        reward = float(raw_reward)
        status, success, event, metrics = self.transition(action, before, state, reward, terminated)
        if success:
            self._success = True
        if truncated and not terminated:
            status = "time_limit"
            event += f" The time limit of {self.steps_limit} moves is reached. The episode is over."
        done = self._done = bool(terminated or truncated)
        name = self.actions[action]
        info = {
            "status": status,
            "action": name,
            "parsed_action": name,
            "gym_action": action,
            "step": self._steps,
            "seed": self._seed,
            **self.state_info(state),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "metrics": {
                "success": 1.0 if self._success else 0.0,
                "valid_action": 1.0,
                **metrics,
            },
        }
        prob = gym_info.get("prob")
        if prob is not None:
            info["prob"] = float(prob)
        return f"{event}\n\n{self.view(state)}", reward, done, info

    def _tool_step(self, messages: Any) -> StepResult:
        """A step of `action_format: tool`: the valid call's result holds the step's text; an
        invalid reply gets an error result per call, and the text as the observation."""
        tool = self._tool
        assert tool is not None
        if not self._started:
            self._start()
        if self._done:
            observation = f"{OVER_EVENT}\n\n{self.view(self.state)}"
            results = tool.refuse(messages, "the episode is over; no more moves are taken.")
            return StepResult(observation, 0.0, True, self._info("episode_over"), results)
        choice = tool.read(messages)
        if choice.call is None:
            event = f"No valid action found: {choice.reason}. {tool.how[0].upper()}{tool.how[1:]}."
            observation = f"{event}\n\n{self.view(self.state)}"
            info = self._info("invalid_action")
            return StepResult(observation, self._invalid_reward, False, info, choice.answer(""))
        text, reward, done, info = self._apply(self.actions.index(choice.value))
        return StepResult("", reward, done, info, choice.answer(text))

    def _info(self, status: str) -> dict[str, Any]:
        """The info of a step that did not step Gymnasium (invalid reply, episode over)."""
        return {
            "status": status,
            "action": None,
            "parsed_action": None,
            "gym_action": None,
            "step": self._steps,
            "seed": self._seed,
            **self.state_info(self.state),
            "metrics": {"success": 1.0 if self._success else 0.0, "valid_action": 0.0},
        }

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

    def max_turns_hint(self) -> int | None:
        """The time limit (Gymnasium's, or the config's `max_episode_steps`), else
        `horizon_without_limit`: `swift-gym eval` then cuts no episode the game would finish."""
        return self.horizon_without_limit if self.steps_limit is None else self.steps_limit

    def oracle_action(self) -> int:
        """The reference policy's action (Gymnasium's number) in the current state."""
        raise NotImplementedError(f"{type(self).__name__} defines no oracle")

    def oracle_reply(self) -> Any:
        """`oracle_action()` as the model should give it: `<action>NAME</action>`, or with
        `action_format: tool` an assistant message calling the game's function."""
        if not self._started:
            self._start()
        if self._done:
            raise RuntimeError("the episode is over: call reset() before asking for an action")
        name = self.actions[self.oracle_action()]
        return self._tool.message(name) if self._tool is not None else f"<action>{name}</action>"

    def sample_replies(self) -> Any:
        """Every valid action tag: `--policy random` is the uniform random policy. With
        `action_format: tool`, a call per action, then invalid calls and text replies."""
        if self._tool is not None:
            return tuple(self._tool.samples())
        return tuple(f"<action>{name}</action>" for name in self.actions)


class TabularEnv(GymnasiumEnv):
    """A game whose steps are told completely by (action, before, after, reward, terminated).

    Finite state spaces (the grids, Taxi) describe each such transition once and share it in
    `transitions` (a dict of the game's map, bounded by states x actions x outcomes).
    """

    deployment = Deployment(never_blocks=True)  # toy-text: pure computing (conformance-checked)

    transitions: dict[tuple[Any, ...], Transition]

    def describe(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        """What `transition` returns, computed on a cache miss."""
        raise NotImplementedError

    def transition(
        self, action: int, before: Any, state: Any, reward: float, terminated: bool
    ) -> Transition:
        key = (action, before, state, reward, terminated)
        found = self.transitions.get(key)
        if found is None:
            found = self.transitions[key] = self.describe(action, before, state, reward, terminated)
        return found
