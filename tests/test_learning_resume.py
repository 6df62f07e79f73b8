"""`benchmarks/learning`: a run cut off half way (a session's end, Ctrl-C) goes on where it
stopped. Commands that finished are not run again (real subprocesses), a GRPO run resumes from
its newest checkpoint that holds the trainer's state, its training episodes from that step on
are dropped (the resumed run plays them again), its wall time counts the earlier run up to
that checkpoint, and a unit whose settings changed starts again. ms-swift's part is played by
files laid out as it writes them; tests/swift/test_learning_quick.py resumes a real run."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "learning"))

import run
import stages
from commands import Commands


def counting(tmp_path: Path) -> list[str]:
    """A real command that appends a line to tmp_path/count each time it runs."""
    return [sys.executable, "-c", f"open({str(tmp_path / 'count')!r}, 'a').write('x')"]


def test_a_finished_command_is_not_run_again(tmp_path: Path) -> None:
    first = Commands(tmp_path, 1, done=tmp_path / "done")
    seconds = first.run("A0-format-episodes", counting(tmp_path))
    again = Commands(tmp_path, 1, done=tmp_path / "done")
    assert again.run("A0-format-episodes", counting(tmp_path)) == seconds
    assert (tmp_path / "count").read_text() == "x"
    assert again.log == first.log  # the command and seconds of the run that made the files


def test_a_failed_or_unrecorded_command_runs_again(tmp_path: Path) -> None:
    failing = [sys.executable, "-c", "raise SystemExit(3)"]
    with pytest.raises(RuntimeError, match=r"failed \(3\)"):
        Commands(tmp_path, 1, done=tmp_path / "done").run("B0-sft", failing)
    assert Commands(tmp_path, 1, done=tmp_path / "done").finished("B0-sft") is None
    assert not (tmp_path / "done").exists()
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "B0-sft.json").write_text("{not json")
    Commands(tmp_path, 1, done=tmp_path / "done").run("B0-sft", counting(tmp_path))
    Commands(tmp_path, 1).run("B0-sft", counting(tmp_path))  # no `done`: always runs
    assert (tmp_path / "count").read_text() == "xx"


def test_a_command_after_one_killed_mid_line_starts_its_own_line(tmp_path: Path) -> None:
    # a progress bar ends its lines in \r: a run killed there leaves the log mid-line
    bar = [sys.executable, "-c", "import sys; sys.stdout.write('Train: 91%| 916/1000\\r')"]
    with pytest.raises(RuntimeError):
        Commands(tmp_path, 1).run("A0-grpo", [*bar[:2], bar[2] + "; raise SystemExit(1)"])
    Commands(tmp_path, 1).run("A0-grpo", counting(tmp_path))
    lines = (tmp_path / "logs" / "A0-grpo.log").read_bytes().decode().split("\n")
    assert [line[:2] for line in lines if "-c" in line] == ["$ ", "$ "]
    assert lines[1] == "Train: 91%| 916/1000\r"


def checkpoint(out: Path, version: int, step: int, state: bool = True) -> Path:
    path = out / f"v{version}-20261205-1{version:05d}" / f"checkpoint-{step}"
    path.mkdir(parents=True)
    if state:
        (path / "optimizer.pt").write_bytes(b"")
        (path / "trainer_state.json").write_text("{}")
    return path


def test_the_resume_point_is_the_newest_checkpoint_with_the_trainer_state(tmp_path) -> None:
    assert stages.resume_point(tmp_path) is None
    checkpoint(tmp_path, 0, 300)
    newest = checkpoint(tmp_path, 1, 700)
    checkpoint(tmp_path, 10, 800, state=False)  # cut off while it was written
    assert stages.resume_point(tmp_path) == newest
    run_dir, last, step = stages.last_checkpoint(tmp_path)  # the evaluated one: v10 > v1
    assert (run_dir.name, step) == ("v10-20261205-100010", 800) and last.parent == run_dir


def test_episodes_from_the_resumed_step_on_are_dropped(tmp_path: Path) -> None:
    files = tmp_path / "traj" / "host-1.jsonl", tmp_path / "traj" / "sub" / "host-2.jsonl"
    files[1].parent.mkdir(parents=True)
    line = lambda step: json.dumps({"training": {"step": step}, "success": True}) + "\n"  # noqa: E731
    files[0].write_text(line(0) + line(696) + line(700) + line(704))
    files[1].write_text(line(4) + line(700) + '{"training": {"st')  # a killed writer's line
    stages.keep_trajectories_before(tmp_path / "traj", 700)
    assert files[0].read_text() == line(0) + line(696)
    assert files[1].read_text() == line(4)


RUN = "$ swift rlhf --rlhf_type grpo --output_dir $WORK/seed-0/C/C-grpo{resume}\n"
PROGRESS = "{{'loss': '0.1', 'global_step/max_steps': '{step}/1500', 'elapsed_time': '{t}'}}\n"


def test_the_wall_time_counts_each_earlier_run_up_to_where_the_next_went_on(tmp_path) -> None:
    log = tmp_path / "C0-grpo.log"
    log.write_text(
        RUN.format(resume="")  # started, cut off at 150 (checkpoint 100)
        + PROGRESS.format(step=100, t="6m 10s")
        + PROGRESS.format(step=150, t="9m 0s")
        + RUN.format(resume=" --resume_from_checkpoint $WORK/x/v0-1/checkpoint-100")
        + PROGRESS.format(step=100, t="5s")  # its own clock; cut off at 420 (checkpoint 400)
        + PROGRESS.format(step=400, t="1h 2m 3s")
        + PROGRESS.format(step=420, t="1h 3m 0s")
        + RUN.format(resume=" --resume_from_checkpoint $WORK/x/v1-1/checkpoint-400")
        + PROGRESS.format(step=1500, t="1d 0h 0m 1s")  # cut off after its last checkpoint
        + RUN.format(resume=" --resume_from_checkpoint $WORK/x/v2-1/checkpoint-1500")
        + PROGRESS.format(step=1500, t="2s")
    )
    assert stages.earlier_seconds(log) == 370 + 3723 + 86401
    log.write_text(log.read_text() + RUN.format(resume=""))  # started again (other settings)
    assert stages.earlier_seconds(log) == 0.0
    assert stages.earlier_seconds(tmp_path / "none.log") == 0.0


class RecordingCommands:
    """In-process fake of `Commands` for `stages.grpo`: keeps the command it was given."""

    def __init__(self, work: Path) -> None:
        self.work, self.log, self.commands = work, [], []

    def bin(self, name: str) -> str:
        return name

    def finished(self, stage: str) -> None:
        return None

    def log_path(self, stage: str) -> Path:
        return self.work / f"{stage}.log"

    def run(self, stage: str, command: list[str], extra_env: dict | None = None) -> float:
        self.commands.append(command)
        out = Path(command[command.index("--output_dir") + 1])
        checkpoint(out, len(list(out.glob("v*"))), 1000)  # as ms-swift: a new run dir
        self.log.append((stage, " ".join(command), 30.0))
        return 30.0


def test_grpo_goes_on_from_its_checkpoint_and_saves_what_it_needs_to(tmp_path: Path) -> None:
    out, traj = tmp_path / "C-grpo", tmp_path / "traj"
    traj.mkdir()
    (traj / "t.jsonl").write_text('{"training": {"step": 96}}\n{"training": {"step": 100}}\n')
    cmd = RecordingCommands(tmp_path)
    fresh = stages.grpo(cmd, "C0-grpo", Path("m"), Path("r"), tmp_path / "new", traj, 1000,
                        32, 1, 5e-4, 0.01, 10, 1.0, 0, 4)  # fmt: skip
    assert "--resume_from_checkpoint" not in cmd.commands[0]
    assert cmd.commands[0][cmd.commands[0].index("--save_only_model") + 1] == "false"
    assert fresh.steps == 1000
    went_on_from = checkpoint(out, 0, 100)
    resumed = stages.grpo(cmd, "C0-grpo", Path("m"), Path("r"), out, traj, 1000, 32, 1,
                          5e-4, 0.01, 10, 1.0, 0, 4)  # fmt: skip
    command = cmd.commands[1]
    assert command[command.index("--resume_from_checkpoint") + 1] == str(went_on_from)
    assert (traj / "t.jsonl").read_text() == '{"training": {"step": 96}}\n'
    assert resumed.steps == 1000 and resumed.checkpoint.parent.name.startswith("v1-")


def unit_experiment(calls: list[str]):
    def experiment(cmd: Commands, s: run.Settings, scratch, w: Path, seed: int):
        calls.append(str(sorted(p.name for p in w.iterdir())))
        (w / "left-by-the-first-run").write_text("")
        if len(calls) == 1:
            raise KeyboardInterrupt  # cut off half way
        return [{"stage": "GRPO"}], {}

    return experiment


def test_a_cut_off_unit_goes_on_and_one_with_other_settings_starts_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    monkeypatch.setitem(run.EXPERIMENTS, "C", unit_experiment(calls))
    with pytest.raises(KeyboardInterrupt):
        run.run_unit("C", 0, run.QUICK, tmp_path, 1, {})
    unit = run.run_unit("C", 0, run.QUICK, tmp_path, 1, {})
    assert calls[1] == str(["key.json", "left-by-the-first-run"])  # went on in the same dir
    assert unit["objs"] == [{"stage": "GRPO"}] and unit["resumed"] == 0
    assert run.run_unit("C", 0, run.QUICK, tmp_path, 1, {})["resumed"] == 1  # finished: read
    (tmp_path / "seed-0" / "C" / "unit.json").unlink()
    changed = run.override(run.QUICK, ["c_lr=1e-4"])
    run.run_unit("C", 0, changed, tmp_path, 1, {})
    assert calls[-1] == str(["key.json"])  # other settings: a clean dir
    a_change = run.override(changed, ["a_lr=1e-4"])  # not C's: C's unit is read back
    assert run.run_unit("C", 0, a_change, tmp_path, 1, {})["resumed"] == 1
