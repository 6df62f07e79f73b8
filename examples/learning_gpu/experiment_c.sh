#!/usr/bin/env bash
# Experiment C of benchmarks/learning (the classic map SFFF/FHFH/FFFH/HFFG, each move a call of
# the tool `move`, through ms-swift's hermes agent template) as a GPU recipe: the same commands
# as `tox -e learn` (see benchmarks/LEARNING.md, "The commands"), with a real model and GPU
# flags instead of the scratch model and CPU flags. Qwen2.5's own tokenizer already reads
# hermes's <tool_call> text. Run from the repo root.
# Needs: pip install "./core[swift]" ./plugins/frozen_lake vllm
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}
NPROC=${NPROC:-1}
SEED=${SEED:-0}  # the training seed: run SEED=0, 1 and 2, as the CPU pipeline does
WORK=${WORK:-learning_gpu/seed-$SEED/C}
MAP=SFFF/FHFH/FFFH/HFFG
mkdir -p "$WORK"

# format-only warm start: uniformly random valid calls of move, exported as ms-swift agent rows
python benchmarks/learning/format_episodes.py --tool --set map=$MAP --set action_format=tool \
    -n 400 --max-turns 10 --seed $SEED -o "$WORK/C-format-episodes.jsonl"
swift-gym export "$WORK/C-format-episodes.jsonl" -o "$WORK/C-format-sft.jsonl"
NPROC_PER_NODE=$NPROC swift sft --model "$MODEL" --dataset "$WORK/C-format-sft.jsonl" \
    --agent_template hermes \
    --num_train_epochs 10 --per_device_train_batch_size 16 --learning_rate 1e-5 \
    --lr_scheduler_type cosine --warmup_ratio 0.05 --split_dataset_ratio 0 \
    --save_strategy epoch --save_total_limit 1 --tuner_type full --torch_dtype bfloat16 \
    --report_to none --seed $SEED --logging_steps 1 --save_only_model true \
    --output_dir "$WORK/C-sft"
WARM=$(ls -dv "$WORK"/C-sft/v*/checkpoint-* | tail -1)

# --use_gym_env false: swift_gym_total is the env's reward already, as on the CPU; with vLLM,
# ms-swift would add it again as a third reward column and refuse the two weights
# GRPO with the env's reward; `swift-gym dataset` gives the rows the env's tools (ms-swift
# encodes the prompt it trains on from them), every training episode kept for the learning curve
swift-gym dataset frozen_lake -n 4096 --set map=$MAP --set action_format=tool --set invalid_action_reward=-0.5 -o "$WORK/C-grpo-rows.jsonl"
SWIFT_GYM_TRAJECTORIES="$WORK/C-trajectories" NPROC_PER_NODE=$NPROC swift rlhf \
    --rlhf_type grpo --use_vllm true --vllm_mode colocate --vllm_gpu_memory_utilization 0.4 \
    --model "$WARM" --dataset "$WORK/C-grpo-rows.jsonl" --agent_template hermes \
    --multi_turn_scheduler swift_gym --gym_env frozen_lake --max_turns 10 \
    --use_gym_env false --reward_funcs swift_gym_total swift_gym_success \
    --reward_weights 1 0 --num_generations 32 --per_device_train_batch_size 32 \
    --max_completion_length 256 --temperature 1.0 --beta 0.01 --learning_rate 5e-7 \
    --num_iterations 4 --scale_rewards none --warmup_ratio 0.05 \
    --max_steps 1500 --save_strategy steps --save_steps 1500 --tuner_type full \
    --torch_dtype bfloat16 --report_to none --seed $SEED --logging_steps 1 \
    --save_only_model true --output_dir "$WORK/C-grpo"
TRAINED=$(ls -dv "$WORK"/C-grpo/v*/checkpoint-* | tail -1)

# 200 episodes each, sampled at temperature 1 and greedily, prompts encoded by ms-swift's
# template with the hermes agent template and replies parsed by it, as the training engine does
for tag in start grpo; do
    checkpoint=$([ $tag = start ] && echo "$WARM" || echo "$TRAINED")
    python benchmarks/learning/evaluate.py "$checkpoint" --set map=$MAP --set action_format=tool \
        -n 200 --seed-start 0 --temperature 1.0 --max-new-tokens 256 --device cuda \
        --agent-template hermes \
        -o "$WORK/C-eval-$tag.jsonl" --json "$WORK/C-eval-$tag.json" --greedy "$WORK/C-eval-$tag-greedy"
done
swift-gym report "$WORK/C-eval-start.jsonl" "$WORK/C-eval-grpo.jsonl" "$WORK/C-trajectories" \
    -o "$WORK/learning-report.html"
