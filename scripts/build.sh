#!/usr/bin/env bash
# Configures and builds asyncsim. Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
py=()
# Debian's python3 carries python3-pytest / python3-matplotlib (installed by install-deps.sh).
if [ -x /usr/bin/python3 ]; then
  py=(-DPython3_EXECUTABLE=/usr/bin/python3)
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${py[@]}" "$@" >/dev/null
ninja -C "$dir" -j "$(nproc)"
