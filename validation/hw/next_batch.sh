#!/usr/bin/env bash
# The H200 runs prepared while no device was lent (nineteenth and twentieth sessions), in three
# parts that each fit one device command (10 minutes). On the device machine, from the repo root:
#   export ASIM_SCRIPT_REV=$(git rev-parse --short HEAD)   # (or the commit the copy came from)
#   bash validation/hw/next_batch.sh pairs  $OUT   # l2_pairs timed, then under ncu (~5 min)
#   bash validation/hw/next_batch.sh slices $OUT   # l2_slice_map under ncu, 8 parts (~5 min)
#   bash validation/hw/next_batch.sh membw  $OUT   # mem_bw's read points under ncu (~3 min)
#   bash validation/hw/next_batch.sh dram   $OUT   # dram_bank: which lines share a bank (~1 min)
# Each part builds what it runs. What comes back, and how to read it:
#   pairs:  OUT/micro_l2_pairs.csv, OUT/ncu_l2/l2_pairs_raw.csv
#           -> validation/data/h200/, then `python3 validation/l2_hot_ncu.py pairs`
#   slices: OUT/ncu_l2/l2_slice_map_{launches,ncu}_K.csv, K = 0..7
#           -> `python3 validation/l2_slice_map.py OUT/ncu_l2/l2_slice_map_launches_0.csv
#               OUT/ncu_l2/l2_slice_map_ncu_0.csv ...` (every K)
#   dram:   OUT/micro_dram_bank.csv -> validation/data/h200/, then `python3 validation/dram_bank.py`
#   membw:  OUT/micro_mem_bw_ncu_points.csv (the points, one launch each), OUT/ncu_l2/mem_bw_raw.csv
#           -> `python3 validation/l2_hot_ncu.py mem_bw` (reads micro_mem_bw.csv's point order,
#               which the ncu run repeats)
# Method lines: validation/hw/micro.sh (l2_pairs, l2_slice_map, mem_bw, dram_bank); the ncu metrics are
# l2_hot's (validation/README.md, "Shared tiles").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-/tmp/asim_micro_build}
part=${1:?usage: next_batch.sh pairs|slices|membw|dram OUT}
OUT=${2:?usage: next_batch.sh pairs|slices|membw|dram OUT}
mkdir -p "$OUT/ncu_l2"
NCU="ncu --clock-control none --cache-control none --csv --print-units base"
L2_METRICS=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__cycles_elapsed.avg,lts__lts2xbar_cycles_active.sum,lts__d_sectors.sum,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__m_xbar2l1tex_read_bytes.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,sm__cycles_elapsed.avg.per_second

build() { MICRO_NAMES="$1" bash "$HERE/micro.sh" build; }

case "$part" in
  pairs)
    build l2_pairs
    MICRO_NAMES=l2_pairs MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT"
    L2PAIRS_NCU=1 timeout 300 $NCU --kernel-name l2_pairs_kernel --metrics "$L2_METRICS" \
      --log-file "$OUT/ncu_l2/l2_pairs_raw.csv" "$BUILD/l2_pairs" > "$OUT/ncu_l2/l2_pairs_points.csv"
    echo "--- l2_pairs ncu rc=$?"
    ;;
  slices)
    build l2_slice_map
    for k in 0 1 2 3 4 5 6 7; do
      L2MAP_PART=$k timeout 120 $NCU --kernel-name probe --print-metric-instances values \
        --metrics lts__t_requests_srcunit_tex_op_read.sum \
        --log-file "$OUT/ncu_l2/l2_slice_map_ncu_$k.csv" "$BUILD/l2_slice_map" \
        > "$OUT/ncu_l2/l2_slice_map_launches_$k.csv"
      echo "--- l2_slice_map part $k rc=$? ($(wc -l < "$OUT/ncu_l2/l2_slice_map_launches_$k.csv") lines)"
    done
    ;;
  membw)
    build mem_bw
    MEMBW_NCU=1 timeout 400 $NCU --kernel-name read_kernel --metrics "$L2_METRICS,dram__bytes_read.sum" \
      --log-file "$OUT/ncu_l2/mem_bw_raw.csv" "$BUILD/mem_bw" > "$OUT/micro_mem_bw_ncu_points.csv"
    echo "--- mem_bw ncu rc=$?"
    ;;
  dram)
    build dram_bank
    MICRO_NAMES=dram_bank MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT"
    ;;
  *) echo "usage: $0 pairs|slices|membw|dram OUT"; exit 2 ;;
esac
