"""Run tests again and again while every core is kept busy: how a race or a hang is shaken out.

CI runs two tox envs at once on 2 cores, so a test that passes alone can race or hang there.
This starts one CPU burner per core (a busy loop in a process of its own, stopped when the runs
end and bounded by --max-seconds in any case), then runs pytest with the given arguments up to
--runs times in a row with this Python, stopping at the first failure:

    .tox/tests/bin/python tests/under_load.py --runs 20 -- tests/test_cli_signals.py -k dataset

For a test whose fixture is costly to start (a vLLM server), run one pytest session whose test
repeats instead (pytest-repeat's --count, installed by hand for the purpose):

    .tox/vllm/bin/python tests/under_load.py --runs 1 -- tests/vllm -k writes_every --count 20

Prints one line a run and exits with the first failing run's status (0 when all passed).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time


def burn(deadline: float) -> None:
    """Spin until `deadline` (time.monotonic())."""
    while time.monotonic() < deadline:
        sum(range(10_000))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="pytest runs in a row (20)")
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2, help="busy processes")
    parser.add_argument("--max-seconds", type=float, default=3600, help="the burners' end at most")
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="-- then pytest's arguments")
    args = parser.parse_args(argv)
    pytest_args = args.pytest_args[1:] if args.pytest_args[:1] == ["--"] else args.pytest_args
    deadline = time.monotonic() + args.max_seconds
    burners = [
        multiprocessing.Process(target=burn, args=(deadline,), daemon=True)
        for _ in range(args.burners)
    ]
    for burner in burners:
        burner.start()
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args]
            done = subprocess.run(command, capture_output=True, text=True)
            tail = (done.stdout.strip().splitlines() or [""])[-1]
            seconds = time.monotonic() - started
            print(f"run {run}: exit {done.returncode} in {seconds:.0f} s: {tail}", flush=True)
            if done.returncode != 0:
                print(done.stdout[-5000:] + done.stderr[-3000:])
                return done.returncode
        print(f"{args.runs} runs passed in a row with {args.burners} burners")
        return 0
    finally:
        for burner in burners:
            burner.terminate()
            burner.join()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
