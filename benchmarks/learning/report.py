"""Write the run's results: learning.json (the numbers), LEARNING.md (tables, curves, episodes,
the exact commands) and learning-curve.svg (the picture docs/training.md shows).

Every number in LEARNING.md is read from the objects written to learning.json; nothing here
knows a result in advance.
"""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

STAGE_KEYS = (
    "experiment", "stage", "seed", "episodes", "success_rate", "ci_low", "ci_high", "mean_reward",
    "train_steps", "wall_s",
)  # fmt: skip


def stage_object(
    experiment: str, stage: str, seed: int, summary: dict, greedy: dict | None, train_steps: int,
    wall_s: float, **extra: Any,
) -> dict:  # fmt: skip
    """One learning.json object: the required keys first, then the rest of the summary."""
    low, high = summary["success_rate_ci95"]
    obj = {
        "experiment": experiment,
        "stage": stage,
        "seed": seed,
        "episodes": summary["episodes"],
        "success_rate": summary["success_rate"],
        "ci_low": low,
        "ci_high": high,
        "mean_reward": summary["mean_reward"],
        "train_steps": train_steps,
        "wall_s": round(wall_s, 1),
        "mean_reward_ci_low": summary["mean_reward_ci95"][0],
        "mean_reward_ci_high": summary["mean_reward_ci95"][1],
        "invalid_action_rate": summary["invalid_action_rate"],
        "mean_turns": summary["mean_turns"],
        "statuses": summary["statuses"],
        "eval_wall_s": summary["wall_s"],
        "eval_seeds": [summary["seed_start"], summary["seed_start"] + summary["episodes"] - 1],
        "temperature": summary["temperature"],
    }
    if greedy is not None:
        obj["greedy"] = {
            "success_rate": greedy["success_rate"],
            "ci_low": greedy["success_rate_ci95"][0],
            "ci_high": greedy["success_rate_ci95"][1],
            "mean_reward": greedy["mean_reward"],
            "invalid_action_rate": greedy["invalid_action_rate"],
            "mean_turns": greedy["mean_turns"],
        }
    obj.update(extra)
    return obj


def training_curve(trajectories: Path, bins: int = 10) -> list[dict]:
    """The learning curve from the scheduler's trajectory files: success and mean reward of the
    training episodes, binned by optimizer step."""
    from swift_gym.evaluation import read_records, run_curves, trajectory_paths

    records = [r for path in trajectory_paths(trajectories) for r in read_records(path)]
    curves = run_curves(records, bins=bins, per_env=False)
    if not curves:
        return []
    return [
        {
            "step_low": p.low,
            "step_high": p.high,
            "episodes": p.summary["episodes"],
            "success_rate": p.summary["success_rate"],
            "ci_low": p.summary["success_rate_ci95"][0],
            "ci_high": p.summary["success_rate_ci95"][1],
            "mean_reward": p.summary["mean_reward"],
        }
        for p in curves[0].points
    ]


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def interval(obj: dict) -> str:
    return f"{obj['success_rate']:.3f} [{obj['ci_low']:.3f}, {obj['ci_high']:.3f}]"


def by_seed(objs: list[dict]) -> dict[int, list[dict]]:
    """An experiment's stage objects grouped by training seed, in seed order."""
    seeds: dict[int, list[dict]] = {}
    for o in sorted(objs, key=lambda o: o.get("seed", 0)):
        seeds.setdefault(o.get("seed", 0), []).append(o)
    return seeds


def across_seeds(objs: list[dict]) -> list[dict]:
    """Each stage's success rate and mean reward over the training seeds: mean, sample standard
    deviation (None with one seed), lowest and highest, and each seed's value, in stage order."""
    stages: dict[str, list[dict]] = {}
    for o in objs:
        stages.setdefault(o["stage"], []).append(o)
    rows = []
    for stage, runs in stages.items():
        runs = sorted(runs, key=lambda o: o.get("seed", 0))
        row: dict[str, Any] = {"stage": stage, "seeds": [o.get("seed", 0) for o in runs]}
        for key in ("success_rate", "mean_reward"):
            values = [o[key] for o in runs]
            mean = sum(values) / len(values)
            sd = (
                math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
                if len(values) > 1
                else None
            )
            row[key] = {"mean": mean, "sd": sd, "min": min(values), "max": max(values),
                        "values": values}  # fmt: skip
        rows.append(row)
    return rows


