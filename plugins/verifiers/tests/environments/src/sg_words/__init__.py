"""A taskset that cannot run without the operator's config: reverse the operator's words.

Its config has a required field (`words`, no default), as a taskset that needs a data file, a
server URL or a game id does: only `SWIFT_GYM_VERIFIERS_TASKSETS` can give it. The task is
`sg_reverse`'s, scored by its `@vf.reward`.
"""

import verifiers.v1 as vf
from sg_reverse import ReverseData, ReverseTask, ReverseTaskConfig


class WordsConfig(vf.TasksetConfig):
    words: list[str]
    """The words to reverse, one task each (required: the operator's)."""


class WordsTaskset(vf.Taskset[ReverseTask, WordsConfig]):
    def load(self):
        for word in self.config.words:
            data = ReverseData(
                name=word,
                prompt=f"Reverse the word: {word}",
                system_prompt="Reply with the reversed word only.",
                answer=word[::-1],
            )
            yield ReverseTask(data, ReverseTaskConfig())


__all__ = ["WordsTaskset"]
