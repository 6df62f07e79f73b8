"""A single-turn verifiers taskset whose rows are made in code: reverse a word.

Scored by its own `@vf.reward` (exact match of the last reply) and `@vf.metric`.
"""

import verifiers.v1 as vf

WORDS = ("abc", "hello", "swift", "gym", "verifiers", "policy", "reward", "turn")


class ReverseData(vf.TaskData):
    answer: str


class ReverseTaskConfig(vf.TaskConfig):
    broken_reward: bool = False
    """Make the reward raise (the tests' failing rubric)."""


class ReverseTask(vf.Task[ReverseData, vf.State, ReverseTaskConfig]):
    @vf.reward
    async def exact(self, trace: vf.Trace) -> float:
        if self.config.broken_reward:
            raise ValueError("the rubric broke")
        return float((trace.last_reply or "").strip() == self.data.answer)

    @vf.metric
    async def reply_chars(self, trace: vf.Trace) -> float:
        return float(len(trace.last_reply or ""))


class ReverseConfig(vf.TasksetConfig):
    num_tasks: int = len(WORDS)
    task: ReverseTaskConfig = ReverseTaskConfig()


class ReverseTaskset(vf.Taskset[ReverseTask, ReverseConfig]):
    def load(self):
        for word in WORDS[: self.config.num_tasks]:
            yield ReverseTask(
                ReverseData(
                    name=word,
                    prompt=f"Reverse the word: {word}",
                    system_prompt="Reply with the reversed word only.",
                    answer=word[::-1],
                ),
                self.config.task,
            )


__all__ = ["ReverseTaskset"]
