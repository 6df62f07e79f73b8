"""swift-gym's side of the ms-swift integration: adapters only. Nothing here imports ms-swift at
import time, and nothing below (the registries, the evaluation library) imports this package.

`registration` fills ms-swift's registries when they are imported (see `_swift_gym_autoload`),
`factories` makes the validated env for each dataset row, `scheduler` is the `swift_gym`
multi-turn scheduler and `rewards` wraps the reward registry (`swift_gym.rewards`) in ORM classes.
"""
