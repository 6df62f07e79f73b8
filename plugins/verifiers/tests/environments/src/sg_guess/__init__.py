"""A multi-turn verifiers environment: the env's own `run()` plays the user.

The model guesses a number; the env answers "higher" or "lower" as the next user turn, through
`agents.player.interaction(task)`, and records the reward on the trace itself, as verifiers'
TextArena and OpenEnv environments do. An infinite, seeded taskset (`INFINITE = True`).
"""

import itertools
import random
import re

import verifiers.v1 as vf


class GuessData(vf.TaskData):
    target: int


class GuessTask(vf.Task[GuessData]):
    pass


class GuessConfig(vf.TasksetConfig):
    low: int = 1
    high: int = 8


class GuessEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig()


class GuessEnv(vf.Env[GuessEnvConfig]):
    async def run(self, task, agents):
        solved = 0.0
        guesses = 0
        async with agents.player.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                match = re.search(r"-?\d+", segment.last_reply)
                guesses += 1
                if match is None:
                    feedback = "Reply with a number."
                elif int(match.group()) == task.data.target:
                    solved = 1.0
                    break
                elif int(match.group()) < task.data.target:
                    feedback = "higher"
                else:
                    feedback = "lower"
                segment = await interaction.turn(feedback)
        trace = interaction.trace
        trace.record_reward("solved", solved)
        trace.record_metric("guesses", float(guesses))


class GuessTaskset(vf.Taskset[GuessTask, GuessConfig]):
    INFINITE = True

    def load(self):
        for seed in itertools.count():
            target = random.Random(seed).randint(self.config.low, self.config.high)
            yield GuessTask(
                GuessData(
                    name=f"guess#{seed}",
                    prompt=(
                        f"Guess my number between {self.config.low} and {self.config.high}. "
                        "Reply with one number; I will say higher or lower."
                    ),
                    target=target,
                ),
                self.config.task,
            )


__all__ = ["GuessEnv", "GuessTaskset"]
