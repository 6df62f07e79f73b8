"""The trajectory record: its schema, and the JSONL file of them that `evaluate(output=...)`,
`EvalResult.save` and `swift-gym eval -o` write and `EvalResult.load`, `replay` and `report` read.

Each line is one episode:
`index`, `env`, `seed`, `env_config`, `policy`, `max_turns` (the episode's turn limit),
`system_prompt`, `observation` (the first), `reset_info`, `turns` (each: `turn`, `reply`,
`action`, `valid_action`, `observation`, `reward`, `done`, `info`), `num_turns`,
`total_reward`, `success`, `status` and `error` (why the episode failed, or null); with several
rollouts per seed, after `seed`: `task` (the seed's or row's episode number without rollouts),
`rollout` (0, 1, ...) and `sampling_seed` (see `rollouts`); with a policy
that tells them (`openai`), `policy_settings` (model, base URL, temperature, max_tokens) and
each turn's `finish_reason` and `usage`, when the server gave them. An env that offers tools
adds `tools` (the schemas it offered), and each of its turns `tool_calls` (`{"id", "name",
"arguments"}`, arguments as the model wrote them; `reply` is the reply's text) and
`tool_results` (`{"tool_call_id", "name", "content"}`, in call order; `observation` is the env's
text); a text env played with text replies has none of these keys. An episode the run stopped
before has status `NOT_PLAYED`, no turns and a null error. Lines are written in `index` order
as soon as the episodes before them end, so an interrupted run keeps a usable prefix.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import short_repr
from ..json_text import dumps as json_dumps
from ..rows import read_jsonl
from .errors import TrajectoryFileError
from .groups import group_of

NOT_PLAYED = "not_played"
"""The status of an episode the run never started: not a result, not counted in the stats."""


SUMMARY_FIELDS = (
    "index", "env", "seed", "task", "rollout", "policy", "max_turns", "total_reward",
    "num_turns", "success", "status", "error", "training",
)  # fmt: skip


def slim(record: dict[str, Any]) -> dict[str, Any]:
    """What summaries, comparisons and learning curves need of a record (a few hundred bytes):
    its fields in `SUMMARY_FIELDS`, each turn's `valid_action` and its per-env `group`; the
    texts stay in the file."""
    kept = {key: record[key] for key in SUMMARY_FIELDS if key in record}
    kept["turns"] = [{"valid_action": turn.get("valid_action")} for turn in record["turns"]]
    kept["group"] = list(group_of(record))  # its per-env row, without the whole env_config
    return kept


def dumps(record: dict[str, Any]) -> str:
    """A record as one JSON line that always encodes: values JSON cannot hold (an env's custom
    info) become str, lone surrogates from a model stay escaped, too-deep parts are cut."""
    return json_dumps(record)


class OrderedWriter:
    """Writes records by `index`, holding back those that finish before their predecessors."""

    def __init__(self, file: IO[str] | None, first_index: int = 0):
        self.file = file
        self._next = first_index
        self._waiting: dict[int, dict[str, Any]] = {}

    def add(self, record: dict[str, Any]) -> None:
        if self.file is None:
            return
        self._waiting[record["index"]] = record
        while self._next in self._waiting:
            self.file.write(dumps(self._waiting.pop(self._next)) + "\n")
            self._next += 1
        self.file.flush()

    def finish(self) -> None:
        """Write whatever is still held (only after a gap, which a finished run never has)."""
        if self.file is None:
            return
        for index in sorted(self._waiting):
            self.file.write(dumps(self._waiting.pop(index)) + "\n")
        self.file.flush()


def record_problem(row: dict[str, Any]) -> str | None:
    """Why `row` is no episode record that can be summarised and shown, or None.

    Only the fields computed with are checked (a hand-edited or foreign file must give a
    line-numbered warning, not a traceback from a sum); every other field is kept as it is.
    """
    turns = row.get("turns")
    if not isinstance(turns, list) or not all(isinstance(turn, dict) for turn in turns):
        return "not an episode record (no 'turns' list of objects)"
    for key, kinds in (("num_turns", (int,)), ("total_reward", (int, float))):
        value = row.get(key)
        if value is None:
            continue
        infinite = isinstance(value, float) and not math.isfinite(value)
        if isinstance(value, bool) or not isinstance(value, kinds) or infinite:
            return f"not an episode record ({key!r} is {short_repr(value, 40)}, not a number)"
        if not _countable(value):
            why = "too large to count: over 1.8e308"
            return f"not an episode record ({key!r} is {short_repr(value, 40)}, {why})"
    return None


def is_dataset_row(row: dict[str, Any]) -> bool:
    """A dataset row (`swift-gym dataset`, a training set): a prompt to play, no episode."""
    return "messages" in row and "turns" not in row


def _countable(value: float) -> bool:
    """Whether statistics can take the number: a float, or a whole number a float can hold
    (JSON has whole numbers of any size; 10**400 is beyond the largest float, about 1.8e308)."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


Skipped = Callable[[str], None]
"""Told why each line that is no episode record was skipped ("FILE, line N: why")."""


def read_records(path: Path | str, skipped: Skipped | None = None) -> Iterator[dict[str, Any]]:
    """The episodes of a trajectory file, lazily. A line that is not one is skipped (and
    `skipped` told why) and reading goes on; a file with lines but no episode at all raises
    `TrajectoryFileError` with the first line's reason. A cut last line alone (a process killed
    while writing its first episode) is skipped like any other, but leaves the file empty
    rather than wrong, so one such file does not stop reading a directory of them.

    Dataset rows are no episodes either, but are not told one by one: a file of them with no
    episode is a dataset given where trajectories belong, which the error says (and how to play
    it); dataset rows among episodes are told once, at the end."""
    path = Path(path)
    good = 0
    first = ""
    dataset_rows = first_dataset_row = 0
    for line in read_jsonl(path):
        if line.row is not None and is_dataset_row(line.row):
            dataset_rows += 1
            first_dataset_row = first_dataset_row or line.number
            continue
        why = line.error if line.row is None else record_problem(line.row)
        if why is not None:
            reason = f"{path}, line {line.number}: {why}"
            if not line.cut:
                first = first or reason
            if skipped is not None:
                skipped(reason)
            continue
        good += 1
        yield line.row  # type: ignore[misc]
    if dataset_rows and not good:
        raise TrajectoryFileError(
            f"{path} is a dataset (rows of messages and env_config), not a trajectory file: "
            f"play it to record episodes (swift-gym eval --dataset {path} --policy POLICY "
            "-o FILE, or evaluate(dataset=..., output=...)), then read FILE"
        )
    if dataset_rows and skipped is not None:
        more = " and later" if dataset_rows > 1 else ""
        rows = f"{dataset_rows} dataset row{'s' * (dataset_rows > 1)}"
        skipped(f"{path}, line {first_dataset_row}{more}: {rows} (messages), not episodes")
    if first and not good:
        raise TrajectoryFileError(first)
