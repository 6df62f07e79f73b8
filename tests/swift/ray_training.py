"""A real `swift rlhf` GRPO run (the tests' tiny model, 2 steps) with SWIFT_GYM_RAY_ADDRESS set,
against a Ray cluster of a head without CPUs and two worker nodes on this machine. Run through
tests/ray's `netns.run` (a network namespace with only loopback up); prints JSON last: the
worker nodes, the training records the trainer wrote, its completions, the actors left after.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path[1:1] = [str(HERE.parent), str(HERE.parent / "ray")]  # jsonl_records, local_cluster

import jsonl_records  # noqa: E402
from grpo_run import swift_rlhf  # noqa: E402
from local_cluster import cluster, live_actors, wait_no_actors  # noqa: E402

INVALID_ACTION_REWARDS = [0.1, 0.2, 0.3, 0.4]
MAX_TURNS = 3


def main(root: Path) -> None:
    dataset = root / "frozen_lake.jsonl"
    dataset.write_text(
        "".join(
            json.dumps(
                {
                    "messages": [{"role": "user", "content": "<placeholder>"}],
                    "env_config": {"seed": seed, "invalid_action_reward": invalid},
                }
            )
            + "\n"
            for seed, invalid in enumerate(INVALID_ACTION_REWARDS)
        )
    )
    with cluster(workers=2, cpus=2) as started:
        import ray

        workers = [node.node_id for node in started.worker_nodes]
        run_dir = swift_rlhf(
            root,
            dataset,
            "frozen_lake",
            MAX_TURNS,
            {
                "SWIFT_GYM_RAY_ADDRESS": started.address,
                "SWIFT_GYM_TRAJECTORIES": str(root / "trajectories"),
            },
        )
        ray.init(address=started.address, log_to_driver=False)  # to count what is left
        left = [actor.get("ActorClassName") for actor in wait_no_actors()]
        records = [
            record
            for path in sorted((root / "trajectories").iterdir())
            for record in jsonl_records.records(path)
        ]
        completions = [json.loads(line) for line in (run_dir / "completions.jsonl").open()]
        print(
            json.dumps(
                {
                    "head": started.head_node.node_id,
                    "workers": workers,
                    "records": records,
                    "completions": completions,
                    "actors_left": left,
                    "actors_seen_after": len(live_actors()),
                }
            )
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
