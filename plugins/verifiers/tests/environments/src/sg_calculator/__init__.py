"""A tool-using verifiers taskset: the model adds two numbers with an MCP tool (`calc_add`).

The tool is a `vf.Toolset` that verifiers launches per rollout as a real MCP server on
127.0.0.1; the reward is the task's own `@vf.reward`.
"""

import verifiers.v1 as vf

from sg_calculator.tools import CalculatorToolset

PAIRS = ((2, 3), (40, 2), (17, 25), (100, 1))


class CalculatorData(vf.TaskData):
    answer: str


class CalculatorTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()


class CalculatorTask(vf.Task[CalculatorData, vf.State, CalculatorTaskConfig]):
    @classmethod
    def toolsets(cls, config: CalculatorTaskConfig) -> list[vf.Toolset]:
        return [CalculatorToolset(config.tools)]

    @vf.reward
    async def correct(self, trace: vf.Trace) -> float:
        return float(f"<answer>{self.data.answer}</answer>" in (trace.last_reply or ""))


class CalculatorConfig(vf.TasksetConfig):
    task: CalculatorTaskConfig = CalculatorTaskConfig()


class CalculatorTaskset(vf.Taskset[CalculatorTask, CalculatorConfig]):
    def load(self):
        for a, b in PAIRS:
            yield CalculatorTask(
                CalculatorData(
                    name=f"{a}+{b}",
                    prompt=(
                        f"What is {a} + {b}? Call the calc_add tool, then reply with the "
                        "result inside <answer></answer> tags."
                    ),
                    answer=str(a + b),
                ),
                self.config.task,
            )


__all__ = ["CalculatorTaskset"]
