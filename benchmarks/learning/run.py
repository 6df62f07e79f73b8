"""Proof that it trains: a small Qwen2 built here learns FrozenLake on a CPU, through ms-swift.

    python benchmarks/learning/run.py --out benchmarks            # the full run (tox -e learn)
    python benchmarks/learning/run.py --out benchmarks --work W --keep   # again: goes on in W
    python benchmarks/learning/run.py --quick --out /tmp/learn    # a few steps of each stage
    python benchmarks/learning/run.py --out /tmp/learn --only A --set a_lr=1e-3   # one change

Experiment A (the classic fixed 4x4 map): a format-only warm start (`swift sft` on uniformly
random valid actions), then `swift rlhf` GRPO with the env's reward. Experiment B (random maps):
`swift sft` on oracle episodes of training seeds (`swift-gym eval --policy oracle -o`,
`swift-gym export`), then GRPO from that checkpoint; the scratch model, the SFT and the GRPO
checkpoints are evaluated on the same held-out seeds. Experiment C (the classic map with
`action_format: tool`, through `--agent_template hermes`): A's recipe where each reply is a call
of the tool `move`, with a scratch model of its own whose tokenizer holds each call as one token
(`model.py`). Each experiment runs once per training seed (`Settings.seeds`). Writes
OUT/learning.json, OUT/LEARNING.md,
OUT/learning-report.html (`swift-gym report`) and OUT/learning-curve.svg. Work files
(checkpoints, episodes, logs) go to --work, deleted at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, CancelledError, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import get_args, get_type_hints

sys.path.insert(0, str(Path(__file__).resolve().parent))

import report
import stages
from commands import PINNED, Commands
from model import build_model

CLASSIC_MAP = "SFFF/FHFH/FFFH/HFFG"
HELD_OUT_SEED = 1_000_000  # Experiment B's evaluation seeds start here; training seeds at 0


@dataclass(frozen=True)
class Settings:
    """Sizes of one run: the full one, or the quick one CI runs so the pipeline does not rot.

    GRPO's steps are optimizer steps, `iterations` of them on each rollout. What the settings
    before these did is in LEARNING.md, "What it took" (markdown_text.what_it_took)."""

    model_size: str = "tiny"
    seeds: int = 3
    """Training seeds 0..seeds-1: each seed's run builds its own scratch model (weights drawn
    with that seed) and passes it to every stage (`--seed`, the format episodes' draws). The
    evaluation episodes and their sampling are the same for every seed, so the spread across
    seeds is training's. Each goal is judged on every seed."""
    eval_episodes: int = 200
    max_turns: int = 10
    temperature: float = 1.0
    a_format_episodes: int = 400
    a_format_epochs: float = 10
    a_grpo_steps: int = 1000
    a_generations: int = 32
    a_prompts: int = 1
    a_lr: float = 1e-3
    b_train_seeds: int = 2000
    b_sft_epochs: float = 8
    b_grpo_steps: int = 400
    b_generations: int = 16
    b_prompts: int = 2
    b_lr: float = 5e-4
    c_format_episodes: int = 400
    c_format_epochs: float = 10
    c_grpo_steps: int = 1500
    c_generations: int = 32
    c_prompts: int = 1
    c_lr: float = 5e-4
    """Half A's, for 1.5x the steps: at 1e-3 one seed of three left the goal's policy at step
    650 within one rollout (KL to the warm start 0.46 -> 7.6) for replies of stray tokens
    (LEARNING.md, "What it took")."""
    agent_template: str = "hermes"
    """Experiment C's `--agent_template` (on the `qwen2_5` template); the scratch model's
    tokenizer is built for hermes's text (`model.py`)."""
    iterations: int = 4
    scale_rewards: str = "none"
    beta: float = 0.01
    invalid_action_reward: float = -0.5
    """Set in the GRPO rows only (evaluation plays the env's defaults), with
    `action_parsing: exact`. An invalid reply costs a turn but not the goal, so without a
    price a winning episode's invalid replies are rewarded too; with unscaled advantages the
    price must be near the goal's to count (-0.1 let empty replies reach 15% of the turns for
    a while). Exact parsing makes text after the tag invalid too: with the first tag read,
    a run unlearned ending its reply (LEARNING.md, "What it took")."""
    sft_lr: float = 3e-3
    sft_batch: int = 16
    sft_max_steps: int | None = None


FULL = Settings()
QUICK = Settings(
    seeds=1, eval_episodes=10, a_format_episodes=16, a_grpo_steps=2, a_generations=4,
    b_train_seeds=16, b_grpo_steps=2, b_generations=4, b_prompts=1, sft_max_steps=2,
    c_format_episodes=16, c_grpo_steps=2, c_generations=4,
)  # fmt: skip


def training_rewards(settings: Settings, tool: bool = False) -> dict:
    """The env_config fields the GRPO rows add to the env's defaults. With `tool` (experiment
    C) no `action_parsing`: it reads `<action>` tags, and in tool mode a reply is valid only
    when it holds exactly one valid call of `move` (the env refuses the field there)."""
    if tool:
        return {"invalid_action_reward": settings.invalid_action_reward}
    return {"invalid_action_reward": settings.invalid_action_reward, "action_parsing": "exact"}


def override(settings: Settings, pairs: list[str]) -> Settings:
    """`settings` with `KEY=VALUE` pairs (`--set a_lr=1e-3`) replacing fields, read as the field's
    type (`none` clears an optional one)."""
    hints = get_type_hints(Settings)
    changes: dict[str, object] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or key not in hints:
            raise SystemExit(
                f"--set {pair!r}: expected KEY=VALUE with KEY one of {', '.join(hints)}"
            )
        kinds = get_args(hints[key]) or (hints[key],)  # `int | None` is (int, NoneType)
        if type(None) in kinds and text.lower() == "none":
            changes[key] = None
            continue
        kind = next(k for k in kinds if k is not type(None))
        try:
            changes[key] = kind(text)
        except ValueError:
            names = " or ".join("none" if k is type(None) else k.__name__ for k in kinds)
            raise SystemExit(f"--set {pair!r}: {key} takes {names}") from None
    return replace(settings, **changes)


def ended(trained: stages.Trained) -> dict:
    """A stage object's `ended` field: how ms-swift ended a training run that did not finish."""
    return {"ended": trained.ended} if trained.ended else {}


def experiment_a(
    cmd: Commands, s: Settings, scratch: Path, w: Path, seed: int
) -> tuple[list, dict]:
    fixed = {"map": CLASSIC_MAP}
    cmd.run(f"A{seed}-format-episodes", [
        *cmd.script("format_episodes.py"), *stages.sets(fixed), "-n", str(s.a_format_episodes),
        "--max-turns", str(s.max_turns), "--seed", str(seed),
        "-o", str(w / "A-format-episodes.jsonl"),
    ])  # fmt: skip
    cmd.run(f"A{seed}-format-export", [
        cmd.bin("swift-gym"), "export", str(w / "A-format-episodes.jsonl"),
        "-o", str(w / "A-format-sft.jsonl"),
    ])  # fmt: skip
    warm = stages.sft(
        cmd, f"A{seed}-format-sft", scratch, w / "A-format-sft.jsonl", w / "A-sft",
        s.a_format_epochs, s.sft_lr, s.sft_batch, seed, s.sft_max_steps,
    )  # fmt: skip
    cmd.run(f"A{seed}-grpo-dataset", [
        cmd.bin("swift-gym"), "dataset", "frozen_lake", "-n", "4096",
        *stages.sets({**fixed, **training_rewards(s)}),
        "-o", str(w / "A-grpo-rows.jsonl"),
    ])  # fmt: skip
    trained = stages.grpo(
        cmd, f"A{seed}-grpo", warm.checkpoint, w / "A-grpo-rows.jsonl", w / "A-grpo",
        w / "A-trajectories", s.a_grpo_steps, s.a_generations, s.a_prompts, s.a_lr, s.beta,
        s.max_turns, s.temperature, seed, s.iterations, s.scale_rewards,
    )  # fmt: skip
    objs, files = [], {}
    for name, t, steps in (
        ("format warm start", warm, warm.steps),
        ("GRPO", trained, warm.steps + trained.steps),
    ):
        tag = "start" if name.startswith("format") else "grpo"
        sample, greedy, path = stages.evaluate(
            cmd, f"A{seed}-eval-{tag}", t.checkpoint, fixed, s.eval_episodes, 0, s.temperature,
            w / f"A-eval-{tag}",
        )  # fmt: skip
        extra = {"checkpoint_stage_steps": t.steps, **ended(t)}
        if tag == "grpo":
            extra["curve"] = report.training_curve(w / "A-trajectories")
        objs.append(report.stage_object("A", name, seed, sample, greedy, steps, t.wall_s, **extra))
        files[tag] = path
    return objs, files


def experiment_b(
    cmd: Commands, s: Settings, scratch: Path, w: Path, seed: int
) -> tuple[list, dict]:
    cmd.run(f"B{seed}-oracle-episodes", [  # --force: a resumed unit replaces a cut-off file
        cmd.bin("swift-gym"), "eval", "frozen_lake", "--policy", "oracle",
        "-n", str(s.b_train_seeds), "--seed-start", "0", "-o", str(w / "B-oracle.jsonl"),
        "--force",
    ])  # fmt: skip
    cmd.run(f"B{seed}-oracle-export", [
        cmd.bin("swift-gym"), "export", str(w / "B-oracle.jsonl"), "--status", "goal",
        "-o", str(w / "B-sft-rows.jsonl"),
    ])  # fmt: skip
    sft = stages.sft(
        cmd, f"B{seed}-sft", scratch, w / "B-sft-rows.jsonl", w / "B-sft", s.b_sft_epochs,
        s.sft_lr, s.sft_batch, seed, s.sft_max_steps,
    )  # fmt: skip
    cmd.run(f"B{seed}-grpo-dataset", [
        cmd.bin("swift-gym"), "dataset", "frozen_lake", "-n", str(s.b_train_seeds),
        "--seed-start", "0", *stages.sets(training_rewards(s)), "-o", str(w / "B-grpo-rows.jsonl"),
    ])  # fmt: skip
    trained = stages.grpo(
        cmd, f"B{seed}-grpo", sft.checkpoint, w / "B-grpo-rows.jsonl", w / "B-grpo",
        w / "B-trajectories", s.b_grpo_steps, s.b_generations, s.b_prompts, s.b_lr, s.beta,
        s.max_turns, s.temperature, seed, s.iterations, s.scale_rewards,
    )  # fmt: skip
    objs, files = [], {}
    for name, tag, checkpoint, steps, wall, extra in (
        ("scratch (random weights)", "start", scratch, 0, 0.0, {}),
        ("SFT on oracle episodes", "sft", sft.checkpoint, sft.steps, sft.wall_s, {}),
        ("GRPO from SFT", "grpo", trained.checkpoint, sft.steps + trained.steps, trained.wall_s,
         {"curve": report.training_curve(w / "B-trajectories"), **ended(trained)}),
    ):  # fmt: skip
        sample, greedy, path = stages.evaluate(
            cmd, f"B{seed}-eval-{tag}", checkpoint, {}, s.eval_episodes, HELD_OUT_SEED,
            s.temperature, w / f"B-eval-{tag}",
        )  # fmt: skip
        objs.append(report.stage_object("B", name, seed, sample, greedy, steps, wall, **extra))
        files[tag] = path
    return objs, files


def experiment_c(
    cmd: Commands, s: Settings, scratch: Path | None, w: Path, seed: int
) -> tuple[list, dict]:
    """A's recipe with `action_format: tool` through `--agent_template`; its own scratch model
    (A and B's stays as it was, so their results stay comparable). `scratch` is unused."""
    started = time.perf_counter()
    scratch = w / "C-scratch-model"
    model = build_model(scratch, s.model_size, seed, tools=True)
    cmd.log.append((
        f"C{seed}-build-model",
        f"python benchmarks/learning/model.py $WORK/seed-{seed}/C/C-scratch-model "
        f"{s.model_size} {seed} --tools",
        round(time.perf_counter() - started, 1),
    ))  # fmt: skip
    fixed = {"map": CLASSIC_MAP, "action_format": "tool"}
    agent = ("--agent_template", s.agent_template)
    cmd.run(f"C{seed}-format-episodes", [
        *cmd.script("format_episodes.py"), "--tool", *stages.sets(fixed),
        "-n", str(s.c_format_episodes), "--max-turns", str(s.max_turns), "--seed", str(seed),
        "-o", str(w / "C-format-episodes.jsonl"),
    ])  # fmt: skip
    cmd.run(f"C{seed}-format-export", [
        cmd.bin("swift-gym"), "export", str(w / "C-format-episodes.jsonl"),
        "-o", str(w / "C-format-sft.jsonl"),
    ])  # fmt: skip
    warm = stages.sft(
        cmd, f"C{seed}-format-sft", scratch, w / "C-format-sft.jsonl", w / "C-sft",
        s.c_format_epochs, s.sft_lr, s.sft_batch, seed, s.sft_max_steps, agent,
    )  # fmt: skip
    # the rows carry the env's tools (`swift-gym dataset` writes them for a tool env): ms-swift
    # encodes the prompt it trains on from a row's own `tools`
    cmd.run(f"C{seed}-grpo-dataset", [
        cmd.bin("swift-gym"), "dataset", "frozen_lake", "-n", "4096",
        *stages.sets({**fixed, **training_rewards(s, tool=True)}),
        "-o", str(w / "C-grpo-rows.jsonl"),
    ])  # fmt: skip
    trained = stages.grpo(
        cmd, f"C{seed}-grpo", warm.checkpoint, w / "C-grpo-rows.jsonl", w / "C-grpo",
        w / "C-trajectories", s.c_grpo_steps, s.c_generations, s.c_prompts, s.c_lr, s.beta,
        s.max_turns, s.temperature, seed, s.iterations, s.scale_rewards, agent,
    )  # fmt: skip
    objs, files = [], {}
    for name, t, steps in (
        ("format warm start", warm, warm.steps),
        ("GRPO", trained, warm.steps + trained.steps),
    ):
        tag = "start" if name.startswith("format") else "grpo"
        sample, greedy, path = stages.evaluate(
            cmd, f"C{seed}-eval-{tag}", t.checkpoint, fixed, s.eval_episodes, 0, s.temperature,
            w / f"C-eval-{tag}", ("--agent-template", s.agent_template),
        )  # fmt: skip
        extra = {"checkpoint_stage_steps": t.steps, "model": model, **ended(t)}
        if tag == "grpo":
            extra["curve"] = report.training_curve(w / "C-trajectories")
        objs.append(report.stage_object("C", name, seed, sample, greedy, steps, t.wall_s, **extra))
        files[tag] = path
    return objs, files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few steps of each stage (CI)")
    parser.add_argument("--out", type=Path, required=True, help="where the results go")
    parser.add_argument("--work", type=Path, help="work files [default: a temporary dir]")
    parser.add_argument(
        "--threads", type=int, default=1,
        help="CPU threads per command [default: 1; they change the numerics: LEARNING.md]",
    )  # fmt: skip
    parser.add_argument("--keep", action="store_true", help="keep the work files")
    parser.add_argument(
        "--jobs", type=int, default=2,
        help="experiment runs (one experiment, one seed) played at once, each command with "
        "--threads threads [default: 2, one a core here]",
    )  # fmt: skip
    parser.add_argument("--only", choices=["A", "B", "C"], help="run one experiment")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="change one of the run's settings (the Settings fields), e.g. a_lr=1e-3",
    )  # fmt: skip
    parser.add_argument(
        "--render",
        type=Path,
        metavar="WORK",
        help="only write the results again from a kept work dir's state.json",
    )
    args = parser.parse_args(argv)
    args.out = args.out.resolve()  # the commands run in the work dir
    if args.render:
        args.out.mkdir(parents=True, exist_ok=True)
        state = json.loads((args.render / "state.json").read_text())
        cmd = Commands(args.render, state["meta"]["threads"])
        cmd.log = [tuple(entry) for entry in state["log"]]
        render(args.render, args.out, cmd)
        return 0
    settings = override(QUICK if args.quick else FULL, args.set)
    args.out.mkdir(parents=True, exist_ok=True)
    work = (args.work or Path(tempfile.mkdtemp(prefix="swift-gym-learning-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    cmd = Commands(work, args.threads)
    started = time.perf_counter()
    begun = datetime.now(timezone.utc)
    objs: list[dict] = []
    files: dict[str, dict] = {}
    try:
        wanted = [n for n in "ABC" if args.only in (None, n)]
        units = [(name, seed) for name in wanted for seed in range(settings.seeds)]
        scratch: dict[int, Path] = {}
        model: dict = {}
        for seed in sorted({seed for name, seed in units if name != "C"}):
            scratch[seed], model = scratch_model(cmd, work, settings.model_size, seed)
        done = run_units(units, settings, work, args.threads, args.jobs, scratch)
        resumed = 0
        for name, seed in units:  # in order, whatever order they finished in
            unit = done[(name, seed)]
            objs += unit["objs"]
            files.setdefault(name, {})[str(seed)] = unit["files"]
            cmd.log += [tuple(entry) for entry in unit["log"]]
            resumed += unit["resumed"]
        if not model:  # `--only C`: no shared scratch model; C's own describes the size
            model = next((o["model"] for o in objs if o.get("model")), {})
        meta = {
            "mode": "quick" if args.quick else "full",
            "started": begun.strftime("%Y-%m-%d %H:%M UTC"),
            "total_wall_s": round(time.perf_counter() - started, 1),
            "threads": args.threads,
            "jobs": args.jobs,
            "resumed_units": resumed,
            "first_started": first_start(work, units, begun),
            "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "model": model,
            "settings": settings.__dict__,
            "pinned": PINNED,
        }
        state = {"objs": objs, "files": files, "log": cmd.log, "meta": meta}
        (work / "state.json").write_text(json.dumps(state, indent=1))
        render(work, args.out, cmd)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps([{k: o[k] for k in report.STAGE_KEYS} for o in objs], indent=1))
    return 0


EXPERIMENTS = {"A": experiment_a, "B": experiment_b, "C": experiment_c}
LONGEST_FIRST = "CBA"
"""With --jobs, the order units start in: C's tool rollouts cost the most, A the least."""


def run_units(
    units: list[tuple[str, int]], settings: Settings, work: Path, threads: int, jobs: int,
    scratch: dict[int, Path],
) -> dict[tuple[str, int], dict]:  # fmt: skip
    """Run each (experiment, seed) unit, `jobs` at once, each in its own dir with its own
    command log. A unit that finished before with the same settings and thread count (its
    `unit.json` in the kept work dir) is read back instead of run again: a run of several
    hours can be stopped and started again with the same --work. The first unit that fails
    stops the others from starting and is raised."""
    ordered = sorted(units, key=lambda u: (LONGEST_FIRST.index(u[0]), u[1]))
    if jobs <= 1:
        return {u: run_unit(*u, settings, work, threads, scratch) for u in ordered}
    failed = threading.Event()

    def start(unit: tuple[str, int]) -> dict:
        if failed.is_set():  # the failed unit's pool thread takes the next one at once
            raise CancelledError(f"{unit} not started: another unit failed")
        try:
            return run_unit(*unit, settings, work, threads, scratch)
        except BaseException:
            failed.set()
            raise

    with ThreadPoolExecutor(max_workers=jobs) as pool:  # the work is in subprocesses
        futures = {u: pool.submit(start, u) for u in ordered}
        wait(futures.values(), return_when=FIRST_EXCEPTION)
        for future in futures.values():
            future.cancel()  # those not started yet; the running ones finish first
        return {u: future.result() for u, future in futures.items()}


def run_unit(
    name: str, seed: int, settings: Settings, work: Path, threads: int,
    scratch: dict[int, Path],
) -> dict:  # fmt: skip
    """One experiment with one training seed, in work/seed-SEED/NAME: its stage objects, its
    files and its command log, kept in unit.json beside them. A unit cut off half way with the
    same settings goes on: the commands that finished are not run again (`Commands.done`) and
    GRPO resumes from its newest checkpoint (`stages.grpo`); with other settings it starts
    again."""
    w = work / f"seed-{seed}" / name
    saved, started = w / "unit.json", w / "key.json"
    key = {"settings": unit_settings(settings, name), "threads": threads}
    if saved.is_file():
        unit = json.loads(saved.read_text())
        if unit.get("key") == key:
            return {**unit, "resumed": 1}
    if not (started.is_file() and json.loads(started.read_text()) == key):
        shutil.rmtree(w, ignore_errors=True)
        w.mkdir(parents=True)
        started.write_text(json.dumps(key))
    cmd = Commands(work, threads, done=w / "done")
    part, paths = EXPERIMENTS[name](cmd, settings, scratch.get(seed), w, seed)
    unit = {
        "key": key, "objs": part, "files": {tag: str(path) for tag, path in paths.items()},
        "log": cmd.log,
    }  # fmt: skip
    saved.write_text(json.dumps(unit, indent=1))
    return {**unit, "resumed": 0}


def first_start(work: Path, units: list[tuple[str, int]], begun: datetime) -> str:
    """When the oldest unit of this run started (its key.json was written then): a run cut off
    and resumed spans every invocation since."""
    stamps = [begun.timestamp()]
    for name, seed in units:
        key = work / f"seed-{seed}" / name / "key.json"
        if key.is_file():
            stamps.append(key.stat().st_mtime)
    return datetime.fromtimestamp(min(stamps), timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def unit_settings(settings: Settings, name: str) -> dict:
    """The settings experiment `name` reads: the shared ones and its own (`c_lr` is C's), so a
    change to one experiment's settings runs only that experiment's units again."""
    own = f"{name.lower()}_"
    return {
        key: value
        for key, value in settings.__dict__.items()
        if key.startswith(own) or not (len(key) > 2 and key[1] == "_" and key[0] in "abc")
    }


def scratch_model(cmd: Commands, work: Path, size: str, seed: int) -> tuple[Path, dict]:
    """Seed `seed`'s scratch model (its weights drawn with that seed; the tokenizer is the same
    for every seed), logged as the command that builds it."""
    started = time.perf_counter()
    out = work / f"seed-{seed}" / "scratch-model"
    model = build_model(out, size, seed)
    shown = f"python benchmarks/learning/model.py $WORK/seed-{seed}/scratch-model {size} {seed}"
    cmd.log.append((f"build-model-{seed}", shown, round(time.perf_counter() - started, 1)))
    return out, model


def render(work: Path, out: Path, cmd: Commands) -> None:
    """Write the results from work/state.json (what the stages measured): learning.json, the
    HTML report (`swift-gym report` over every eval file and training dir), the SVG curve and
    LEARNING.md. `run.py --render WORK --out OUT` redoes this alone, from a kept work dir."""
    from markdown_text import learning_markdown

    state = json.loads((work / "state.json").read_text())
    objs, files, meta = state["objs"], state["files"], state["meta"]
    for o in objs:
        if o["experiment"] in ("A", "C") and "curve" in o:
            o["policy_by_position"] = report.policy_by_position(
                trajectories(work, o["experiment"], o["seed"])
            )
    (out / "learning.json").write_text(json.dumps(objs, indent=1) + "\n")
    runs = [Path(p) for name in files for seed in files[name] for p in files[name][seed].values()]
    runs += [trajectories(work, name, int(seed)) for name in files for seed in files[name]]
    # relative to the work dir (the command's cwd), so the page names runs, not this machine
    cmd.run("report", [
        cmd.bin("swift-gym"), "report", *(os.path.relpath(p, work) for p in runs),
        "--episodes", "12",
        "-o", str(out / "learning-report.html"),
    ])  # fmt: skip
    series: dict[str, list[list[dict]]] = {}
    for o in objs:
        if "curve" in o:
            series.setdefault(f"Experiment {o['experiment']}", []).append(o["curve"])
    report.curve_svg(series, out / "learning-curve.svg")
    (out / "LEARNING.md").write_text(learning_markdown(objs, files, cmd.log, meta))


def trajectories(work: Path, experiment: str, seed: int) -> Path:
    """Where a seed's GRPO stage wrote its training episodes (SWIFT_GYM_TRAJECTORIES)."""
    return work / f"seed-{seed}" / experiment / f"{experiment}-trajectories"


if __name__ == "__main__":
    sys.exit(main())
