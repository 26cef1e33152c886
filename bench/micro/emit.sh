#!/bin/sh
# Regenerates the .asim programs in bench/micro/: one point of each simulated microbenchmark,
# written by `asyncsim micro NAME --where ... --emit DIR` exactly as that micro simulates it.
#   sh bench/micro/emit.sh [ASYNCSIM_BINARY]        (from the repository root; ~1 minute)
set -e
A=${1:-build/asyncsim}
D=$(dirname "$0")
q() { "$A" micro "$@" --emit "$D" --max-bytes 268435456 > /dev/null; }
q tma_size --where copy=bulk --where src=dram --where size_bytes=8192
q tma_issue --where copy=tensor2d --where src=l2 --where bytes_each=4096 --where n=8
q tma_bw --where copy=tensor2d --where src=dram --where wait=try_wait --where ctas_per_sm=1
q mem_bw --where test=dram_copy_rw
q lsu_latency --where op=ld --where src=dram --where buffer_bytes=2097152
q lsu_chip --where op=ld --where src=l2 --where ctas_per_sm=2 --where unroll=1
q lsu_vector_add_ncu --where elements=16777216 --where ctas=528
q launch --where kernel=launch_tma
q launch --where kernel=launch_store --where grid=132
q loaded_latency --where probe=dram --where slots=2
