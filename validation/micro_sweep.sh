#!/usr/bin/env bash
# Runs a set of microbenchmark mirrors against their committed H200 CSVs and prints one summary
# line per comparison (points within 10 %, MAPE, worst error), for judging a model change:
#
#   bash validation/micro_sweep.sh dram [--set KEY=VALUE ...]   # the DRAM micros (~1 min)
#   bash validation/micro_sweep.sh all  [--set KEY=VALUE ...]   # 25 micros, then the H200's
#                                                               # loaded_latency and depth files
#                                                               # (~7 min)
#   bash validation/micro_sweep.sh h100 [--set KEY=VALUE ...]   # the H100's files with
#                                                               # --gpu h100 (~7 min)
#
# Extra arguments go to every `asyncsim micro` call. ASYNCSIM (default build/asyncsim) names the
# binary. The streaming micros run at --max-bytes 512 MiB (l2_pairs at 256 MiB), as the tables
# in validation/README.md were made; l2_pairs and l2_ceiling compare best at --max-bytes 0.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${ASYNCSIM:-build/asyncsim}
D=validation/data/h200
set_name=${1:-}
if [ "$set_name" != dram ] && [ "$set_name" != all ] && [ "$set_name" != h100 ]; then
  echo "usage: $0 dram|all|h100 [asyncsim micro options ...]" >&2
  exit 2
fi
shift
run() {
  local name=$1 csv=$2
  shift 2
  local line
  line=$("$B" micro "$name" --compare "$csv" --jobs 2 "$@" 2>&1 | grep "# summary" || true)
  if [ -z "$line" ]; then
    echo "$name $(basename "$csv"): FAILED" >&2
    "$B" micro "$name" --compare "$csv" --jobs 2 "$@" >&2 || true
    exit 1
  fi
  echo "$name $(basename "$csv"): ${line#\# summary: }"
}
M="--max-bytes 536870912"
if [ "$set_name" = h100 ]; then
  # The H100's files the model mirrors (validation/data/h100/README.md), against configs/h100.yaml.
  H=validation/data/h100
  for csv in micro_loaded_latency.csv micro_loaded_latency_rerun.csv micro_loaded_latency_l2hot.csv; do
    run loaded_latency "$H/$csv" --gpu h100 "$@"
  done
  run tma_bw "$H/micro_tma_bw.csv" --gpu h100 $M "$@"
  run tma_bw "$H/micro_tma_bw_depth.csv" --gpu h100 --max-bytes 0 "$@"
  run l2_hot "$H/micro_l2_hot.csv" --gpu h100 $M "$@"
  run launch "$H/micro_launch.csv" --gpu h100 "$@"
  echo "(stream_gbps) $(run loaded_latency "$H/micro_loaded_latency.csv" --gpu h100 --metric stream_gbps --where probe=dram "$@")"
  exit 0
fi
if [ "$set_name" = dram ]; then
  # micro and CSV (under validation/data/h200), one comparison per line
  while read -r name csv; do
    case $name in
      tma_bw | mem_bw) run "$name" "$D/$csv" $M "$@" ;;
      *) run "$name" "$D/$csv" "$@" ;;
    esac
  done <<'LIST'
tma_latency micro_tma_latency.csv
tma_latency micro_tma_latency_smemcoords.csv
tma_latency micro_tma_latency_smemcoords_run1.csv
tma_stride micro_tma_stride.csv
tma_stride micro_tma_stride_rerun.csv
dram_pair micro_dram_pair.csv
dram_pair micro_dram_pair_rerun.csv
dram_spread micro_dram_spread.csv
dram_spread micro_dram_spread_run2.csv
dram_spread micro_dram_spread_run3.csv
dram_width micro_dram_width.csv
dram_sector micro_dram_sector.csv
tma_size micro_tma_size.csv
tma_size micro_tma_size_run3.csv
tma_bulk_box micro_tma_bulk_box.csv
tma_issue micro_tma_issue.csv
tma_bw micro_tma_bw.csv
mem_bw micro_mem_bw.csv
dram_repeat micro_dram_repeat_quantiles.csv
dram_bank micro_dram_bank_median.csv
LIST
  # tma_latency's samples are one line each (or one box): a hit or a miss, so past 48 MiB its
  # medians sit on the edge between the two modes; the means follow the hit fraction.
  echo "(mean_cycles) $(run tma_latency "$D/micro_tma_latency.csv" --metric mean_cycles "$@")"
  # tma_bulk_box has 62 samples a point, bimodal (a refresh met or not): its means are steadier.
  echo "(mean_cycles) $(run tma_bulk_box "$D/micro_tma_bulk_box.csv" --metric mean_cycles "$@")"
  exit 0
fi
for m in tma_latency tma_size tma_bulk_box tma_issue tma_loop tma_stride tma_bw mem_bw l2_hot l2_hot_slots \
  l2_pairs l2_ceiling l2_slice_spread l2_rotate lsu_chip lsu_sm lsu_latency lsu_chain \
  l2_dirty_retain l2_write_stream l2_reuse_stream l2_tma_write_retain l2_stride_retain \
  l2_stride_retain_pitch3 dram_spread dram_pair; do
  name=$m
  csv=$D/micro_$m.csv
  case $m in
    l2_hot_slots) name=l2_hot ;;
    l2_ceiling) name=l2_pairs ;;
    l2_stride_retain_pitch3) name=l2_stride_retain ;;
    lsu_*) csv=$D/micro_lsu.csv ;;
  esac
  case $m in
    lsu_latency | lsu_chain) [ -f "$D/micro_$m.csv" ] && csv=$D/micro_$m.csv ;;
  esac
  case $m in
    tma_bw | mem_bw | l2_hot | l2_hot_slots) run "$name" "$csv" $M "$@" ;;
    l2_pairs | l2_ceiling) run "$name" "$csv" --max-bytes 268435456 "$@" ;;
    *) run "$name" "$csv" "$@" ;;
  esac
done
# The loaded-latency curve, once the H200 has measured it (validation/README.md, "One line's
# latency while every SM streams from DRAM"; next_batch.sh loaded).
if [ -f "$D/micro_loaded_latency.csv" ]; then
  run loaded_latency "$D/micro_loaded_latency.csv" "$@"
fi
# DRAM GB/s against the bytes in flight per SM (thirty-second session; next_batch.sh depth).
if [ -f "$D/micro_tma_bw_depth.csv" ]; then
  run tma_bw "$D/micro_tma_bw_depth.csv" --max-bytes 0 "$@"
fi
