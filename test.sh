#!/usr/bin/env bash
# Sets up (apt-get), builds, and runs the whole test suite: the C++ tests (CTest) in a Release
# build, the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, and the Python
# tests. This is exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")"
scripts/install-deps.sh
scripts/build.sh build
(cd build && ctest --output-on-failure -j "$(nproc)")
# -O1 -g1 (line tables for the sanitizers' stack traces): half the compile time of -O2 -g, for
# ~15 s more test time on 2 cores.
scripts/build.sh build-asan -DASYNCSIM_SANITIZE=ON -DASYNCSIM_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$(nproc)" -LE slow)
