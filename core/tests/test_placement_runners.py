"""Unit tests of where sessions' envs run (`swift_gym.placement.runners`, `worker.Mailbox`):
each isolation plays the same episode and contains the same failures; the shared pool pins a
session to one loop and keeps new sessions off a loop that is blocked. Real servers:
tests/test_serve_isolation.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import threading
import time

import pytest

from swift_gym.placement import ISOLATIONS
from swift_gym.placement.runners import SHARED_LOOPS, InlineRunner, Isolation, LoopPool
from swift_gym.placement.worker import CallAborted, CallTimeout, Mailbox
from swift_gym.registry import default_registry
from swift_gym.serving.catalogue import EnvCatalogue
from swift_gym.serving.options import ServeOptions
from swift_gym.serving.sessions import Session, SessionTable


@pytest.mark.parametrize("isolation", ISOLATIONS)
async def test_every_isolation_plays_the_same_episode(isolation: str) -> None:
    placement = Isolation(isolation)
    table = SessionTable(1)
    session = Session(
        EnvCatalogue(default_registry(), "frozen_lake"), table, step_timeout=10,
        placement=placement,
    )  # fmt: skip
    table.add(session)
    texts = [json.loads(await session.handle("reset", {"seed": 3}))["data"]]
    while not texts[-1]["done"]:
        reply = session.env.oracle_reply()  # type: ignore[union-attr]
        texts.append(json.loads(await session.handle("step", {"message": reply}))["data"])
    assert texts[-1]["reward"] == 1.0
    await session.close()
    placement.stop()
    assert table.in_use == 0


def test_an_unknown_isolation_is_refused() -> None:
    with pytest.raises(ValueError, match="isolation must be one of auto, thread, shared, inline"):
        ServeOptions(isolation="process")


def test_auto_runs_inline_only_the_envs_that_declare_never_blocks() -> None:
    declared = {"frozen_lake": True}
    auto = Isolation("auto", lambda name: declared.get(name, False))
    assert auto.kind("frozen_lake") == "inline"
    assert auto.kind("reasoning_gym.leg_counting") == auto.kind(None) == "thread"
    assert Isolation("auto").kind("frozen_lake") == "thread"  # nothing declared: the safe side
    for isolation in ("thread", "shared", "inline"):  # the operator's choice wins
        assert Isolation(isolation, lambda name: True).kind("x") == isolation
    assert isinstance(auto.runner("t", "inline"), InlineRunner)
    worker = auto.runner("swift-gym-test", "thread")
    assert worker.kind == "thread"
    worker.stop()


def test_the_catalogue_says_never_blocks_only_for_envs_it_serves() -> None:
    catalogue = EnvCatalogue(default_registry(), "frozen_lake")
    assert catalogue.never_blocks("frozen_lake")
    assert not catalogue.never_blocks("no_such_env")
    assert catalogue.requested_env({}) == "frozen_lake"
    assert catalogue.requested_env({"env_config": {"name": "other"}}) == "other"
    assert catalogue.requested_env({"env_config": {"name": 3}}) is None
    assert catalogue.requested_env({"env_config": []}) is None
    served = EnvCatalogue(default_registry(), allow=["openenv"])  # frozen_lake: not served
    assert not served.never_blocks("frozen_lake")


async def test_inline_calls_time_out_and_contain_sys_exit_and_leave_the_caller_usable() -> None:
    runner = InlineRunner()
    assert await runner.call(lambda: 7, 5) == 7
    with pytest.raises(CallTimeout, match=r"within 0\.1 s"):
        await runner.call(lambda: asyncio.sleep(30), 0.1)
    await asyncio.sleep(0.01)  # the caller's task is not left cancelled
    with pytest.raises(CallAborted, match=r"sys.exit\(4\)"):
        await runner.call(lambda: sys.exit(4), 5)
    with pytest.raises(RuntimeError, match="boom"):
        await runner.call(lambda: (_ for _ in ()).throw(RuntimeError("boom")), 5)
    assert not runner.busy


async def test_inline_time_out_holds_for_an_env_that_ignores_the_cancel() -> None:
    async def stubborn() -> str:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(30)
        return "late"

    with pytest.raises(CallTimeout):
        await InlineRunner().call(stubborn, 0.1)
    await asyncio.sleep(0.01)


async def test_a_shared_pool_pins_sessions_and_spreads_them_over_its_loops() -> None:
    pool = LoopPool()
    runners = [pool.runner() for _ in range(2 * SHARED_LOOPS)]
    assert len({runner.worker for runner in runners}) == SHARED_LOOPS
    first = runners[0]
    loops = {await first.call(asyncio.get_running_loop, 5) for _ in range(3)}
    assert len(loops) == 1 and asyncio.get_running_loop() not in loops
    for runner in runners:
        runner.stop()
    pool.stop()


async def test_a_shared_loop_with_a_call_past_its_timeout_gets_no_new_sessions() -> None:
    pool = LoopPool(size=2)
    stuck, other = pool.runner(), pool.runner()
    with pytest.raises(CallTimeout):
        await stuck.call(lambda: time.sleep(0.6), 0.1)
    assert stuck.busy and not other.busy and stuck.worker.overdue == 1
    newcomers = [pool.runner() for _ in range(3)]
    assert stuck.worker not in {runner.worker for runner in newcomers}
    assert await newcomers[0].call(lambda: "free", 5) == "free"
    await asyncio.sleep(0.8)
    assert not stuck.busy and stuck.worker.overdue == 0
    for runner in [stuck, other, *newcomers]:
        runner.stop()
    pool.stop()


async def test_a_mailbox_runs_everything_posted_from_other_threads_in_order() -> None:
    box = Mailbox(asyncio.get_running_loop())
    seen: list[int] = []
    done = asyncio.Event()

    def post_all() -> None:
        for i in range(500):
            box.post(seen.append, i)
        box.post(done.set)

    threading.Thread(target=post_all).start()
    await asyncio.wait_for(done.wait(), 10)
    assert seen == list(range(500))


class _Closes:
    """Done at the first step; its close() counts, and fails as `failure` says."""

    closes = 0

    def __init__(self, failure: BaseException | None) -> None:
        self.failure = failure

    async def reset(self) -> tuple[str, dict[str, object], str]:
        return "start", {}, ""

    async def step(self, messages: object) -> tuple[str, float, bool, dict[str, object]]:
        return "end", 1.0, True, {}

    async def close(self) -> None:
        _Closes.closes += 1
        if self.failure is not None:
            raise self.failure


@pytest.mark.parametrize("failure", [None, RuntimeError("close broke"), SystemExit(2)])
async def test_the_last_step_is_answered_before_its_env_is_closed_once(
    failure: BaseException | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swift_gym.placement.worker import EnvWorker

    calls: list[object] = []
    call = EnvWorker.call

    def counted(self: EnvWorker, function: object, timeout: float, lane: object = None) -> object:
        calls.append(function)
        return call(self, function, timeout, lane)  # type: ignore[arg-type]

    monkeypatch.setattr(EnvWorker, "call", counted)

    class _Catalogue:
        registry = None

        def env_config(self, data: object) -> tuple[str, dict[str, object], None]:
            return "closes", {"name": "closes"}, None

        def get_env_class(self, name: str) -> object:
            return lambda config: _Closes(failure)

        def requested_env(self, data: object) -> str:
            return "closes"

    chosen = _Catalogue()
    chosen.registry = chosen  # type: ignore[assignment]
    session = Session(chosen, SessionTable(1), step_timeout=5)  # type: ignore[arg-type]
    _Closes.closes = 0
    await session.handle("reset", {})
    answer = json.loads(await session.handle("step", {"message": "x"}))
    assert answer["data"]["done"] is True and answer["data"]["reward"] == 1.0
    assert len(calls) == 2 and _Closes.closes == 0  # answered first: not closed yet
    assert session.env is None and session.state()["phase"] == "over"
    session.answered()  # the answer is out: the close starts, in its own call
    assert json.loads(await session.handle("state", {}))["data"]["phase"] == "over"
    assert len(calls) == 3 and _Closes.closes == 1  # the next frame waited for it
    await session.close()
    assert _Closes.closes == 1  # not closed twice
