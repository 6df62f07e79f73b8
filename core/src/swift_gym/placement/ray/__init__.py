"""Envs placed on a Ray cluster: each episode's env is built and played inside a Ray actor.

On only where the operator says so: the process-level setting `SWIFT_GYM_RAY_ADDRESS` (what
`ray.init(address=...)` takes: `auto`, `HOST:PORT`, `ray://HOST:PORT`), or the `ray_address`
argument of `swift_gym.evaluate`. Never a dataset row's field. Without it nothing here imports
Ray, and envs run in the calling process as always.

The rooms: `settings` (the operator's variables, and what an env class declares: no Ray),
`host` (the actor: builds envs from their name and config in its own registry, plays many
episodes over time, each on a `Runner`), `pool` (the caller's actors per env: reuse,
backpressure, replacement), `env` (`RayEnv`, the caller's stand-in that looks like an Env),
`cluster` (`RayPlacement`: connects, and opens episodes). The scheduler and `evaluate` reach
it through `placement.choice` (`process_placement`, `placement_for`).
"""

from __future__ import annotations

from .settings import ADDRESS_VARIABLE, ENVS_VARIABLE, address_from_environ

__all__ = ["ADDRESS_VARIABLE", "ENVS_VARIABLE", "address_from_environ"]
