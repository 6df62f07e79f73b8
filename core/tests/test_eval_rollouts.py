"""Several rollouts per seed (`evaluate(rollouts_per_seed=K)`, `eval --rollouts-per-seed K`),
in-process: pass@k against counting every draw of k rollouts, each rollout's sampling seed and
record, the summary from the run and from its file, the command's summary, `--json` and the
command it prints for the seeds a stopped run did not play."""

from __future__ import annotations

import itertools
import json
import math
import random
import threading
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import swift_gym
from swift_gym.cli.app import cli
from swift_gym.cli.eval_output import print_rest
from swift_gym.cli.evaluate import evaluate as eval_command
from swift_gym.evaluation.records import slim
from swift_gym.evaluation.rollouts import ks, pass_at_k
from swift_gym.evaluation.stats import summarize


def test_pass_at_k_is_the_share_of_k_draws_with_a_success() -> None:
    for n in range(1, 7):
        for c in range(n + 1):
            outcomes = [True] * c + [False] * (n - c)
            for k in range(1, n + 1):
                draws = list(itertools.combinations(outcomes, k))
                share = Fraction(sum(any(draw) for draw in draws), len(draws))
                assert pass_at_k(n, c, k) == share
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_the_k_reported_are_powers_of_two_below_k_and_k() -> None:
    assert ks(1) == [1]
    assert ks(6) == [1, 2, 4, 6]
    assert ks(8) == [1, 2, 4, 8]


def test_each_rollout_is_an_episode_with_its_own_sampling_seed_and_says_which() -> None:
    result = swift_gym.evaluate("frozen_lake", "random", episodes=3, rollouts_per_seed=4)
    records = result.records
    assert [r["index"] for r in records] == list(range(12))
    assert [(r["seed"], r["task"], r["rollout"]) for r in records] == [
        (seed, seed, rollout) for seed in range(3) for rollout in range(4)
    ]
    assert len({r["sampling_seed"] for r in records}) == 12
    replies = [[t["reply"] for t in r["turns"]] for r in records[:4]]
    assert len({json.dumps(reply) for reply in replies}) > 1  # the rollouts differ
    again = swift_gym.evaluate("frozen_lake", "random", episodes=3, rollouts_per_seed=4)
    assert again.records == records  # and are the same when played again
    lone = swift_gym.evaluate("frozen_lake", "random", episodes=2)
    assert "rollout" not in lone.records[0] and lone.summary["rollouts"] is None


def counted(successes: list[list[bool]]) -> dict[str, Any] | None:
    """The rollouts summary of seeds whose rollouts succeeded as `successes` say."""
    records = [
        {"env": "toy", "seed": seed, "rollout": rollout, "success": won, "status": "done"}
        for seed, wins in enumerate(successes)
        for rollout, won in enumerate(wins)
    ]
    return summarize(records)["rollouts"]


def test_the_summary_has_pass_at_k_and_how_the_rollouts_of_a_seed_agree() -> None:
    rollouts = counted([[True, False, False, False], [False] * 4, [True] * 4])
    assert rollouts is not None
    assert rollouts["pass_at_k"] == {"1": 5 / 12, "2": 1.5 / 3, "4": 2 / 3}
    assert rollouts["pass_at_k_seeds"] == {"1": 3, "2": 3, "4": 3}
    assert (rollouts["solved_by_any"], rollouts["solved_by_all"], rollouts["seeds"]) == (2, 1, 3)
    assert rollouts["mean_seed_success_std"] == pytest.approx(math.sqrt(3 / 16) / 3)
    # a seed with fewer rollouts played counts only where it has k of them
    short = counted([[True, True], [False, False, False, True]])
    assert short is not None
    assert short["pass_at_k_seeds"] == {"1": 2, "2": 2, "4": 1} and short["pass_at_k"]["4"] == 1.0


def test_the_oracle_solves_every_rollout_and_a_file_gives_the_same_numbers(tmp_path: Path) -> None:
    output = tmp_path / "oracle.jsonl"
    result = swift_gym.evaluate(
        "frozen_lake", "oracle", episodes=3, rollouts_per_seed=2, output=output
    )
    rollouts = result.summary["rollouts"]
    assert rollouts["pass_at_k"] == {"1": 1.0, "2": 1.0}
    assert rollouts["solved_by_all"] == 3 and rollouts["mean_seed_success_std"] == 0.0
    loaded = swift_gym.EvalResult.load(output)
    assert loaded.summary["rollouts"] == rollouts
    assert summarize([slim(record) for record in loaded.records])["rollouts"] == rollouts


