"""A stand-in for ms-swift's three registry modules, for tests of the start-up hook without torch.

`write_fake_swift(directory)` writes a `swift` package whose `swift.rollout.gym_env`,
`swift.rollout.multi_turn` and `swift.rewards.orm` define the registries swift-gym fills, as
ms-swift's do (`core/tests/test_startup_hook.py` has the in-process twin; `tests/swift/` checks
the real ms-swift). PROBE imports them as ms-swift's own code does and prints what they hold.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

FAKE_SWIFT = {
    "swift/__init__.py": "",
    "swift/rollout/__init__.py": "",
    "swift/rollout/gym_env.py": "envs = {'math_env': 'ms-swift own'}\n",
    "swift/rollout/multi_turn.py": """
        from .gym_env import envs

        class GYMScheduler:
            def __init__(self, max_turns=None, gym_env=None, **kwargs):
                self.gym_env_name = gym_env

            def _create_env(self, env_config):
                name = env_config.get('name', self.gym_env_name)
                if name not in envs:
                    raise ValueError(f'Environment {name} not found')
                return envs[name](env_config)

        multi_turns = {'gym_scheduler': GYMScheduler}
    """,
    "swift/rewards/__init__.py": "",
    "swift/rewards/orm.py": """
        class ORM:
            def __init__(self, args=None, **kwargs):
                self.args = args

        orms = {'format': ORM}
    """,
}

PROBE = """
import json
import swift.rollout.gym_env
from swift.rollout.multi_turn import multi_turns, envs
from swift.rewards.orm import orms
print(json.dumps({"envs": sorted(envs), "schedulers": sorted(multi_turns), "orms": sorted(orms)}))
"""


def write_fake_swift(directory: Path) -> Path:
    """The fake `swift` package in `directory` (made if missing); returns `directory`."""
    for relative, source in FAKE_SWIFT.items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    return directory
