"""`Env`: ms-swift's gym protocol, plus a validated config.

It mirrors `swift.rollout.gym_env.Env` (same constructor and coroutine signatures) without
importing ms-swift, so an env runs and is tested anywhere; ms-swift only needs a callable that
takes `env_config`, which any subclass is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .config import EnvConfig, validate_config
from .deployment import Deployment, settle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .steps import StepResult

Message = dict[str, Any]
"""One chat message: {"role": ..., "content": ...}, as ms-swift passes them."""


class Env(ABC):
    """Base class of every swift-gym env.

    Subclasses set `config_model` to their `EnvConfig` subclass. `__init__` validates the raw
    `env_config` into `self.config` (raising `InvalidConfigError`) and keeps the raw dict in
    `self.env_config`, as ms-swift's own `Env` does.
    """

    config_model: ClassVar[type[EnvConfig]] = EnvConfig
    tool_use: ClassVar[str | None] = None
    """Whether the env gives the model tools: "always", "opt-in" (when its config asks, as
    FrozenLake's `action_format: tool`), "varies" (whatever the env or program it plays offers)
    or "no" (see `swift_gym.tools.use`). `swift-gym list` shows it and `--tools` filters by it
    without importing the env: for a `swift_gym.envs` entry point, write it as a literal in the
    class's own body (it is read from the source); a hook plugin passes it to `register`."""
    deployment: ClassVar[Deployment] = Deployment()
    """Where and whether the operator's side runs this env (`swift_gym.Deployment`: whether it
    never blocks, reaches the network or uses the operator's services; its Ray actors' shape),
    kept apart from the playing contract. Set it in the class body, `deployment =
    Deployment(never_blocks=True)`; a trait set as its own class attribute (`never_blocks =
    True`, the older spelling) is folded in when the class is made."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        settle(cls)

    def __init__(self, env_config: Mapping[str, Any] | EnvConfig | None = None):
        raw: dict[str, Any] | None
        if isinstance(env_config, EnvConfig):
            raw = env_config.model_dump(exclude_unset=True)
        else:
            raw = dict(env_config) if isinstance(env_config, Mapping) else env_config
        self.env_config: dict[str, Any] = raw if isinstance(raw, dict) else {}
        label = (
            self.env_config.get("name") if isinstance(self.env_config.get("name"), str) else None
        )
        self.config = validate_config(self.config_model, env_config, label or type(self).__name__)

    @abstractmethod
    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        """Start the episode: (first observation, info, system prompt).

        `request` is ms-swift's `RolloutInferRequest` under ms-swift and may be None elsewhere.
        """

    @abstractmethod
    async def step(
        self, messages: list[Message]
    ) -> tuple[str, float, bool, dict[str, Any]] | StepResult:
        """Apply the model's newest reply (`messages[-1]`): (observation, reward, done, info).

        An env that offers tools reads the reply's calls with `swift_gym.tool_calls(messages)`
        and returns a `StepResult` holding one `ToolResult` per call (and text, if any).
        """

    def tools(self) -> Sequence[Mapping[str, Any]]:
        """The tools the model may call in this episode; valid after `reset`, which may change
        them. OpenAI function-tool schemas: `{"type": "function", "function": {"name": ...,
        "description": ..., "parameters": <JSON Schema object>}}`, or a `ToolSet` of them (built
        once, so they are checked once).

        The default, none, keeps the env a text env. Callers check what is offered with
        `swift_gym.offered_tools(env)`, which raises InvalidToolsError for invalid schemas.
        """
        return []

    def rewritten_context(self) -> list[Message] | None:
        """The whole chat to show the model next, when the env replaced it after its last
        reset or step; None (the default) when the chat goes on by extension.

        An `AgentEnv` whose program rewrote its history (summarised it, changed the system
        prompt or its tools) returns the program's messages here; the `swift_gym` scheduler and
        the evaluator then show the model exactly those, and read `tools()` again.
        """
        return None

    async def close(self) -> None:  # noqa: B027 - a no-op default is the point
        """Release resources. Safe to call more than once."""

    # Optional, for `swift-gym eval`; ms-swift never calls these.

    def oracle_reply(self) -> str | dict[str, Any]:
        """A reply of a reference policy for the current state (`swift-gym eval --policy oracle`).

        Override it where a best move can be computed (FrozenLake: a shortest-path step, as
        `<action>...</action>`), so a published oracle baseline can be reproduced. An env that
        offers tools may return an assistant message that calls them (`{"role": "assistant",
        "content": "", "tool_calls": [...]}`, OpenAI's shape). The default raises
        NotImplementedError, and the command says that this env has no oracle.
        """
        raise NotImplementedError(f"{type(self).__name__} does not define oracle_reply()")

    def sample_replies(self) -> Sequence[str | dict[str, Any]]:
        """Replies `swift-gym eval --policy random` draws from, uniformly, each turn: texts, or
        assistant messages with tool calls (as `oracle_reply` may return).

        Override it to give the random baseline your env's action format. The default, an empty
        sequence, makes the random policy use its generic replies (a mix of valid and invalid
        `<action>` tags and prose), or in an env that offers tools, calls drawn from the tools'
        schemas and garbage calls.
        """
        return ()

    def max_turns_hint(self) -> int | None:
        """The episode's natural horizon with this config: the most replies it should get.

        `swift-gym eval` and `swift_gym.evaluate` end an episode after this many replies when
        no max_turns is given; the default, None, leaves them at 10 (ms-swift's FrozenLake
        recipe). Return the game's own limit (a time limit, a number of attempts), so that an
        episode the game would still finish is not cut off. ms-swift never calls it: its
        `--max_turns` is the trainer's, to be set at least this high by hand.
        """
        return None
