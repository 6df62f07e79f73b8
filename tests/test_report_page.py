"""The report page read as a person would read it, checked on the page the command writes:
a status keeps its colour in every chart, legends name only statuses that occur, reward bins
say their range, each seed square links to its episode, the page has a viewport, reward
intervals stay inside the rewards seen, a mean over envs of different reward scales is flagged,
and no two labels of a chart overlap (boxes from the SVG positions, ~0.6 em a character).

`test_report_browser.py` looks at the same page in Chromium, at desktop and phone widths.
"""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from cli_runner import run
from test_cli_report import training_dir

SVG = "{http://www.w3.org/2000/svg}"
RANGE = re.compile(r"^(-?[0-9.e+-]+) to (-?[0-9.e+-]+)$")


def record(index: int, env: str, seed: int, status: str, reward: float) -> dict[str, object]:
    turn = {"turn": 1, "reply": "r", "action": "a", "valid_action": True, "observation": "o",
            "reward": reward, "done": True, "info": {}}  # fmt: skip
    return {
        "index": index, "env": env, "seed": seed, "env_config": {"name": env, "seed": seed},
        "policy": "p", "system_prompt": "s", "observation": "o", "reset_info": {},
        "turns": [turn], "num_turns": 1, "total_reward": reward, "success": status == "goal",
        "status": status, "error": None,
    }  # fmt: skip


def write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Run A: frozen_lake (rewards 0 or 1; statuses goal, hole, slipped) and counting (rewards
    0 to 100: another scale). Run B: frozen_lake only, its own status `wandered` more common
    than `slipped`, one goal in 40 (the t interval of its mean reaches below 0)."""
    folder = tmp_path_factory.mktemp("page")
    a = [record(k, "frozen_lake", k, ("goal", "hole", "slipped")[k % 3], float(k % 3 == 0))
         for k in range(30)]  # fmt: skip
    a += [record(30 + k, "counting", k, ("done", "max_turns")[k % 2], float(round(k * 100 / 29)))
          for k in range(30)]  # fmt: skip
    b = [record(k, "frozen_lake", k, "goal" if k == 0 else ("wandered", "wandered", "slipped")
                [k % 3], float(k == 0)) for k in range(40)]  # fmt: skip
    out = folder / "page.html"
    result = run("report", str(write(folder / "a.jsonl", a)), str(write(folder / "b.jsonl", b)),
                 "-o", str(out))  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out.read_text()


def svgs(html: str) -> list[ET.Element]:
    """Every chart of the page, parsed as XML (so each is well-formed SVG too)."""
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", html, re.S)]


def label(svg: ET.Element) -> str:
    return svg.get("aria-label") or ""


def title_of(element: ET.Element) -> str:
    found = element.find(f"{SVG}title")
    return "" if found is None else found.text or ""


def legend(svg: ET.Element) -> dict[str, str]:
    """Legend entries: name -> colour."""
    entries = {}
    for group in svg.iter(f"{SVG}g"):
        if group.get("class") == "legend":
            entries[group.find(f"{SVG}text").text] = group.find(f"{SVG}rect").get("fill")
    return entries


def squares(svg: ET.Element) -> list[tuple[str, str, str | None]]:
    """A status strip's squares: (status, colour, the link around it or None)."""
    found = []
    parents = {child: parent for parent in svg.iter() for child in parent}
    for rect in svg.iter(f"{SVG}rect"):
        match = re.match(r"seed .*?: (.*), reward", title_of(rect))
        if match:
            link = parents[rect] if parents[rect].tag == f"{SVG}a" else None
            found.append((match.group(1), rect.get("fill"), None if link is None
                          else link.get("href")))  # fmt: skip
    return found


def test_a_status_has_one_colour_in_every_chart(page: str) -> None:
    colours: dict[str, set[str]] = {}
    for svg in svgs(page):
        if "episodes by final status" in label(svg):
            for rect in svg.iter(f"{SVG}rect"):
                status = title_of(rect).rpartition(":")[0]
                colours.setdefault(status, set()).add(rect.get("fill"))
        for status, colour, _ in squares(svg):
            colours.setdefault(status, set()).add(colour)
        for status, colour in legend(svg).items():
            colours.setdefault(status, set()).add(colour)
    assert {"goal", "hole", "slipped", "wandered", "done", "max_turns"} <= set(colours)
    assert {status: len(c) for status, c in colours.items()} == dict.fromkeys(colours, 1)
    assert len({next(iter(c)) for c in colours.values()}) == len(colours)  # all distinct


