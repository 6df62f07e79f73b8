"""`VerifiersEnv`: a verifiers environment as a swift-gym env, one class per taskset id."""

from __future__ import annotations

from typing import Any, ClassVar

from swift_gym import AgentEnv, AgentResult, Deployment

from .config import VerifiersConfig


class VerifiersEnv(AgentEnv):
    """Plays one task of an installed verifiers taskset; its rubric's score is the reward.

    Each model call the environment's seat makes is one turn of the policy. The episode ends
    when verifiers' rollout ends (the harness replied without tool calls, the env's `run`
    stopped talking, a `@stop` fired) and is scored then.
    """

    config_model = VerifiersConfig
    deployment = Deployment(uses_operator_services=True)
    """The taskset runs the operator's config (SWIFT_GYM_VERIFIERS_TASKSETS): its tool servers,
    judges and hosts; `swift-gym serve` plays it only when `--allow` names it."""
    taskset_id: ClassVar[str] = ""
    close_timeout: ClassVar[float] = 15.0
    """A cut-off episode's cleanup stops verifiers' tool servers (5 s SIGTERM grace each)."""

    async def run(self, client: Any) -> AgentResult:
        from .episode import play

        return await play(self.taskset_id, self.config.index, self.config.seed, client)


def env_class(taskset_id: str, class_name: str) -> type[VerifiersEnv]:
    """The env class for `taskset_id`, named `class_name` in `swift_gym_verifiers.envs`."""
    return type(
        class_name,
        (VerifiersEnv,),
        {
            "taskset_id": taskset_id,
            "__module__": "swift_gym_verifiers.envs",
            "__qualname__": class_name,
            "__doc__": f"verifiers taskset {taskset_id!r} as a swift-gym env.",
        },
    )
