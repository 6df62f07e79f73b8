#!/usr/bin/env bash
# Server mode, part 1: the rollout server generates the FrozenLake episodes and plays their envs
# (GPU machine): docs/training.md, "Server mode". Start this first, then swift_rlhf_server.sh on
# the training GPUs once http://127.0.0.1:8000/health/ answers.
# Needs, in a clone: pip install "./core[swift]" ./plugins/frozen_lake vllm
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
CUDA_VISIBLE_DEVICES=${ROLLOUT_GPUS:-0} SWIFT_GYM_TRAJECTORIES=trajectories/server swift rollout \
    --model "$MODEL" \
    --multi_turn_scheduler swift_gym \
    --gym_env frozen_lake \
    --use_gym_env true \
    --max_turns 10 \
    --port 8000
