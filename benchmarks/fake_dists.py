"""Generated env distributions for the discovery benchmark: real metadata, tiny modules.

Each is a `*.dist-info` directory (METADATA, entry_points.txt with one `swift_gym.envs` entry,
RECORD, INSTALLER), as pip leaves it, next to a module defining a small `Env`. They go into a
directory of their own put on PYTHONPATH: `importlib.metadata` scans every `sys.path` entry the
same way, site-packages or not, so this costs discovery what as many pip-installed wheels would,
without 200 pip installs (and it leaves the benchmark environment untouched).
"""

from __future__ import annotations

from pathlib import Path

MODULE = '''"""A generated env of the discovery benchmark."""

import swift_gym


class BenchEnv(swift_gym.Env):
    async def reset(self, request=None):
        return "ready", {}, ""

    async def step(self, messages):
        return "done", 0.0, True, {}
'''


def write_dists(root: Path, count: int) -> Path:
    """`count` env distributions `bench-env-000`... in `root`; returns `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        name = f"bench_env_{index:03d}"
        info = root / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 1.0\n"
            f"Summary: generated env {index} of the swift-gym discovery benchmark\n"
        )
        (info / "entry_points.txt").write_text(f"[swift_gym.envs]\n{name} = {name}:BenchEnv\n")
        (info / "INSTALLER").write_text("pip\n")
        (info / "RECORD").write_text(
            f"{name}.py,,\n{info.name}/METADATA,,\n{info.name}/entry_points.txt,,\n"
            f"{info.name}/INSTALLER,,\n{info.name}/RECORD,,\n"
        )
        (root / f"{name}.py").write_text(MODULE)
    return root


FAMILY = '''"""A generated hook plugin of the many-envs benchmark: one family of COUNT envs."""

import swift_gym


@swift_gym.hookimpl
def swift_gym_register_envs(register):
    for index in range(COUNT):
        register(f"level_{index:05d}", "bench_family_envs:BenchEnv")
'''


def write_family(root: Path, count: int) -> Path:
    """One distribution `bench-family` whose hook plugin registers `count` envs; returns `root`."""
    root.mkdir(parents=True, exist_ok=True)
    info = root / "bench_family-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: bench-family\nVersion: 1.0\n"
        f"Summary: a family of {count} generated envs\n"
    )
    (info / "entry_points.txt").write_text("[swift_gym.plugins]\nfamily = bench_family\n")
    (root / "bench_family.py").write_text(FAMILY.replace("COUNT", str(count)))
    (root / "bench_family_envs.py").write_text(MODULE)
    return root
