#!/usr/bin/env bash
# Sets up (apt-get), builds, and runs the default job: a 4096^3 fp16 GEMM on the H200 model.
# Any arguments replace the default job, e.g. ./run.sh gemm --m 8192 --n 8192 --k 8192 --json
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh build
if [ $# -eq 0 ]; then
  set -- gemm --gpu h200 --m 4096 --n 4096 --k 4096
fi
exec build/asyncsim "$@"
