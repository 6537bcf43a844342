#!/usr/bin/env bash
# Six one-file PPO runs side by side on one GPU machine, plus the first run's CPU peer (docs/training.md, "On a GPU").
# Each run is one process: the compiled vector env on one CPU thread, the networks on the GPU. Usage:
#   bash benchmarks/cleanrl_gpu_runs.sh [MINUTES] [OUT]      # defaults: 6.5 minutes a run, runs/gpu
# Writes OUT/<run>/ (policy, critic.pt, history.csv, snapshots/) and OUT/<run>.log; the CPU peer runs 2 minutes.
set -u
M=${1:-6.5}; R=${2:-runs/gpu}; mkdir -p "$R"
export OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 PYTHONUNBUFFERED=1
python -c "import torch; assert torch.cuda.is_available(), 'no CUDA device: this script measures GPU runs'" || exit 1
# compile the kernels once (numba's cache) before the timed runs start
python -c "
import agents
for g, o, kw in [('lama', ['lama/first'] * 3, {}), ('lama', ['lama/third-retuned'] * 3, {'rules': 'seed2022'}),
                 ('the_game', [], {'num_players': 1}), ('primi_composti', ['primi_composti/greedy_rand'], {}),
                 ('primi_composti', [], {'control': 'all_seats'})]:
    v = agents.vector_env(g, 4, opponents=o, seed=0, **kw)
    v.reset()
    for _ in range(50):
        v.step(v.action_masks().argmax(1))
" || exit 1
run() {
  local name=$1 dev=$2 minutes=$3; shift 3
  python -m train.cleanrl_ppo "$@" --out "$R/$name" --device "$dev" --max-minutes "$minutes" \
      --timesteps 2000000000 > "$R/$name.log" 2>&1 &
}
run lamaA cuda "$M" lama --n-envs 2048 --n-steps 64 --minibatch 2048 --epochs 4 --hidden 256,256 --seed 11 --save-every 40
run lamaB cuda "$M" lama --n-envs 1024 --n-steps 128 --minibatch 1024 --epochs 4 --hidden 128,128 --seed 12 --save-every 30
run lama22 cuda "$M" lama --option rules=seed2022 --opponents 'lama/third-retuned*3' --n-envs 2048 --n-steps 64 \
    --minibatch 2048 --epochs 4 --hidden 256,256 --seed 13 --save-every 40
run game1 cuda "$M" the_game --n-envs 1024 --n-steps 128 --minibatch 4096 --epochs 4 --hidden 256,256 --gamma 0.99 \
    --ent-coef 0.01 --seed 14 --save-every 60
run primiG cuda "$M" primi_composti --opponents primi_composti/greedy_rand --n-envs 1024 --n-steps 128 \
    --minibatch 2048 --epochs 4 --seed 15 --save-every 40
run primiS cuda "$M" primi_composti --control all_seats --n-envs 1024 --n-steps 128 --minibatch 2048 --epochs 4 \
    --seed 16 --save-every 40
run lamaA-cpu cpu 2 lama --n-envs 2048 --n-steps 64 --minibatch 2048 --epochs 4 --hidden 256,256 --seed 11
wait
tail -n 2 "$R"/*.log
