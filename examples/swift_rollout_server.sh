#!/usr/bin/env bash
# Server mode, part 1: the rollout server runs the FrozenLake episodes (GPU machine).
# Start this first, then swift_rlhf_server.sh on the training GPUs.
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
CUDA_VISIBLE_DEVICES=${ROLLOUT_GPUS:-0} swift rollout \
    --model "$MODEL" \
    --multi_turn_scheduler swift_gym \
    --gym_env frozen_lake \
    --use_gym_env true \
    --max_turns 10 \
    --port 8000
