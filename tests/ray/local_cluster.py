"""A Ray cluster of several nodes on this machine, for the `ray` tests' scripts.

Run only inside a network namespace of the test's own (`netns.run`): there Ray uses 127.0.0.1,
the only address up. The head holds no CPU, so every actor lands on a worker node.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SYSTEM_CONFIG = {
    # a killed node is found dead in seconds, not the default half minute
    "health_check_initial_delay_ms": 0,
    "health_check_period_ms": 500,
    "health_check_failure_threshold": 3,
}


@contextmanager
def cluster(workers: int = 2, cpus: int = 2) -> Iterator[Any]:
    """A started cluster (`ray.cluster_utils.Cluster`) with `workers` nodes of `cpus` CPUs."""
    from ray.cluster_utils import Cluster

    started = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "_system_config": SYSTEM_CONFIG},
    )
    try:
        for _ in range(workers):
            started.add_node(num_cpus=cpus)
        started.wait_for_nodes()
        yield started
    finally:
        import ray

        ray.shutdown()  # a driver connected to the head would keep it from going
        started.shutdown()


def live_actors() -> list[dict[str, Any]]:
    """Actors of the cluster not dead (the GCS's table, as `ray list actors` shows it)."""
    from ray._private.state import actors

    return [actor for actor in actors().values() if actor.get("State") != "DEAD"]


def wait_no_actors(deadline: float = 30.0) -> list[dict[str, Any]]:
    """Live actors once none are left, or those left after `deadline` seconds."""
    end = time.monotonic() + deadline
    left = live_actors()
    while left and time.monotonic() < end:
        time.sleep(0.2)
        left = live_actors()
    return left
