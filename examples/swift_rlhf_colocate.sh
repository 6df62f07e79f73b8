#!/usr/bin/env bash
# GRPO on FrozenLake with `swift rlhf`, vLLM colocated with the trainer (GPU machine): the command
# of docs/training.md, "GRPO on FrozenLake" (tests/test_docs_training.py holds it to the page's).
# Needs, in a clone: pip install "./core[swift]" ./plugins/frozen_lake vllm. No --external_plugins:
# the installed swift-gym registers frozen_lake, the swift_gym scheduler and its rewards.
#   bash examples/swift_rlhf_colocate.sh            # one GPU
#   NPROC=8 bash examples/swift_rlhf_colocate.sh    # eight
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
NPROC=${NPROC:-1}
OUT=frozen_lake.jsonl bash "$(dirname "$0")/make_frozen_lake_dataset.sh"

SWIFT_GYM_TRAJECTORIES=trajectories/frozen_lake NPROC_PER_NODE=$NPROC swift rlhf \
    --rlhf_type grpo \
    --model "$MODEL" \
    --dataset frozen_lake.jsonl \
    --use_vllm true \
    --vllm_mode colocate \
    --vllm_gpu_memory_utilization 0.4 \
    --multi_turn_scheduler swift_gym \
    --gym_env frozen_lake \
    --use_gym_env true \
    --max_turns 10 \
    --reward_funcs frozen_lake_format \
    --reward_weights 0.2 1.0 \
    --num_generations 8 \
    --per_device_train_batch_size 8 \
    --max_completion_length 256 \
    --tuner_type full \
    --torch_dtype bfloat16 \
    --learning_rate 1e-6 \
    --num_train_epochs 1 \
    --log_completions true \
    --output_dir output/frozen_lake_colocate
swift-gym report trajectories/frozen_lake -o report.html
