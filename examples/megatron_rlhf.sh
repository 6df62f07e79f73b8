#!/usr/bin/env bash
# GRPO on FrozenLake with Megatron (`megatron rlhf`), vLLM colocated (GPU machine), as in
# ms-swift's FrozenLake example, minus its --external_plugins line (docs/training.md, "From
# ms-swift's FrozenLake example"). No test runs it: it needs Megatron-LM and GPUs.
# Needs, in a clone: pip install "./core[swift]" ./plugins/frozen_lake vllm, and Megatron-LM as
# ms-swift's Megatron documentation installs it.
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
OUT=frozen_lake.jsonl bash "$(dirname "$0")/make_frozen_lake_dataset.sh"

NPROC_PER_NODE=${NPROC:-8} megatron rlhf \
    --rlhf_type grpo \
    --model "$MODEL" \
    --dataset frozen_lake.jsonl \
    --vllm_mode colocate \
    --vllm_gpu_memory_utilization 0.4 \
    --multi_turn_scheduler swift_gym \
    --gym_env frozen_lake \
    --use_gym_env true \
    --max_turns 10 \
    --reward_funcs frozen_lake_format \
    --reward_weights 0.2 1.0 \
    --num_generations 8 \
    --micro_batch_size 4 \
    --global_batch_size 64 \
    --max_completion_length 256 \
    --lr 1e-6 \
    --bf16 true \
    --log_completions true \
    --save output/frozen_lake_megatron
