"""swift-gym's side of the ms-swift integration. Nothing here imports ms-swift at import time.

`registration` fills ms-swift's registries when they are imported (see `_swift_gym_autoload`),
`factories` makes the validated env for each dataset row, `scheduler` is the `swift_gym`
multi-turn scheduler and `rewards` the reward functions.
"""
