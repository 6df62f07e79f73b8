"""docs/training.md's command blocks, read as the swift and vllm tests read them (no ms-swift
here): each block is complete and run by the test module `doc_commands.BLOCKS` names, the tests
change only what the page's list names, FrozenLake's `swift-gym dataset` commands run as written,
the example scripts run the page's commands, and every example is linked from a page."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import doc_commands
import grpo_run
import pytest
import rollout_server
from cli_runner import clean_environ
from doc_commands import Command

REPO = doc_commands.REPO
EXAMPLE_OF = {
    "colocate": ("swift_rlhf_colocate.sh", ("swift", "rlhf")),
    "server-rollout": ("swift_rollout_server.sh", ("swift", "rollout")),
    "server-trainer": ("swift_rlhf_server.sh", ("swift", "rlhf")),
}
"""The example script that runs each block's ms-swift command on a GPU machine."""


def test_every_block_is_run_by_the_test_that_names_it() -> None:
    found = doc_commands.blocks()
    assert sorted(found) == sorted(doc_commands.BLOCKS)
    for name, module in doc_commands.BLOCKS.items():
        assert f'"{name}"' in (REPO / module).read_text(encoding="utf-8"), (name, module)


def test_every_block_is_a_complete_command_with_no_plugin_file() -> None:
    text = doc_commands.page_text()
    for name, body in doc_commands.MARKER.findall(text):
        assert "..." not in body and "--external_plugins" not in body, name
    for name, commands in doc_commands.blocks().items():
        programs = [command.program for command in commands]
        assert ("swift", "rlhf") in programs or ("swift", "rollout") in programs, name
        for command in commands:
            if command.program[0] == "swift" and command.value("--vllm_mode") != ["server"]:
                assert command.value("--multi_turn_scheduler") == ["swift_gym"], name
            if command.program == ("swift", "rlhf"):
                assert command.value("--model") == ["Qwen/Qwen2.5-1.5B-Instruct"], name
                assert command.value("--use_vllm") == ["true"], name


def test_a_block_reads_as_the_shell_reads_it() -> None:
    (dataset, train) = doc_commands.parse(
        "# a comment\nswift-gym dataset frozen_lake -n 4 -o 'a b.jsonl'\n"
        "X=1 Y='two words' swift rlhf \\\n    --reward_weights 0.2 -1 \\\n    --flag\n"
    )
    assert dataset.argv == ("swift-gym", "dataset", "frozen_lake", "-n", "4", "-o", "a b.jsonl")
    assert dataset.program == ("swift-gym", "dataset", "frozen_lake")
    assert train.env == {"X": "1", "Y": "two words"}
    assert train.flags() == [("--reward_weights", ["0.2", "-1"]), ("--flag", [])]


def test_a_test_may_change_only_what_the_page_lists() -> None:
    command = Command(("swift", "rlhf", "--model", "m", "--dataset", "d.jsonl", "--x"), {"A": "d"})
    sized = doc_commands.sized(
        command,
        flags={"--model": ["tiny"], "--x": None, "--max_steps": ["2"]},
        paths={"d.jsonl": "/tmp/rows.jsonl"},
        drop_env=["A"],
        allowed={"--model", "--x", "--max_steps", "A"},
    )
    assert sized.argv == (
        "swift", "rlhf", "--model", "tiny", "--dataset", "/tmp/rows.jsonl", "--max_steps", "2"
    )  # fmt: skip
    assert sized.env == {}
    with pytest.raises(AssertionError, match=r"--learning_rate, A, which docs/training\.md"):
        doc_commands.sized(
            command, flags={"--learning_rate": ["1"]}, drop_env=["A"], allowed={"--model"}
        )


def test_the_pages_list_names_every_change_the_tests_make() -> None:
    listed = doc_commands.changeable()
    changed = {*grpo_run.CPU_FLAGS, *grpo_run.GPU_ONLY_ENV, "--model", "--max_turns"}
    changed |= {"--reward_funcs", "--dataloader_num_workers", "-n", "-o"}
    assert changed <= listed, sorted(changed - listed)