def spread_table(objs: list[dict]) -> list[str]:
    """The across-seeds table: each stage's success rate over the training seeds."""
    lines = [
        "| stage | seeds | success: mean | sd | lowest | highest | each seed | "
        "mean reward: mean | sd |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for row in across_seeds(objs):
        s, r = row["success_rate"], row["mean_reward"]
        each = ", ".join(f"{v:.3f}" for v in s["values"])
        lines.append(
            f"| {row['stage']} | {len(row['seeds'])} | {s['mean']:.3f} | {sd_text(s['sd'])} | "
            f"{s['min']:.3f} | {s['max']:.3f} | {each} | {r['mean']:.3f} | "
            f"{sd_text(r['sd'])} |"
        )
    return lines


def sd_text(sd: float | None) -> str:
    return "n/a" if sd is None else f"{sd:.3f}"


def stage_table(objs: list[dict]) -> list[str]:
    lines = [
        "| stage | seed | train steps | stage wall s | eval episodes (seeds) | "
        "success [95% CI] | mean reward [95% CI] | invalid actions | mean turns | "
        "greedy success |",
        "| --- | ---: | ---: | ---: | --- | --- | --- | ---: | ---: | --- |",
    ]
    for o in objs:
        greedy = interval(o["greedy"]) if o.get("greedy") else "-"
        lines.append(
            f"| {o['stage']} | {o.get('seed', 0)} | {o['train_steps']} | {o['wall_s']:.0f} | "
            f"{o['episodes']} "
            f"({o['eval_seeds'][0]}..{o['eval_seeds'][1]}) | {interval(o)} | "
            f"{o['mean_reward']:.3f} [{o['mean_reward_ci_low']:.3f}, "
            f"{o['mean_reward_ci_high']:.3f}] | {pct(o['invalid_action_rate'])} | "
            f"{o['mean_turns']:.2f} | {greedy} |"
        )
    return lines


def curve_table(curves: dict[int, list[dict]]) -> list[str]:
    """Training success by step, one column per seed (its Wilson 95% interval) and their mean;
    the step bins are the first seed's (every seed trains the same steps)."""
    seeds = sorted(curves)
    lines = [
        "| training steps | episodes | "
        + " | ".join(f"seed {s}: success [95% CI]" for s in seeds)
        + " | mean success | mean reward (mean of seeds) |",
        "| --- | ---: |" + " --- |" * len(seeds) + " ---: | ---: |",
    ]
    for index, p in enumerate(curves[seeds[0]]):
        points = [curves[s][index] for s in seeds if index < len(curves[s])]
        cells = [interval(curves[s][index]) if index < len(curves[s]) else "-" for s in seeds]
        success = sum(q["success_rate"] for q in points) / len(points)
        reward = sum(q["mean_reward"] for q in points) / len(points)
        lines.append(
            f"| {p['step_low']:.0f}-{p['step_high']:.0f} | {p['episodes']} | "
            + " | ".join(cells)
            + f" | {success:.3f} | {reward:.3f} |"
        )
    return lines


def episode_lines(records_path: Path, count: int = 3) -> list[str]:
    """The first `count` episodes of an eval file, one line each: seed, actions, outcome."""
    lines = []
    with records_path.open() as file:
        for _, line in zip(range(count), file, strict=False):
            r = json.loads(line)
            moves = " ".join(str(t.get("action") or "invalid") for t in r["turns"])
            lines.append(
                f"- seed {r['seed']}: {moves} -> **{r['status']}** "
                f"(reward {r['total_reward']:g}, {r['num_turns']} turns)"
            )
    return lines


def curve_svg(series: dict[str, list[list[dict]]], path: Path) -> None:
    """A small SVG: training success rate against step, one colour per experiment and one line
    per training seed, each with its 95% band."""
    width, height, left, bottom, top, right = 560, 260, 48, 36, 28, 12
    steps = [p["step_high"] for runs in series.values() for pts in runs for p in pts] or [1]
    x_max = max(steps) or 1
    colours = ["#1f77b4", "#d62728", "#2ca02c"]

    def x(step: float) -> float:
        return left + (width - left - right) * step / x_max

    def y(rate: float) -> float:
        return top + (height - top - bottom) * (1 - rate)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left}" y="16" font-size="13">Training success rate (episodes played by '
        "GRPO, 95% band)</text>",
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
            f'stroke="#ddd"/><text x="{left - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:g}</text>'
        )
    for tick in range(0, int(x_max) + 1, max(1, int(x_max) // 5)):
        parts.append(
            f'<text x="{x(tick):.1f}" y="{height - bottom + 14}" text-anchor="middle">{tick}</text>'
        )
    parts.append(
        f'<text x="{(left + width) / 2}" y="{height - 6}" text-anchor="middle">'
        "GRPO optimizer step</text>"
    )
    for k, (name, runs) in enumerate(series.items()):
        colour = colours[k % len(colours)]
        label = name if len(runs) == 1 else f"{name} ({len(runs)} seeds)"
        parts.append(
            f'<text x="{width - right - 4}" y="{top + 14 + 14 * k}" text-anchor="end" '
            f'fill="{colour}">{html.escape(label)}</text>'
        )
        parts += seed_lines(runs, colour, x, y)
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def seed_lines(runs: list[list[dict]], colour: str, x: Any, y: Any) -> list[str]:
    """One experiment's curves in the SVG: a line and a 95% band for each seed."""
    parts: list[str] = []
    for pts in runs:
        if not pts:
            continue
        mids = [((p["step_low"] + p["step_high"]) / 2, p) for p in pts]
        band = [f"{x(s):.1f},{y(p['ci_high']):.1f}" for s, p in mids] + [
            f"{x(s):.1f},{y(p['ci_low']):.1f}" for s, p in reversed(mids)
        ]
        line = " ".join(f"{x(s):.1f},{y(p['success_rate']):.1f}" for s, p in mids)
        parts += [
            f'<polygon points="{" ".join(band)}" fill="{colour}" fill-opacity="0.12"/>',
            f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="1.5"/>',
        ]
    return parts


def policy_by_position(trajectories: Path, last_share: float = 0.2) -> dict:
    """What the policy did where, late in training: for each grid cell, how often each action
    was taken, over the episodes of the last `last_share` of GRPO steps. It shows whether the
    policy reads its position (different actions in different cells) or not."""
    from swift_gym.evaluation import read_records, trajectory_paths

    records = [r for path in trajectory_paths(trajectories) for r in read_records(path)]
    steps = [r["training"]["step"] for r in records]
    first = math.ceil(max(steps) - (max(steps) - min(steps)) * last_share)  # steps are whole
    table: dict[str, dict[str, int]] = {}
    for r in records:
        if r["training"]["step"] < first:
            continue
        position = r.get("reset_info", {}).get("position")
        for turn in r["turns"]:
            cell = table.setdefault(str(position), {})
            action = str(turn.get("action") or "invalid")
            cell[action] = cell.get(action, 0) + 1
            position = (turn.get("info") or {}).get("position", position)
    return {"from_step": first, "cells": table}


def policy_table(policy: dict) -> list[str]:
    actions = ["up", "down", "left", "right", "invalid"]
    lines = [
        f"| cell (row, col) | turns | {' | '.join(actions)} |",
        "| --- | ---: |" + " ---: |" * len(actions),
    ]
    for cell, counts in sorted(policy["cells"].items()):
        total = sum(counts.values())
        shares = " | ".join(f"{counts.get(a, 0) / total:.2f}" for a in actions)
        lines.append(f"| {cell} | {total} | {shares} |")
    return lines
