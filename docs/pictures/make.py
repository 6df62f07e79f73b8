"""The site's pictures of real runs, made again with one command from a clone:

    python docs/pictures/make.py

- `report.png`: the top of a `swift-gym report` page (its runs, summary, per-env table, charts
  and status-by-seed strips) comparing two real `swift-gym eval` runs of FrozenLake, the random
  and the oracle policy, as headless Chromium shows it.
- `play.svg`: a real `swift-gym play frozen_lake` session with its colours, drawn as a terminal;
  its replies, piped in, are the oracle's for that seed in the eval run above.

It needs the core and FrozenLake installed (`pip install ./core ./plugins/frozen_lake`), and for
the report Debian's `chromium` and `chromium-driver` with `pip install selenium pillow` (the
first three as for the report's browser test). The pictures name no other host, so the site
still fetches nothing from outside itself. `parts.svg` (how the parts fit) is drawn by hand. The
pictures' alt texts in docs/cli.md say what they show, numbers included: when the numbers
change, change them too.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EPISODES = 100
REPORT_WIDTH = 960
"""Window width of the report's screenshot: about the docs' column, so its text reads unscaled."""
PLAY_COLUMNS = 100
MAX_BYTES = 200_000


def swift_gym(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run the installed command as a user would (`python -m swift_gym` of this interpreter)."""
    done = subprocess.run(
        [sys.executable, "-m", "swift_gym", *args], text=True, capture_output=True, **kwargs
    )
    if done.returncode != 0:
        raise SystemExit(f"swift-gym {' '.join(args)} failed:\n{done.stderr}")
    return done


def eval_runs(work: Path) -> tuple[Path, Path]:
    """Two real eval runs of FrozenLake on the same seeds: the random and the oracle policy."""
    runs = []
    for policy in ("random", "oracle"):
        out = work / f"{policy}.jsonl"
        swift_gym("eval", "frozen_lake", "--policy", policy, "-n", str(EPISODES), "-o", str(out))
        runs.append(out)
    return runs[0], runs[1]


def report_png(runs: tuple[Path, Path], work: Path, out: Path) -> None:
    """The report of the two runs, from its top to where the episode browser starts."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    page = work / "report.html"
    swift_gym("report", *(run.name for run in runs), "-o", page.name, cwd=work)
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        f"--window-size={REPORT_WIDTH},1000", f"--user-data-dir={work / 'profile'}",
    ):  # fmt: skip
        options.add_argument(flag)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.get(page.as_uri())
        bottom = driver.execute_script(
            "const h = Array.from(document.querySelectorAll('h2'))"
            ".find(e => e.textContent.trim() === 'Episodes');"
            "return h.getBoundingClientRect().top + window.scrollY - 8;"
        )
        shot = driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": REPORT_WIDTH, "height": bottom, "scale": 1},
            },
        )
    finally:
        driver.quit()
    small_png(base64.b64decode(shot["data"]), out)


def small_png(png: bytes, out: Path) -> None:
    """The screenshot in 64 colours, undithered: the page's flat colours and text stay sharp,
    and the file is a third of Chromium's (about 65 KB instead of 180)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, optimize=True
    )


def play_svg(oracle_run: Path, out: Path) -> None:
    """A real play session: the first seed whose oracle episode took two turns, replayed by
    piping those replies into `swift-gym play` with colours forced, drawn by rich."""
    records = [json.loads(line) for line in oracle_run.read_text(encoding="utf-8").splitlines()]
    record = next(r for r in records if r["status"] == "goal" and len(r["turns"]) == 2)
    replies = "".join(turn["reply"] + "\n" for turn in record["turns"])
    command = ["play", "frozen_lake", "--seed", str(record["seed"])]
    env = {**os.environ, "FORCE_COLOR": "1", "COLUMNS": str(PLAY_COLUMNS), "TERM": "xterm"}
    env.pop("NO_COLOR", None)
    done = swift_gym(*command, input=replies, env=env)
    out.write_text(terminal_svg(done.stdout, "swift-gym " + " ".join(command)), encoding="utf-8")


def terminal_svg(ansi: str, title: str) -> str:
    """`ansi` drawn as a terminal by rich, in the reader's own monospace font: rich's template
    loads Fira Code from a CDN, which the site must not (it fetches nothing from elsewhere)."""
    from rich._export_format import CONSOLE_SVG_FORMAT
    from rich.console import Console
    from rich.text import Text

    template = re.sub(r"\s*@font-face \{\{.*?\}\}", "", CONSOLE_SVG_FORMAT, flags=re.S)
    template = re.sub(r"\s*<!--.*?-->", "", template)
    template = template.replace(
        "font-family: Fira Code, monospace;",
        'font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace;',
    ).replace("font-family: arial;", "font-family: sans-serif;")
    assert "//" not in template.replace('xmlns="http://www.w3.org/2000/svg"', "")
    console = Console(record=True, width=PLAY_COLUMNS, file=io.StringIO(), force_terminal=True)
    console.print(Text.from_ansi(ansi.rstrip("\n")), soft_wrap=False)
    return console.export_svg(title=title, code_format=template, unique_id="play")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write into")
    parser.add_argument("--no-report", action="store_true", help="only play.svg (no browser)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        runs = eval_runs(work)
        made = [args.out / "play.svg"]
        play_svg(runs[1], made[0])
        if not args.no_report:
            made.append(args.out / "report.png")
            report_png(runs, work, made[1])
    for path in made:
        size = path.stat().st_size
        print(f"wrote {path} ({size / 1000:.0f} KB)")
        if size > MAX_BYTES:
            raise SystemExit(f"{path} is over {MAX_BYTES / 1000:.0f} KB: the site keeps each small")


if __name__ == "__main__":
    main()
