"""What an AgentEnv's client reaches: its own episode, in process, and nothing else.

The programs are in-process fakes; their client is the real `openai` SDK. A listener on
127.0.0.1 counts the connections anything opens to it, so "refused" means no socket was
opened, not only that an error came back. Calls from a thread's own event loop run in real
threads; every wait on them is bounded (`GUARD`), so a hang fails the test instead of
holding it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import httpx
import openai
import pytest

from swift_gym import AgentEnv, AgentResult

USER = [{"role": "user", "content": "go"}]
GUARD = 20.0
"""Seconds a test waits for a reset or a step before it counts as a hang."""
NOT_SERVED = "answers only chat.completions.create, in process"
WEBSOCKETS = importlib.util.find_spec("websockets") is not None
"""Without it (the `remote` extra brings it) the SDK refuses a websocket first, on its own."""
SDK_REFUSAL = "You need to install `openai[realtime]`"


class Listener:
    """A TCP listener on 127.0.0.1 that accepts each connection, counts it and closes it."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.socket.settimeout(0.1)
        self.port = self.socket.getsockname()[1]
        self.connections = 0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                accepted, _ = self.socket.accept()
            except TimeoutError:
                continue
            self.connections += 1
            accepted.close()

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.socket.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    served = Listener()
    yield served
    served.close()


def network_attempts(client: Any, port: int) -> dict[str, Callable[[], Any]]:
    """Each way the SDK offers to leave the in-memory transport, pointed at the listener
    where the SDK lets a program choose the address."""
    ws = f"ws://127.0.0.1:{port}/v1"
    http = f"http://127.0.0.1:{port}/v1"

    def realtime(of: Any) -> Any:  # GA in openai 2.x and later; beta only in 1.x
        return of.realtime if hasattr(type(of), "realtime") else of.beta.realtime

    async def assigned_websocket_url() -> Any:
        client.websocket_base_url = ws
        return await realtime(client).connect(model="m").enter()

    attempts: dict[str, Callable[[], Any]] = {
        "realtime at the program's URL": lambda: (
            realtime(client.with_options(websocket_base_url=ws)).connect(model="m").enter()
        ),
        "realtime after setting websocket_base_url": assigned_websocket_url,
        "realtime": lambda: realtime(client).connect(model="m").enter(),
        "another http_client": lambda: client.with_options(
            http_client=httpx.AsyncClient(), base_url=http
        ).models.list(),
    }
    beta = getattr(client, "beta", None)
    if hasattr(getattr(beta, "realtime", None), "connect"):  # openai 1.x to 3.x
        attempts["beta.realtime"] = lambda: beta.realtime.connect(model="m").enter()
    if hasattr(client.responses, "connect"):  # the Responses API's websocket (openai 2.x)
        attempts["responses.connect"] = lambda: client.responses.connect().enter()
    return attempts


class FakeRealtimeProber(AgentEnv):
    """Tries every way out of the episode, records what each raised, then plays one turn
    through a client whose allowed options it changed."""

    port = 0

    async def run(self, client: Any) -> AgentResult:
        raised: dict[str, str] = {}
        for name, attempt in network_attempts(client, self.port).items():
            try:
                await attempt()
                raised[name] = "nothing"
            except Exception as error:  # what the SDK (or the episode) raised, recorded
                kind = "OpenAIError" if isinstance(error, openai.OpenAIError) else "other"
                raised[name] = f"{kind}: {type(error).__name__}: {error}"
        tuned = client.with_options(timeout=30, max_retries=0, default_headers={"x-a": "b"})
        answer = await tuned.chat.completions.create(model="m", messages=USER)
        return AgentResult(
            1.0, info={"raised": raised, "answer": answer.choices[0].message.content}
        )


async def test_the_realtime_api_and_other_ways_out_are_refused_before_any_socket_opens(
    listener: Listener,
) -> None:
    env = FakeRealtimeProber()
    env.port = listener.port
    assert (await asyncio.wait_for(env.reset(), GUARD))[0] == "go"
    result = await asyncio.wait_for(
        env.step([*USER, {"role": "assistant", "content": "hi"}]), GUARD
    )
    await env.close()
    assert listener.connections == 0
    raised = result.info["raised"]
    assert {"realtime at the program's URL", "another http_client", "realtime"} <= set(raised)
    for name, what in raised.items():
        refused = NOT_SERVED in what or (not WEBSOCKETS and SDK_REFUSAL in what)
        assert what.startswith("OpenAIError: ") and refused, (name, what)
    assert "websocket_base_url" in raised["realtime after setting websocket_base_url"]
    if WEBSOCKETS:
        assert "a websocket (the Realtime API" in raised["realtime"]
    assert "http_client" in raised["another http_client"]
    assert (result.done, result.info["answer"]) == (True, "hi")  # allowed options still play