def test_the_vllm_tests_run_the_pages_rollout_command() -> None:
    command = rollout_server.rollout_command(Path("/m"), 1234, 8, 1000)
    page = doc_commands.command("server-rollout", "swift", "rollout")
    served = Command(("swift", *command[1:]))
    assert Path(command[0]).name == "swift"
    changed = {"--model", "--model_type", "--template", "--host", "--port", "--max_turns"}
    for flag, values in page.flags():
        if flag not in changed:
            assert served.value(flag) == values, flag
    assert served.value("--host") == ["127.0.0.1"] and served.value("--port") == ["1234"]
    assert served.value("--vllm_max_model_len") == ["1000"]


@pytest.mark.parametrize("name", ["colocate", "server-trainer", "tools"])
def test_frozen_lakes_dataset_commands_run_as_written(name: str, tmp_path: Path) -> None:
    """The page's `swift-gym dataset` commands of FrozenLake, 3 rows each (the agent program's
    and the mixed one need packages the swift env has: their tests run them)."""
    (page,) = [c for c in doc_commands.block(name) if c.program[:2] == ("swift-gym", "dataset")]
    (out,) = page.value("-o") or ()
    sized = doc_commands.sized(page, flags={"-n": ["3"]}, paths={out: str(tmp_path / out)})
    swift_gym = Path(sys.executable).with_name("swift-gym")
    done = subprocess.run(
        [str(swift_gym), *sized.argv[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_environ(),
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / out).read_text().splitlines()]
    assert [row["env_config"]["seed"] for row in rows] == [0, 1, 2]
    assert all(row["env_config"]["name"] == "frozen_lake" for row in rows)
    tools = page.value("--set") == ["action_format=tool"]
    assert all(("tools" in row) is tools for row in rows)
    if tools:
        assert [tool["function"]["name"] for tool in json.loads(rows[0]["tools"])] == ["move"]


def script_command(script: str, program: tuple[str, ...]) -> Command:
    """The example script's `program` command, each `$VAR` and `${VAR:-default}` read as its
    default (`VAR=${VAR:-default}` lines); `NPROC_PER_NODE` and the GPUs are the script's."""
    text = (REPO / "examples" / script).read_text(encoding="utf-8")
    defaults = dict(re.findall(r"^([A-Z_]+)=\$\{\1:-([^}]*)\}$", text, re.M))
    text = re.sub(r"\$\{([A-Z_]+):-([^}]*)\}", r"\2", text)
    text = re.sub(r'"?\$([A-Z_]+)"?', lambda match: defaults.get(match.group(1), ""), text)
    commands = doc_commands.parse(text)
    (found,) = [command for command in commands if command.program == program]
    return found


@pytest.mark.parametrize("name", sorted(EXAMPLE_OF))
def test_the_example_scripts_run_the_pages_commands(name: str) -> None:
    script, program = EXAMPLE_OF[name]
    example = script_command(script, program)
    page = doc_commands.command(name, *program)
    assert example.argv == page.argv, shlex.join(example.argv)
    assert example.env.get("SWIFT_GYM_TRAJECTORIES") == page.env.get("SWIFT_GYM_TRAJECTORIES")


def linked_examples() -> set[str]:
    """The paths of examples/ that a docs page links by its path in the repository."""
    linked = set()
    for page in (REPO / "docs").rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s#]+)", text):
            path = (page.parent / target).resolve()
            if path.is_relative_to(REPO / "examples") and path.exists():
                linked.add(path.relative_to(REPO / "examples").as_posix())
    return linked


def test_every_example_is_linked_from_the_page_that_explains_it() -> None:
    linked = linked_examples()
    examples = REPO / "examples"
    for path in sorted(examples.iterdir()):
        if path.is_dir() and (path / "pyproject.toml").exists():  # a package: its folder
            assert path.name in linked, f"no docs page links examples/{path.name}/"
        elif path.is_dir():  # a folder of scripts: each
            for script in sorted(path.glob("*.sh")):
                assert f"{path.name}/{script.name}" in linked, script
        elif path.suffix == ".sh":
            assert path.name in linked, f"no docs page links examples/{path.name}"
