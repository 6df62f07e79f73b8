"""The `swift_gym` scheduler with SWIFT_GYM_RAY_ADDRESS set, on both of ms-swift's paths (server
`run()` and colocate `run_multi_turn`), driven by tests/swift's scripted engine (no model); two
batches each. Prints what happened as JSON for test_ray_scheduler.py (run through `netns.run`).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from local_cluster import cluster, live_actors, wait_no_actors

sys.path.insert(0, str(Path(__file__).parents[1] / "swift"))


def batch(run: Any, name: str, seeds: range, scheduler: Any) -> list[dict[str, Any]]:
    from conftest import oracle, rows  # tests/swift's scripted rows and oracle

    outputs = run(name, oracle, rows(*({"seed": seed} for seed in seeds)), scheduler=scheduler)
    found = []
    for output in outputs:
        infos = output.rollout_infos
        found.append(
            {
                "total_reward": infos["total_reward"],
                "env_error": infos["env_error"],
                "places": [infos["reset_info"].get("ray")]
                + [info.get("ray") for info in infos["step_infos"]],
            }
        )
    return found


def main() -> None:
    report: dict[str, Any] = {"script_pid": os.getpid()}
    with cluster(workers=2, cpus=2) as started:
        import ray

        os.environ["SWIFT_GYM_RAY_ADDRESS"] = started.address
        ray.init(address=started.address, log_to_driver=False)  # to count actors after
        report["head"] = started.head_node.node_id
        report["workers"] = [node.node_id for node in started.worker_nodes]
        from conftest import make_scheduler, oracle, run_colocate_mode, run_server_mode

        from swift_gym.placement import process_placement

        try:
            for path, run in (("server", run_server_mode), ("colocate", run_colocate_mode)):
                # a scheduler (and scripted engine, which counts turns per uuid) per batch;
                # the actors are the process's, shared by every scheduler and batch
                report[path] = [
                    batch(
                        run,
                        "swift_gym",
                        range(first, first + 8),
                        make_scheduler("swift_gym", oracle),
                    )
                    for first in (0, 8)
                ]
            report["actors_during"] = len(live_actors())
        finally:
            placement = process_placement()
            assert placement is not None
            placement.shutdown()  # before the cluster goes: what a process's exit does
        # this process joined the cluster before the scheduler did, as `megatron rlhf --use_ray`
        # does (`ray.init` in its driver, which runs the scheduler): the placement used that
        # connection and leaves it to its owner
        report["still_connected"] = ray.is_initialized()
        report["actors_after"] = len(wait_no_actors())
        ray.shutdown()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