class FakeThreadCaller(AgentEnv):
    """Makes its first call from a thread that runs its own event loop, and awaits that
    thread (as `asyncio.to_thread` does, but a daemon thread: a hang cannot hold the exit)."""

    async def run(self, client: Any) -> AgentResult:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()

        def in_thread() -> None:
            try:
                reply = asyncio.run(client.chat.completions.create(model="m", messages=USER))
                loop.call_soon_threadsafe(done.set_result, reply)
            except BaseException as error:  # handed to the program, which re-raises it
                loop.call_soon_threadsafe(done.set_exception, error)

        threading.Thread(target=in_thread, daemon=True).start()
        first = await done
        text = first.choices[0].message.content
        second = await client.chat.completions.create(
            model="m", messages=[*USER, {"role": "assistant", "content": text}]
        )
        return AgentResult(1.0, info={"first": text, "second": second.choices[0].message.content})


async def test_a_call_from_a_threads_own_event_loop_gets_its_answer() -> None:
    env = FakeThreadCaller()
    assert (await asyncio.wait_for(env.reset(), GUARD))[0] == "go"
    first = [*USER, {"role": "assistant", "content": "one"}]
    assert not (await asyncio.wait_for(env.step(first), GUARD)).done
    second = [*first, {"role": "assistant", "content": "two"}]
    result = await asyncio.wait_for(env.step(second), GUARD)
    assert result.done and result.info == {"first": "one", "second": "two"}
    await env.close()


class FakeThreadLeaver(AgentEnv):
    """Its only call comes from a thread's own loop; the program then waits on other things.
    What the thread's call got is kept in `outcomes`."""

    outcomes: ClassVar[list[str]] = []

    async def run(self, client: Any) -> float:
        def in_thread() -> None:
            try:
                asyncio.run(client.chat.completions.create(model="m", messages=USER))
                self.outcomes.append("answered")
            except Exception as error:  # recorded for the test
                self.outcomes.append(f"{type(error).__name__}: {error}")

        threading.Thread(target=in_thread, daemon=True).start()
        await asyncio.Event().wait()
        return 0.0


async def test_close_refuses_a_call_a_thread_still_waits_on() -> None:
    env = FakeThreadLeaver()
    assert (await asyncio.wait_for(env.reset(), GUARD))[0] == "go"
    await asyncio.wait_for(env.close(), GUARD)
    for _ in range(int(GUARD / 0.05)):  # the thread's answer crosses back to its own loop
        if FakeThreadLeaver.outcomes:
            break
        await asyncio.sleep(0.05)
    (outcome,) = FakeThreadLeaver.outcomes
    assert outcome.startswith("BadRequestError: ") and "this episode has ended" in outcome


class FakeBlockingCaller(AgentEnv):
    """Calls from a thread's own loop and joins that thread without awaiting (as a sync
    wrapper such as asgiref's `async_to_sync` does inside a running loop): its own loop,
    which the episode answers on, is held until the thread ends."""

    async def run(self, client: Any) -> AgentResult:
        outcome: dict[str, Any] = {}

        def in_thread() -> None:
            try:
                reply = asyncio.run(client.chat.completions.create(model="m", messages=USER))
                outcome["reply"] = reply.choices[0].message.content
            except Exception as error:  # recorded for the test
                outcome["raised"] = f"{type(error).__name__}: {error}"

        thread = threading.Thread(target=in_thread, daemon=True)
        thread.start()
        thread.join(GUARD * 2)  # blocks the loop: the mistake under test (bounded for the test)
        outcome.setdefault("raised", "still waiting")
        answer = await client.chat.completions.create(model="m", messages=USER)
        return AgentResult(1.0, info={**outcome, "answer": answer.choices[0].message.content})


async def test_a_call_from_a_thread_the_program_blocks_on_fails_fast_and_says_why() -> None:
    env = FakeBlockingCaller()
    assert (await asyncio.wait_for(env.reset(), GUARD))[0] == "go"
    result = await asyncio.wait_for(env.step([*USER, {"role": "assistant", "content": "x"}]), GUARD)
    raised = result.info["raised"]
    assert raised.startswith("BadRequestError: ") and "blocks its own loop" in raised
    assert "asyncio.to_thread" in raised
    assert result.info["answer"] == "x"  # the episode plays on
    await env.close()
