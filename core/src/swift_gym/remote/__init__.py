"""Envs on other machines: the `openenv` env plays an env served over the OpenEnv protocol.

`protocol` (the frames), `session` (one episode's connection, on the process's background loop:
`placement.background`), `tokens` (which bearer token goes where), `config` and `env` (`OpenEnvEnv`,
registered by the core as `openenv`). Needs `websockets` (`pip install "./core[remote]"` in a
clone); nothing here is imported by `import swift_gym` or by listing envs.
"""
