#!/usr/bin/env bash
# The FrozenLake GRPO dataset: one ms-swift row per seed, every env_config validated.
# Row i has seed SEED_START + i, so the maps are those of ms-swift's FrozenLake example plugin.
# Needs, in a clone: pip install ./core ./plugins/frozen_lake
#   ROWS=1024 OUT=frozen_lake.jsonl bash examples/make_frozen_lake_dataset.sh [--set size=6 ...]
set -euo pipefail
swift-gym dataset frozen_lake -n "${ROWS:-1024}" --seed-start "${SEED_START:-0}" \
    -o "${OUT:-frozen_lake.jsonl}" "$@"
