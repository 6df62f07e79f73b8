"""swift-gym's evaluation library: play episodes with a policy, summarise them, keep them.

`swift_gym.evaluate(env, policy, ...)` (or `await evaluate_async(...)`) returns an `EvalResult`;
`swift-gym eval` is a thin command over the same call. One job per module, from the bottom up:
`records` (the trajectory record and its file), `stats` (the numbers), `episodes` (play one),
`policies` and `openai` (who replies), `sources` (seeds or dataset rows), `progress` (what a run
shows), `runner` (many at once, and `Stop`), `result` (`EvalResult`), `api` (the entry points),
`compare` (how two runs differ, and whether significantly), `training` (where in training a
record was played), `curves` (learning curves of training trajectories), `runs` (where a run's
files are), `errors`, `defaults`. Nothing here imports the command (`cli`) or ms-swift;
attributes load on first use, so `import swift_gym` stays cheap.
"""

from __future__ import annotations

from ..lazy import attach

_EXPORTS = {
    "evaluate": "api",
    "evaluate_async": "api",
    "EvalResult": "result",
    "OpenAIPolicy": "openai",
    "CallablePolicy": "policies",
    "OraclePolicy": "policies",
    "Policy": "policies",
    "RandomPolicy": "policies",
    "Stop": "runner",
    "RunView": "progress",
    "ProgressBar": "progress",
    "EvaluationError": "errors",
    "PolicyError": "errors",
    "EndpointError": "errors",
    "EndpointSetupError": "errors",
    "DatasetError": "errors",
    "BadRowsError": "errors",
    "TrajectoryFileError": "errors",
    "read_records": "records",
    "summarize": "stats",
    "Difference": "compare",
    "differences": "compare",
    "Curve": "curves",
    "run_curves": "curves",
    "trajectory_paths": "runs",
}

__all__ = [
    "BadRowsError",
    "CallablePolicy",
    "Curve",
    "DatasetError",
    "Difference",
    "EndpointError",
    "EndpointSetupError",
    "EvalResult",
    "EvaluationError",
    "OpenAIPolicy",
    "OraclePolicy",
    "Policy",
    "PolicyError",
    "ProgressBar",
    "RandomPolicy",
    "RunView",
    "Stop",
    "TrajectoryFileError",
    "differences",
    "evaluate",
    "evaluate_async",
    "read_records",
    "run_curves",
    "summarize",
    "trajectory_paths",
]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .api import evaluate, evaluate_async
    from .compare import Difference, differences
    from .curves import Curve, run_curves
    from .errors import (
        BadRowsError,
        DatasetError,
        EndpointError,
        EndpointSetupError,
        EvaluationError,
        PolicyError,
        TrajectoryFileError,
    )
    from .openai import OpenAIPolicy
    from .policies import CallablePolicy, OraclePolicy, Policy, RandomPolicy
    from .progress import ProgressBar, RunView
    from .records import read_records
    from .result import EvalResult
    from .runner import Stop
    from .runs import trajectory_paths
    from .stats import summarize

__getattr__, __dir__ = attach(__name__, _EXPORTS, __all__)
