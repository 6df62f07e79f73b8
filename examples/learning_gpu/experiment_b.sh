#!/usr/bin/env bash
# Experiment B of benchmarks/learning (random 4x4 maps, held-out seeds) as a GPU recipe: the
# same commands as `tox -e learn` (benchmarks/LEARNING.md, "The commands"), with a real model
# and GPU flags instead of the scratch model and CPU flags. Run from the repo root.
# Needs: pip install "./core[swift]" ./plugins/frozen_lake vllm
set -euo pipefail
MODEL=${MODEL:-Qwen/Qwen2.5-0.5B-Instruct}
NPROC=${NPROC:-1}
SEED=${SEED:-0}  # the training seed: run SEED=0, 1 and 2, as the CPU pipeline does
WORK=${WORK:-learning_gpu/seed-$SEED/B}
TRAIN_SEEDS=2000
HELD_OUT=1000000  # evaluation seeds 1000000..1000199: never trained on
mkdir -p "$WORK"

# SFT on the oracle's episodes of the training seeds
swift-gym eval frozen_lake --policy oracle -n $TRAIN_SEEDS --seed-start 0 -o "$WORK/B-oracle.jsonl"
swift-gym export "$WORK/B-oracle.jsonl" --status goal -o "$WORK/B-sft-rows.jsonl"
NPROC_PER_NODE=$NPROC swift sft --model "$MODEL" --dataset "$WORK/B-sft-rows.jsonl" \
    --num_train_epochs 8 --per_device_train_batch_size 16 --learning_rate 1e-5 \
    --lr_scheduler_type cosine --warmup_ratio 0.05 --split_dataset_ratio 0 \
    --save_strategy epoch --save_total_limit 1 --tuner_type full --torch_dtype bfloat16 \
    --report_to none --seed $SEED --logging_steps 1 --save_only_model true \
    --output_dir "$WORK/B-sft"
SFT=$(ls -dv "$WORK"/B-sft/v*/checkpoint-* | tail -1)

# --use_gym_env false: swift_gym_total is the env's reward already, as on the CPU; with vLLM,
# ms-swift would add it again as a third reward column and refuse the two weights
# GRPO from the SFT checkpoint on the same training seeds
swift-gym dataset frozen_lake -n $TRAIN_SEEDS --seed-start 0 --set invalid_action_reward=-0.5 --set action_parsing=exact -o "$WORK/B-grpo-rows.jsonl"
SWIFT_GYM_TRAJECTORIES="$WORK/B-trajectories" NPROC_PER_NODE=$NPROC swift rlhf \
    --rlhf_type grpo --use_vllm true --vllm_mode colocate --vllm_gpu_memory_utilization 0.4 \
    --model "$SFT" --dataset "$WORK/B-grpo-rows.jsonl" \
    --multi_turn_scheduler swift_gym --gym_env frozen_lake --max_turns 10 \
    --use_gym_env false --reward_funcs swift_gym_total swift_gym_success \
    --reward_weights 1 0 --num_generations 16 --per_device_train_batch_size 32 \
    --max_completion_length 256 --temperature 1.0 --beta 0.01 --learning_rate 1e-6 \
    --num_iterations 4 --scale_rewards none --warmup_ratio 0.05 \
    --max_steps 400 --save_strategy steps --save_steps 400 --tuner_type full \
    --torch_dtype bfloat16 --report_to none --seed $SEED --logging_steps 1 \
    --save_only_model true --output_dir "$WORK/B-grpo"
TRAINED=$(ls -dv "$WORK"/B-grpo/v*/checkpoint-* | tail -1)

# the base model, the SFT and the GRPO checkpoints on the same held-out seeds
for tag in start sft grpo; do
    case $tag in start) checkpoint=$MODEL ;; sft) checkpoint=$SFT ;; grpo) checkpoint=$TRAINED ;; esac
    python benchmarks/learning/evaluate.py "$checkpoint" -n 200 --seed-start $HELD_OUT \
        --temperature 1.0 --max-new-tokens 256 --device cuda \
        -o "$WORK/B-eval-$tag.jsonl" --json "$WORK/B-eval-$tag.json" --greedy "$WORK/B-eval-$tag-greedy"
done
swift-gym report "$WORK"/B-eval-{start,sft,grpo}.jsonl "$WORK/B-trajectories" \
    -o "$WORK/learning-report.html"
