"""`import swift_gym.swift`: register swift-gym into ms-swift explicitly.

For environments where the start-up hook (`swift_gym_autoload.pth`) does not run: `python -S`,
`pip install --target`, or `SWIFT_GYM_AUTOLOAD=0`.
Importing it imports ms-swift's registry modules and fills them; doing so twice is harmless.
"""

from importlib import import_module

from .ms_swift.registration import fill_registry

for _name in ("swift.rollout.gym_env", "swift.rollout.multi_turn", "swift.rewards.orm"):
    fill_registry(import_module(_name))
