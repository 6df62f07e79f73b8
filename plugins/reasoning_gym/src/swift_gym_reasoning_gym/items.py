"""Which item an episode plays, the datasets that hold them, and every call into reasoning-gym.

An episode's `seed` n plays item n of reasoning-gym's own endless stream, `ReseedingDataset`:
the dataset built with `seed = dataset_seed + n // size` (mod 2**32) and the config's `size`,
at index `n % size`. Consecutive seeds share one build, so a run over seeds 0..N builds
N / size datasets, and every seed is its own item (no wrap-around at `size`).

Built datasets are cached per (task, config, dataset seed) in the process, at most
`MAX_DATASETS`, least recently used first out: some builds cost (arc_agi and group_anagrams load
data files, about 0.5 s; acre makes all `size` puzzles up front).

Items are cached too (at most `MAX_ITEMS`, each handed out as a deep copy): GRPO plays each
seed several times in a row, and some items take a second to make (knight_swap, zebra_puzzles).

Calls into reasoning-gym run in worker threads, side by side, except for the tasks that touch
the global random state (`GLOBAL_RNG`): list_functions draws from the global `random` when its
dataset is built, and pool_matrix seeds numpy's global generator for each item, so two of its
items made at once in two threads would not be reproducible. Their calls run one at a time and
leave the global `random` and numpy states as they found them. No lock is held while other
tasks run, so a slow item (a large config) holds up only its own episode. The conformance kit's
`global_rng` check, run over every task, is what says no other task needs this.
"""

from __future__ import annotations

import copy
import functools
import math
import random
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from .derive import ReasoningGymConfig

MAX_DATASETS = 16
MAX_ITEMS = 1024
SEED_WRAP = 2**32
PER_EPISODE = frozenset({"name", "seed", "attempts", "system_prompt", "system_prompt_style"})
"""Config fields that do not change the dataset (so do not split the cache)."""

T = TypeVar("T")

GLOBAL_RNG = frozenset({"list_functions", "pool_matrix", "composite"})
"""Tasks that touch the global `random` or numpy state (composite may hold either)."""

PRINTS = frozenset({"bf", "composite"})
"""Tasks that print on stdout while making items (bf's compiler prints progress dots), which
would corrupt machine-readable output (`swift-gym eval --json`)."""

_cache_lock = threading.Lock()  # the two caches only; never held while reasoning-gym runs
_rng_lock = threading.RLock()  # one GLOBAL_RNG call at a time
_datasets: OrderedDict[tuple[str, str, int], Any] = OrderedDict()
_items: OrderedDict[tuple[tuple[str, str, int], int], dict[str, Any]] = OrderedDict()


def locate(config: ReasoningGymConfig, seed: int) -> tuple[int, int]:
    """(dataset seed, index) of episode `seed`: ReseedingDataset's chunk and position."""
    chunk, index = divmod(seed, config.size)
    return (config.dataset_seed + chunk) % SEED_WRAP, index


class _QuietThread:
    """sys.stdout for the length of one call: drops what the calling thread writes, passes on
    what every other thread writes."""

    def __init__(self, stream: Any, thread: int):
        self._stream, self._thread = stream, thread

    def write(self, text: str) -> int:
        if threading.get_ident() == self._thread:
            return len(text)
        return int(self._stream.write(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_print_lock = threading.Lock()


def _quietly(call: Callable[[], T]) -> T:
    with _print_lock:
        stream = sys.stdout
        sys.stdout = _QuietThread(stream, threading.get_ident())
        try:
            return call()
        finally:
            sys.stdout = stream


def guarded(task: str, call: Callable[[], T]) -> T:
    """`call()`; for a GLOBAL_RNG task, alone and with the global `random` (and numpy's, if
    loaded) restored afterwards; for a task that PRINTS, with its own prints dropped."""
    if task in PRINTS:
        call = functools.partial(_quietly, call)
    if task not in GLOBAL_RNG:
        return call()
    with _rng_lock:
        state = random.getstate()
        numpy = sys.modules.get("numpy")
        numpy_state = numpy.random.get_state() if numpy is not None else None
        try:
            return call()
        finally:
            random.setstate(state)
            if numpy_state is not None:
                numpy.random.set_state(numpy_state)


def _key(config: ReasoningGymConfig, dataset_seed: int) -> tuple[str, str, int]:
    return (config.task, config.model_dump_json(exclude=set(PER_EPISODE)), dataset_seed)


def _trim(cache: OrderedDict[Any, Any], limit: int) -> None:
    while len(cache) > limit:
        cache.popitem(last=False)


def dataset_for(
    config: ReasoningGymConfig, dataset_seed: int, key: tuple[str, str, int] | None = None
) -> Any:
    """The built dataset of `config` with `dataset_seed`, from the cache or built now (two
    threads asking at once may both build it; the first one cached wins). `key`: its cache
    key, if the caller has it already (it serialises the config)."""
    key = key or _key(config, dataset_seed)
    with _cache_lock:
        found = _datasets.get(key)
        if found is not None:
            _datasets.move_to_end(key)
            return found

    def build() -> Any:
        from reasoning_gym.factory import DATASETS

        dataset_class, _ = DATASETS[config.task]
        return dataset_class(config=config.dataclass_config(dataset_seed))

    dataset = guarded(config.task, build)
    with _cache_lock:
        dataset = _datasets.setdefault(key, dataset)
        _datasets.move_to_end(key)
        _trim(_datasets, MAX_DATASETS)
    return dataset


def item_for(config: ReasoningGymConfig, seed: int) -> tuple[Any, dict[str, Any], int, int]:
    """(dataset, item, dataset seed, index) of episode `seed`; the item is the caller's copy."""
    dataset_seed, index = locate(config, seed)
    key = _key(config, dataset_seed)
    item_key = (key, index)
    dataset = dataset_for(config, dataset_seed, key)
    with _cache_lock:
        entry = _items.get(item_key)
        if entry is not None:
            _items.move_to_end(item_key)
    if entry is None:
        entry = guarded(config.task, lambda: dataset[index])
        with _cache_lock:
            entry = _items.setdefault(item_key, entry)
            _trim(_items, MAX_ITEMS)
    return dataset, copy.deepcopy(entry), dataset_seed, index


def score(
    task: str, dataset: Any, answer: str | None, entry: dict[str, Any]
) -> tuple[float, str | None]:
    """(reasoning-gym's score of `answer`, or 0.0; the scorer's error, if it raised)."""
    try:
        value = guarded(task, lambda: dataset.score_answer(answer, entry))
        result = float(value)
    except Exception as error:  # a scorer that chokes on garbage (prime_factorization's int())
        return 0.0, f"{type(error).__name__}"
    if not math.isfinite(result):
        return 0.0, "non-finite score"
    return min(1.0, max(0.0, result)), None


def clear_cache() -> None:
    """Forget every built dataset and item (tests, and a process that wants its memory back)."""
    with _cache_lock:
        _datasets.clear()
        _items.clear()