def test_dataset_rows_without_seeds_are_told_apart_by_their_row() -> None:
    rows = [{"env_config": {"name": "frozen_lake", "size": 4}}] * 2
    result = swift_gym.evaluate(None, "random", dataset=rows, rollouts_per_seed=3)
    assert [(r["task"], r["rollout"]) for r in result.records] == [
        (task, rollout) for task in range(2) for rollout in range(3)
    ]
    assert result.summary["rollouts"]["seeds"] == 2


def test_the_command_prints_pass_at_k_and_json_holds_it() -> None:
    args = ["eval", "frozen_lake", "--policy", "random", "-n", "4", "--rollouts-per-seed", "4"]
    shown = CliRunner().invoke(cli, args)
    assert shown.exit_code == 0, shown.output
    assert "16 episodes (4 seeds x 4 rollouts)" in shown.output
    for words in ("pass@1", "pass@2", "pass@4", "by some rollout;", "per-seed spread"):
        assert words in shown.output
    printed = CliRunner().invoke(cli, [*args, "--json"])
    rollouts = json.loads(printed.output)["rollouts"]
    assert set(rollouts["pass_at_k"]) == {"1", "2", "4"} and rollouts["seeds"] == 4
    assert rollouts["pass_at_k"]["1"] == json.loads(printed.output)["success_rate"]


def test_the_command_for_the_rest_skips_the_seed_cut_short(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["frozen_lake", "--policy", "random", "-n", "5", "--rollouts-per-seed", "4"]
    ctx = eval_command.make_context("eval", [*args, "-o", "t.jsonl"])
    print_rest(ctx, kept=10, rest=10, seed_start=0, dataset=None, rollouts=4)
    said = capsys.readouterr().err
    assert "seed 2 has 2 of its 4 rollouts; the others are not played" in said
    assert "to play the other 2 seeds:" in said
    assert "--rollouts-per-seed 4 -n 2 --seed-start 3 -o t.from-3.jsonl" in said
    print_rest(ctx, kept=16, rest=4, seed_start=0, dataset=None, rollouts=4)
    assert "-n 1 --seed-start 4" in capsys.readouterr().err


async def test_openai_requests_carry_a_seed_drawn_for_the_rollout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from swift_gym.evaluation.openai import OpenAIPolicy

    sent: list[dict[str, Any]] = []

    class Answers(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            sent.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = json.dumps({"choices": [{"message": {"content": "<action>up</action>"}}]})
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: Any) -> None:
            pass

    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/v1"
    env = swift_gym.make("frozen_lake")
    messages = [{"role": "user", "content": "go"}]
    policy = OpenAIPolicy(url, "m")
    fixed = OpenAIPolicy(url, "m", sampling={"seed": 5})
    try:
        await policy.reply_with_details(env, messages, random.Random(0))
        assert "seed" not in sent[-1]  # one episode per seed: the server samples as it likes
        policy.set_rollouts_per_seed(4)
        _, details = await policy.reply_with_details(env, messages, random.Random(7))
        assert sent[-1]["seed"] == random.Random(7).getrandbits(31) == details["seed"]
        fixed.set_rollouts_per_seed(4)
        await fixed.reply_with_details(env, messages, random.Random(7))
        assert sent[-1]["seed"] == 5  # the caller's own seed stays
    finally:
        await policy.close()
        await fixed.close()
        server.shutdown()
        server.server_close()


def test_the_report_shows_pass_at_k_beside_a_run_without_rollouts() -> None:
    from swift_gym.report.page import Run, render_report

    rollouts = swift_gym.evaluate("frozen_lake", "oracle", episodes=2, rollouts_per_seed=3)
    lone = swift_gym.evaluate("frozen_lake", "random", episodes=2)
    page = render_report([Run("A", "a.jsonl", rollouts.records), Run("B", "b", lone.records)])
    summary = page.split('<table id="summary">', 1)[1].split("</table>", 1)[0]
    assert "<th>rollouts per seed</th><td>3 &times; 2 seeds</td><td>—</td>" in summary
    for k in (1, 2, 3):
        cell = f"<th>pass@{k}</th><td>1.000<span class='ci'>over 2 seeds</span></td><td>—</td>"
        assert cell in summary
    assert "<td>2 of 2 by some rollout<span class='ci'>2 by every one</span></td>" in summary
    alone = render_report([Run("B", "b", lone.records)])
    assert "pass@" not in alone.split('<table id="summary">', 1)[1].split("</table>", 1)[0]
