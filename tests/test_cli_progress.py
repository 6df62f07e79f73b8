"""Progress bars as a person sees them: `swift-gym` in a real pseudo-terminal (see test_cli_play),
where rich draws the bar; on a pipe there is none (the other tests read pipes)."""

from __future__ import annotations

import re

from test_cli_play import Terminal, terminal  # noqa: F401  (the fixture)


def test_the_eval_bar_labels_elapsed_and_remaining_time_and_shows_episodes_per_second(
    terminal,  # noqa: F811
) -> None:
    term: Terminal = terminal("eval", "frozen_lake", "--policy", "random", "-n", "2000000")
    bar = term.expect(r"elapsed \d+:\d\d:\d\d, left (\d+:\d\d:\d\d|\?), ([0-9.,]+|\?) episodes/s")
    term.expect(r"elapsed \d+:\d\d:\d\d, left \d+:\d\d:\d\d, [0-9.,]+ episodes/s")
    assert bar  # the labels are there from the first drawing, the numbers once measured
    term.interrupt()
    assert term.wait() == 130
    assert "interrupted by Ctrl-C" in term.output
    assert not re.search(r"Traceback", term.output)


def test_the_validate_bar_labels_its_times_and_rate(terminal, tmp_path) -> None:  # noqa: F811
    dataset = tmp_path / "rows.jsonl"
    dataset.write_text('{"env_config": {"name": "frozen_lake", "seed": 1}}\n' * 200_000)
    term: Terminal = terminal("validate", str(dataset), "--no-build")
    term.expect(r"validating rows\.jsonl .*elapsed \d+:\d\d:\d\d, left ")
    assert term.wait() == 0