def test_a_legend_names_only_the_statuses_its_chart_shows(page: str) -> None:
    strips = [svg for svg in svgs(page) if label(svg).endswith("status by seed")]
    assert len(strips) == 3  # A's two envs, B's one
    for svg in strips:
        assert set(legend(svg)) == {status for status, _, _ in squares(svg)}, label(svg)


def test_reward_bins_are_labelled_by_their_range(page: str) -> None:
    chart = next(s for s in svgs(page) if label(s) == "run A: total reward per episode")
    labels = [t.text for t in chart.iter(f"{SVG}text") if t.get("class") == "category"]
    bounds = [tuple(map(float, RANGE.match(text).groups())) for text in labels]
    assert len(bounds) == 12
    assert bounds[0][0] == 0 and bounds[-1][1] == 100  # the rewards seen, 0 to 100
    assert all(low < high for low, high in bounds)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))  # they tile
    counts = [int(title_of(r).rpartition(": ")[2].split()[0]) for r in chart.iter(f"{SVG}rect")]
    assert sum(counts) == 60


class Ids(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.ids: dict[str, dict[str, str | None]] = {}
        self.metas: list[dict[str, str | None]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids[attributes["id"] or ""] = {"tag": tag, **attributes}
        if tag == "meta":
            self.metas.append(attributes)


def test_seed_squares_link_to_their_episodes(page: str) -> None:
    ids = Ids(page).ids
    linked = 0
    for svg in svgs(page):
        for rect_status, _, href in squares(svg):
            assert href is not None and href.startswith("#")
            target = ids[href[1:]]
            assert target["tag"] == "details" and target["data-status"] == rect_status
            linked += 1
    assert linked == 100


def test_squares_of_episodes_left_out_of_the_page_link_nowhere(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", [record(k, "e", k, "goal", 1.0) for k in range(20)])
    out = tmp_path / "few.html"
    assert run("report", str(path), "--episodes", "5", "-o", str(out)).returncode == 0
    html = out.read_text()
    ids = Ids(html).ids
    found = [href for svg in svgs(html) for _, _, href in squares(svg)]
    assert len(found) == 20 and sum(href is not None for href in found) == 5
    assert all(ids[href[1:]]["tag"] == "details" for href in found if href)


def test_the_page_has_a_viewport_and_charts_that_shrink(page: str) -> None:
    metas = Ids(page).metas
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in metas
    for svg in svgs(page):
        assert svg.get("viewBox") == f"0 0 {svg.get('width')} {svg.get('height')}"
    assert re.search(r"svg \{[^}]*max-width: 100%;[^}]*height: auto;", page)


def interval(cell: str) -> tuple[float, float]:
    low, high = re.search(r"95% CI ([-+0-9.]+) to ([-+0-9.]+)", cell).groups()
    return float(low), float(high)


def test_reward_intervals_stay_inside_the_rewards_seen(page: str) -> None:
    from test_cli_report import Page, row

    cells = row(Page(page), "summary", "mean reward")
    a_low, a_high = interval(cells[1])
    b_low, b_high = interval(cells[2])
    assert 0 <= a_low <= a_high <= 100
    assert 0 <= b_low <= b_high <= 1  # one goal in 40: the interval of the mean reached below 0
    d_low, d_high = interval(cells[3])
    assert 0 - 100 <= d_low <= d_high <= 1 - 0  # B - A: within min B - max A, max B - min A


def test_curve_bands_stay_inside_the_rewards_seen(tmp_path: Path) -> None:
    folder = training_dir(tmp_path / "rare", steps=4, per_step=30, ranks=1)
    for path in folder.iterdir():  # one win at each step of 30 episodes: the band reaches < 0
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for k, line in enumerate(lines):
            line["total_reward"] = float(k % 30 == 0)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "rare.html"
    assert run("report", str(folder), "-o", str(out)).returncode == 0
    chart = next(s for s in svgs(out.read_text()) if label(s).startswith("mean reward over"))
    tips = [title_of(c) for c in chart.iter(f"{SVG}circle") if "all:" in title_of(c)]
    assert len(tips) == 4
    for tip in tips:
        low, high = map(float, re.search(r"95% CI (\S+) to ([^)]+)\)", tip).groups())
        assert 0 <= low <= high <= 1, tip
    ticks = [float(t.text) for t in chart.iter(f"{SVG}text") if t.get("class") == "y-tick"]
    assert ticks and min(ticks) >= 0


def test_a_mean_over_envs_of_different_reward_scales_is_flagged(page: str) -> None:
    warning = re.search(r'<p class="warn" id="reward-scales">(.*?)</p>', page, re.S)
    assert warning, "no warning on run A's mean over rewards of 0 to 1 and of 0 to 100"
    text = warning.group(1)
    assert "run A" in text and "run B" not in text
    assert "frozen_lake 0 to 1" in text and "counting 0 to 100" in text


def test_envs_of_one_reward_scale_raise_no_warning(tmp_path: Path) -> None:
    records = [record(k, ("x", "y")[k % 2], k, "goal", float(k % 3 == 0)) for k in range(20)]
    records += [record(20, "z", 1, "done", 0.0)]  # rewards that never vary: no scale to tell
    out = tmp_path / "same.html"
    assert run("report", str(write(tmp_path / "a.jsonl", records)), "-o", str(out)).returncode == 0
    html = out.read_text()
    assert "reward-scales" not in html and 'class="warn"' not in html


# --- labels -------------------------------------------------------------------------------------

CHAR_EM = 0.6
"""Width of a character in ems, about that of system-ui's digits and lower case."""


def boxes(svg: ET.Element) -> list[tuple[str, float, float, float, float]]:
    """Each text's box (text, left, top, right, bottom) from its position, size and anchor."""
    found = []
    for text in svg.iter(f"{SVG}text"):
        size = float(text.get("font-size") or 16)
        width = len(text.text or "") * size * CHAR_EM
        x, y = float(text.get("x")), float(text.get("y"))
        anchor = text.get("text-anchor") or "start"
        left = x - {"start": 0, "middle": width / 2, "end": width}[anchor]
        found.append((text.text or "", left, y - size * 0.8, left + width, y + size * 0.2))
    return found


def overlaps(svg: ET.Element) -> list[tuple[str, str]]:
    placed = boxes(svg)
    width, height = float(svg.get("width")), float(svg.get("height"))
    bad = [(t, "outside the chart") for t, left, top, right, bottom in placed
           if left < 0 or top < 0 or right > width + 0.5 or bottom > height + 0.5]  # fmt: skip
    for k, (t1, l1, t1_top, r1, b1) in enumerate(placed):
        for t2, l2, t2_top, r2, b2 in placed[k + 1 :]:
            if l1 < r2 and l2 < r1 and t1_top < b2 and t2_top < b1:
                bad.append((t1, t2))
    return bad


def test_no_two_labels_overlap_in_a_crowded_report(tmp_path: Path) -> None:
    """Long statuses, many bins of wide numbers, a long env name, many series, huge steps."""
    statuses = [f"{name}_because_of_a_long_reason" for name in ("timeout", "refused", "wrong")]
    records = [
        record(k, ("an_env_with_a_rather_long_name_" + "x" * 60, "short")[k % 2], k * 1_000_003,
               statuses[k % 3], 123456.789 * (k % 17) - 5e5)
        for k in range(400)
    ]  # fmt: skip
    eval_run = write(tmp_path / "crowded.jsonl", records)
    folder = training_dir(tmp_path / "train", steps=40, per_step=12, ranks=1)
    for path in folder.iterdir():  # eight envs of long names, steps past 2**53
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        for k, line in enumerate(lines):
            line["env"] = f"environment_number_{k % 8}_of_a_family"
            line["training"]["step"] += 2**53 + 123_456_789
            line["total_reward"] = 1e6 * (k % 7)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "crowded.html"
    result = run("report", str(folder), str(eval_run), "-o", str(out))
    assert result.returncode == 0, result.stderr
    charts = svgs(out.read_text())
    assert len(charts) >= 10
    assert {label(svg): overlaps(svg) for svg in charts} == {label(svg): [] for svg in charts}
