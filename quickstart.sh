#!/usr/bin/env bash
# The README's first command: install what training needs, then train a small model on FrozenLake
# with `swift rlhf` GRPO (benchmarks/learning/quickstart.py) and print the success rate before
# and after. Arguments go to quickstart.py (`--out DIR`, `--set KEY=VALUE`, `--threads N`).
#
# Installs into the active virtual environment, or makes and uses .venv here when none is active
# (Debian's and Ubuntu's Python refuse `pip install` outside one). torch goes in first, pinned:
# ms-swift would otherwise pull whatever torch its resolver picks.
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${VIRTUAL_ENV:-}" ]; then
    [ -x .venv/bin/python ] || python3 -m venv .venv
    # shellcheck disable=SC1091
    . .venv/bin/activate
fi
echo "installing torch 2.13.0, ms-swift 4.6.0, swift-gym and its FrozenLake into $VIRTUAL_ENV"
python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
python -m pip install --quiet --disable-pip-version-check "ms-swift==4.6.0" msgspec \
    "./core[swift]" ./plugins/frozen_lake
exec python benchmarks/learning/quickstart.py "$@"
