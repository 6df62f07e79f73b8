"""`openenv`: an env that lives on another machine, played over the OpenEnv protocol.

Its dataset rows name the server (`base_url`) and what to play there (`env_config`, sent at
reset). The model reads the observation's text (`observation_key`: `swift-gym serve` puts it in
`text`; other servers' observations are shown as JSON), the system prompt comes from the config
or from the server at reset, and each step's info is the server's metadata with the
observation's `info` (but the server's `episode_id`: `env.episode_id` holds that). Every socket
lives on one background loop per process (`placement.background`), so reset and step never block the
caller's loop and work whichever loop calls them. Which bearer token goes to which server is
the operator's choice (`tokens`), never a row's. A served env that offers tools offers them
here too (`tools()`, from the reset's observation): each step sends the reply's tool calls and
returns a `StepResult` with the server's results; a chat the served env replaced (an agent
program's) is `rewritten_context()` here. An episode whose server dies ends with a
`RemoteEnvError`; the others go on. A reset for which no server accepts a connection raises
`ServerDownError` (an `EnvUnavailableError`: `swift-gym eval` then starts no new episode). A
finished, closed or forgotten env closes its session (a forgotten one when it is
garbage-collected), so an episode cut off by --max_turns does not hold a server slot.

The oracle policy (`swift-gym eval --policy oracle`) asks the server for the served env's own
reply (`oracle_reply_async`): the oracle needs the env's hidden state, which lives there. Only
where the reset's metadata says the server serves one (`"oracle": true`); otherwise it raises
`NoOracleError` saying why (the env has none, the operator serves none, or the server is no
swift-gym serve that speaks the extension), and the oracle policy stops the run.
"""

from __future__ import annotations

import itertools
import json
import weakref
from typing import Any, ClassVar

from ..deployment import Deployment
from ..env import Env, Message
from ..errors import short_repr
from ..placement import background
from ..replies import reply_text, tool_calls
from ..steps import StepResult
from ..tools.toolset import ToolSet
from ..tools.turns import call_messages
from .config import OpenEnvConfig
from .protocol import (
    NoOracleError,
    Observation,
    RemoteEnvError,
    ServerDownError,
    messages_of,
    oracle_of,
    reset_frame,
    socket_url,
    step_frame,
    tool_results_of,
    tools_of,
)
from .session import Session
from .tokens import bearer_headers

_turns = itertools.count()
"""Which pool member the next episode tries first: in turns, per process."""


