#!/usr/bin/env bash
# Server mode, part 2: the trainer sends rows (with their env_config) to the rollout server that
# swift_rollout_server.sh started: docs/training.md, "Server mode".
# --vllm_server_pass_dataset true is what carries env_config over to the server.
# Needs, in a clone: pip install "./core[swift]" ./plugins/frozen_lake vllm
#   bash examples/swift_rlhf_server.sh                                  # GPU 1
#   TRAIN_GPUS=1,2,3,4,5,6,7 NPROC=7 bash examples/swift_rlhf_server.sh  # the other seven
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}
OUT=frozen_lake.jsonl bash "$(dirname "$0")/make_frozen_lake_dataset.sh"

CUDA_VISIBLE_DEVICES=${TRAIN_GPUS:-1} NPROC_PER_NODE=${NPROC:-1} swift rlhf \
    --rlhf_type grpo \
    --model "$MODEL" \
    --dataset frozen_lake.jsonl \
    --use_vllm true \
    --vllm_mode server \
    --vllm_server_host 127.0.0.1 \
    --vllm_server_port 8000 \
    --vllm_server_pass_dataset true \
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
    --output_dir output/frozen_lake_server