class OpenEnvEnv(Env):
    """An env served on another machine (swift-gym serve, any OpenEnv server), over the wire."""

    config_model: ClassVar[type[OpenEnvConfig]] = OpenEnvConfig
    tool_use: ClassVar[str] = "varies"  # the served env's tools
    deployment = Deployment(reaches_network=True, uses_operator_services=True)
    """It connects where a row's `base_url` says, and that picks among the hosts the operator's
    `SWIFT_GYM_OPENENV_TOKENS` sends bearer tokens to: a client's reset on a server would make it
    connect anywhere and spend the server's tokens."""
    config: OpenEnvConfig

    def __init__(self, env_config: Any = None):
        super().__init__(env_config)
        self._session: Session | None = None
        self._done = False
        self._finalizer: weakref.finalize[..., Any] | None = None
        self._tools: ToolSet | None = None
        self._context: list[Message] | None = None
        self._oracle: bool | None = None
        """What the reset's metadata said of an oracle: served, not served, or nothing."""
        self._served_env: Any = None
        """The env the server said it plays (its metadata's `env`), for messages."""
        self.episode_id: str | None = None
        """The server's id of the episode (OpenEnv's `episode_id`), to find it in the server's
        logs. It is kept out of `info`: a fresh id each episode would make two plays of the
        same seed and replies differ (the conformance kit's determinism check)."""

    async def reset(self, request: Any = None) -> tuple[str, dict[str, Any], str]:
        await self.close()
        self._done = False
        self._tools, self._context = None, None
        data = dict(self.config.reset_kwargs)
        if self.config.env_config is not None:
            data["env_config"] = self.config.env_config
        if self.config.seed is not None:
            data["seed"] = self.config.seed
        answer = await background.run(self._open_and_reset(data))
        self._oracle = oracle_of(answer.metadata)
        self._served_env = answer.metadata.get("env")
        observation, info = self._read(answer)
        self._tools = tools_of(self._url(), answer.observation)
        self._context = messages_of(self._url(), answer.observation)
        system = self.config.system_message
        if system is None:
            sent = answer.observation if isinstance(answer.observation, dict) else {}
            prompt = sent.get(self.config.system_prompt_key)
            system = prompt if isinstance(prompt, str) else ""
        return observation, info, system

    async def _open_and_reset(self, data: dict[str, Any]) -> Observation:
        urls = self.config.urls
        addresses = [socket_url(url) for url in urls]
        # every member's token is checked before any connection: a mapping that cannot be
        # used fails every reset, not only those whose turn starts at that member
        headers = [bearer_headers(address) for address in addresses]
        first = next(_turns) % len(urls)
        failures: list[RemoteEnvError] = []
        for index in [*range(first, len(urls)), *range(first)]:  # fail over only here
            session = Session(
                addresses[index], headers[index], self.config.connect_timeout,
                self.config.step_timeout,
            )  # fmt: skip
            try:
                await session.open()
            except RemoteEnvError as error:
                failures.append(error)
                continue
            self._keep(session)
            return await session.request(reset_frame(data))
        if len(urls) == 1:
            raise failures[0]
        message = "no server of the pool answered: " + "; ".join(map(str, failures[:5]))
        if all(isinstance(failure, ServerDownError) for failure in failures):
            raise ServerDownError(message)  # the whole pool is down
        raise RemoteEnvError(message)

    def _keep(self, session: Session) -> None:
        self._session = session
        self._finalizer = weakref.finalize(self, _close_later, session)

    def tools(self) -> ToolSet | list[Any]:
        """The tools the served env offers this episode (from the reset's answer)."""
        return self._tools if self._tools is not None else []

    async def step(
        self, messages: list[Message]
    ) -> tuple[str, float, bool, dict[str, Any]] | StepResult:
        """Send the reply (its text, and its tool calls if it made any); a `StepResult` with
        the server's tool results in a tool env, else the 4-tuple, as before tools."""
        session = self._session
        if session is None:
            why = "the episode is over" if self._done else "reset() was not called"
            raise RemoteEnvError(f"step() with no session: {why}")
        reply = reply_text(messages)  # the text every env reads (multimodal parts joined)
        calls = tool_calls(messages)
        action: dict[str, Any] = {"message": reply}
        if calls:  # only then: a server that knows no tools gets the action it always got
            action["tool_calls"] = call_messages(calls)
        answer = await background.run(session.request(step_frame(action), close_when_done=True))
        observation, info = self._read(answer)
        results = tool_results_of(session.url, answer.observation)
        self._context = messages_of(session.url, answer.observation)
        if self._context is not None:  # the chat was replaced: its tools are sent again
            self._tools = tools_of(session.url, answer.observation)
        if answer.done:  # the session closed itself: the slot is given back at once
            self._done = True
            self._forget()
        if self._tools or calls or results:
            return StepResult(observation, answer.reward, answer.done, info, results)
        return observation, answer.reward, answer.done, info

    async def oracle_reply_async(self) -> str | dict[str, Any]:
        """The served env's oracle reply for this episode, asked of the server (the oracle
        policy awaits this); raises `NoOracleError` where the server serves none."""
        session = self._session
        if session is None:
            why = "the episode is over" if self._done else "reset() was not called"
            raise RemoteEnvError(f"no oracle reply with no session: {why}")
        if self._oracle is not True:
            raise NoOracleError(self._no_oracle(session.url))
        return await background.run(session.oracle())

    def _no_oracle(self, url: str) -> str:
        served = self._served_env
        env = f"env {short_repr(served, 60)}" if isinstance(served, str) else "the env served"
        if self._oracle is False:
            return (
                f"the server at {url} serves no oracle for {env}: the served env does not "
                "define oracle_reply(), or the server was started with --no-oracle"
            )
        return (
            f"the server at {url} does not say that it serves oracle replies (its reset's "
            'metadata has no "oracle": true): it is an OpenEnv server without swift-gym\'s '
            "oracle extension (or a swift-gym serve older than it), so the oracle, which needs "
            "the env's hidden state, cannot run where the env is"
        )

    def rewritten_context(self) -> list[Message] | None:
        """The whole chat to show next, when the served env replaced it (an agent program that
        rewrote its history); None when the chat goes on by extension."""
        return None if self._context is None else [dict(m) for m in self._context]

    def _url(self) -> str:
        return self._session.url if self._session is not None else "the server"

    def _read(self, answer: Observation) -> tuple[str, dict[str, Any]]:
        """The text the model reads, and the info: the server's metadata and the env's info."""
        sent = answer.observation
        key = self.config.observation_key
        if isinstance(sent, str):
            text = sent
        elif isinstance(sent, dict) and key is not None and isinstance(sent.get(key), str):
            text = sent[key]
        else:
            text = json.dumps(sent, ensure_ascii=False, default=str)
        info = dict(answer.metadata)
        info.pop("oracle", None)  # the reset's word on the oracle: `_oracle`, not the env's info
        episode_id = info.pop("episode_id", None)
        if isinstance(episode_id, str):
            self.episode_id = episode_id
        env_info = sent.get(self.config.info_key) if isinstance(sent, dict) else None
        if isinstance(env_info, dict):
            info.update(env_info)
        return text, info

    async def close(self) -> None:
        session = self._forget()
        if session is not None:
            await background.run(session.close())

    def _forget(self) -> Session | None:
        """Drop the session (and its finalizer); returns it, for the caller to close."""
        session, self._session = self._session, None
        if self._finalizer is not None:
            self._finalizer.detach()
            self._finalizer = None
        return session


def _close_later(session: Session) -> None:
    """A forgotten env's session, closed on the background loop (from any thread)."""
    try:
        loop = background.loop()
        loop.call_soon_threadsafe(lambda: loop.create_task(session.close()))
    except RuntimeError:  # interpreter shutting down
        pass
