#!/usr/bin/env bash
# The H200 runs prepared while no device was lent (nineteenth and twentieth sessions), in three
# parts that each fit one device command (10 minutes). On the device machine, from the repo root:
#   export ASIM_SCRIPT_REV=$(git rev-parse --short HEAD)   # (or the commit the copy came from)
#   bash validation/hw/next_batch.sh pairs  $OUT   # l2_pairs timed, then under ncu (~5 min)
#   bash validation/hw/next_batch.sh slices $OUT   # l2_slice_map under ncu, sets then pairs (~3 min)
#   bash validation/hw/next_batch.sh membw  $OUT   # mem_bw's read points under ncu (~3 min)
#   bash validation/hw/next_batch.sh dram   $OUT   # dram_bank: which lines share a bank (~1 min)
#   bash validation/hw/next_batch.sh tmabw  $OUT   # tma_bw's L2 points under ncu (~3 min)
#   bash validation/hw/next_batch.sh tmabwdram $OUT  # the same with dram__bytes_read.sum (~3 min)
#   bash validation/hw/next_batch.sh slicebits $OUT   # same-slice pairs over address bits 1-13 (~1 min)
#   bash validation/hw/next_batch.sh ceiling $OUT     # one SM / TPC / chip with 1-8 CTAs per SM, timed and ncu (~1 min)
#     (CEILING_POINTS="layout:C:S:skew;..." CEIL_NAME=NAME: other points, into micro_NAME.csv)
#   bash validation/hw/next_batch.sh burst $OUT       # cta_start.cu's start-up bursts under ncu (~4 min)
#   bash validation/hw/next_batch.sh firstround $OUT  # first_round.cu: a GEMM prologue on every SM, timed (~1 min)
#   bash validation/hw/next_batch.sh place $OUT       # cta_place.cu: a first 32 / 8 KB copy on chosen sets of SMs (~1 min)
#   bash validation/hw/next_batch.sh tmapart $OUT     # tma_partition.cu: l2_partition with 128-B TMA loads, helpers SM 0 and 2 (~1 min)
#   bash validation/hw/next_batch.sh tmacold $OUT     # tma_partition.cu --cold: each line's DRAM miss from every SM, near and far homes (~2 min)
#   bash validation/hw/next_batch.sh linemap $OUT     # tma_linemap.cu: every line of 1 MiB by TMA 2-D boxes of 1 / 2 / 64 rows and by bulk copy (~1 min)
#   bash validation/hw/next_batch.sh latsmem $OUT     # tma_latency.cu --smem-coords: the curve without the every-fourth-sample artefact (~2 min)
#   bash validation/hw/next_batch.sh placencu $OUT    # cta_place.cu under ncu: per-slice max / mean of the sectors each set's copies ask (~2 min)
#   bash validation/hw/next_batch.sh loaded $OUT      # loaded_latency.cu: one line's latency (DRAM / L2) while every SM streams from DRAM (~1 min)
#   bash validation/hw/next_batch.sh depth $OUT       # tma_bw.cu --depth: DRAM GB/s against bytes in flight per SM, by copy size (~1 min)
#   bash validation/hw/next_batch.sh loadedquiet $OUT # loaded_latency.cu --quiet 8: probes on SMs that do not stream beside those that do (~1 min)
#   bash validation/hw/next_batch.sh hitstream $OUT   # loaded_latency.cu --hit-stream: the probes while every SM streams L2 hits (~1 min)
#   bash validation/hw/next_batch.sh hitquiet $OUT    # the same with --quiet 8: quiet SMs' probes beside the streaming ones' (~1 min)
#   bash validation/hw/next_batch.sh persm $OUT       # --per-sm under both streams: each SM's probe quantiles (~1 min)
#   bash validation/hw/next_batch.sh loadedncu $OUT   # loaded_latency's l2hot launches under ncu, both streams: fabric sectors, slice balance (~3 min)
#   LOADED_STREAM_SMS=0,2,... PART_TAG=T bash validation/hw/next_batch.sh partncu $OUT  # only those SMs stream hits, under ncu (~1 min)
#   bash validation/hw/next_batch.sh pitch3 $OUT      # l2_stride_retain.py with rows 3 / 6 / 12 lines apart, against 2 / 4 / 16 (~1 min)
#   bash validation/hw/next_batch.sh halfmap $OUT     # which SMs read hits from SM 0's half of the slices, under ncu (~6 min; with the chip's sm_map)
#   bash validation/hw/next_batch.sh gpcquiet $OUT    # --per-sm --hit-stream, only some SMs stream (GPCs 1-4 / even SMs / GPC 1's even): do quiet GPCs' loads wait? (~3 min)
#   bash validation/hw/next_batch.sh ring $OUT        # tma_ring.cu: tma_bw's bulk ring timed copy by copy and CTA by CTA (~1 min)
#   bash validation/hw/next_batch.sh l2hot $OUT       # l2_hot.cu timed, then every point under ncu (another chip's merging; ~3 min)
#   bash validation/hw/next_batch.sh l2hotrows $OUT   # l2_hot.cu L2HOT_ROWS=1: one thread's ring against the box's rows (~1 min)
#   bash validation/hw/next_batch.sh launch $OUT      # launch.cu under ncu, cold and warm (ncu_launch.py: sm.kernel_launch_cycles; ~1 min)
#   bash validation/hw/next_batch.sh l2half $OUT      # l2_half.cu: one partition group's SMs alone read 4/25-24/25 of the L2, timed and under ncu (~3 min)
#     (L2HALF_MIB=a,b,... other footprints, L2HALF_ONLY=all,C,... fewer reader sets,
#      L2HALF_C=... / L2HALF_D=... another chip's slice halves, from its own halfmap run)
# Each part builds what it runs. What comes back, and how to read it:
#   pairs:  OUT/micro_l2_pairs.csv, OUT/ncu_l2/l2_pairs_raw.csv
#           -> validation/data/h200/, then `python3 validation/l2_hot_ncu.py pairs`
#   slices: OUT/ncu_l2/l2_slice_map_{set,pair}_{launches,ncu}.csv
#           -> validation/data/h200/ncu_l2/, then `python3 validation/l2_slice_map.py`
#   dram:   OUT/micro_dram_bank.csv -> validation/data/h200/, then `python3 validation/dram_bank.py`
#   tmabw:  OUT/ncu_l2/tma_bw_raw.csv -> `python3 validation/l2_hot_ncu.py tma_bw` (6 launches a point)
#   tmabwdram: OUT/ncu_l2/tma_bw_dram_raw.csv (+ _provenance.txt) -> `python3 validation/l2_hot_ncu.py tma_bw_dram`
#   burst:  OUT/micro_cta_start_ncu_points.csv (cta_start.cu's rows, timed under ncu), OUT/ncu_l2/
#           cta_start_raw.csv (per launch, in the rows' order: 6 launches a row, the first the
#           warm-up): whether the L2 slices (lts__t_sectors, lts2xbar cycles) or something before
#           them bound the 132-CTA bursts the model serves 13-17 % fast (no script yet; the
#           l2 rows are the ones to read: a dram row's counters come from a warm L2 if ncu
#           replays the kernel for a second pass)
#   firstround: OUT/micro_first_round.csv -> validation/data/h200/, then
#           `python3 validation/first_round.py build/asyncsim` (what the first stages of a GEMM's first
#           round wait for: tensor maps, lines many SMs ask for at once, the cold start)
#   loaded: OUT/micro_loaded_latency.csv -> validation/data/h200/, then
#           `asyncsim micro loaded_latency --compare validation/data/h200/micro_loaded_latency.csv`
#   loadedquiet: OUT/micro_loaded_latency_quiet.csv -> validation/data/h200/ (probe_quiet against
#           probe_stream rows of the same launches: validation/README.md, "One line's latency ...")
#   hitstream: OUT/micro_loaded_latency_hitstream.csv -> validation/data/h200/, then `asyncsim micro
#           loaded_latency --compare validation/data/h200/micro_loaded_latency_hitstream.csv`
#   hitquiet: OUT/micro_loaded_latency_hitquiet.csv -> validation/data/h200/ (PROBE_hitquiet against
#           PROBE_hitbusy rows of the same launches)
#   gpcquiet: OUT/micro_sm_map.csv (this chip's map), OUT/micro_loaded_latency_{gpc1234,tpceven,gpc1even}.csv (or GPCQUIET_SETS's) (per SM rows as persm's) -> validation/data/h200/
#           (or h100/), then `python3 validation/loaded_per_sm.py --quiet-sets FILE...`
#   persm:  OUT/micro_loaded_latency_hitstream_sm.csv, OUT/micro_loaded_latency_sm.csv -> validation/data/h200/
#           (columns probe,slots,smid,samples,p10,median,p90,stream_us)
#   l2hot:  OUT/micro_l2_hot.csv, OUT/ncu_l2/l2_hot_raw.csv (+ l2_hot_provenance.txt) -> validation/data/<chip>/,
#           then `python3 validation/l2_hot_ncu.py --data validation/data/<chip>` (what the coalescer merged per point)
#   l2hotrows: OUT/micro_l2_hot_rows.csv -> validation/data/<chip>/, then `asyncsim micro l2_hot [--gpu h100]
#           --compare FILE --max-bytes 536870912` (cycles a copy = box bytes / (GB/s per SM) at the SM clock)
#   launch: OUT/micro_launch.csv -> validation/data/<chip>/, then `python3 validation/fit/fit_launch.py
#           build/asyncsim --gpu <chip>` (that chip's sm.kernel_launch_cycles, as the H200's was fitted)
#   loadedncu: OUT/ncu_l2/loaded_{hitstream,dram}_{raw,points}.csv (+ loaded_ncu_provenance.txt): per launch,
#           fabric sectors against the SMs' sectors and the busiest / idlest slice's requests
#   depth:  OUT/micro_tma_bw_depth.csv -> validation/data/h200/, then
#           `asyncsim micro tma_bw --compare validation/data/h200/micro_tma_bw_depth.csv --max-bytes 0`
#   pitch3: OUT/micro_l2_stride_retain_pitch3.csv -> validation/data/h200/, then `asyncsim micro
#           l2_stride_retain --compare FILE --max-bytes 536870912 [--set l2.hash_rotate_residue=true]`
#   ring:   OUT/micro_tma_ring.csv -> validation/data/h200/, then `python3 validation/tma_ring.py build/asyncsim`
#   membw:  OUT/micro_mem_bw_ncu_points.csv (the points, one launch each), OUT/ncu_l2/mem_bw_raw.csv
#           -> `python3 validation/l2_hot_ncu.py mem_bw` (reads micro_mem_bw.csv's point order,
#               which the ncu run repeats)
# Method lines: validation/hw/micro.sh (l2_pairs, l2_slice_map, mem_bw, dram_bank); the ncu metrics are
# l2_hot's (validation/README.md, "Shared tiles").
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-/tmp/asim_micro_build}
USAGE="usage: next_batch.sh pitch3|l2half|l2hot|l2hotrows|launch|pairs|slices|slicebits|ceiling|burst|firstround|place|placencu|tmacold|tmapart|linemap|latsmem|loaded|loadedquiet|hitstream|hitquiet|persm|loadedncu|partncu|halfmap|gpcquiet|depth|ring|membw|dram|tmabw|tmabwdram OUT"
part=${1:?$USAGE}
OUT=${2:?$USAGE}
mkdir -p "$OUT/ncu_l2"
NCU="ncu --clock-control none --cache-control none --csv --print-units base"
SLICE_METRICS=lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min,lts__t_requests_srcunit_ltcfabric.sum,lts__t_requests_srcunit_ltcfabric.max
L2_METRICS=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__cycles_elapsed.avg,lts__lts2xbar_cycles_active.sum,lts__d_sectors.sum,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__m_xbar2l1tex_read_bytes.sum,gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,sm__cycles_elapsed.avg.per_second
LOADED_METRICS="$L2_METRICS,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min,lts__t_requests_srcunit_ltcfabric.sum,dram__bytes_read.sum"

build() { MICRO_NAMES="$1" bash "$HERE/micro.sh" build; }
# timed NAME: build and run one micro.sh benchmark, its CSV into OUT/micro_NAME.csv.
timed() {
  build "$1"
  MICRO_NAMES="$1" MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT"
}
# tma_bw_ncu TAG EXTRA_METRICS: tma_bw's L2 points (16 of them, after the 16 DRAM points' 96
# launches) under ncu, each point's warm-up and 5 timed launches, in the order of
# micro_tma_bw.csv's l2 rows; counters into OUT/ncu_l2/tma_bw${TAG}_raw.csv.
tma_bw_ncu() {
  local tag=$1 extra=$2
  build tma_bw
  python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "tma_bw.cu (validation/hw/micro.sh's tma_bw line) under ncu --cache-control none with the l2_hot metrics${extra:+ and ${extra#,}}, --kernel-name regex:tma_bw_kernel --launch-skip 96 (the DRAM points' launches): the 16 L2 points, 6 launches each (warm-up, 5 timed)" > "$OUT/ncu_l2/tma_bw${tag}_provenance.txt"
  profile "tma_bw$tag ncu" 500 "$OUT/ncu_l2/tma_bw${tag}_raw.csv" "$OUT/micro_tma_bw${tag}_ncu_points.csv" \
    --kernel-name regex:tma_bw_kernel --launch-skip 96 --metrics "$L2_METRICS$extra" "$BUILD/tma_bw"
}
# profile LABEL TIMEOUT LOG POINTS NCU-OPTIONS... BINARY: the binary under ncu, its counters into
# LOG, its own output into POINTS, then the exit code labelled.
profile() {
  local label=$1 limit=$2 log=$3 points=$4
  shift 4
  timeout "$limit" $NCU "${@:1:$#-1}" --log-file "$log" "${@: -1}" > "$points"
  echo "--- $label rc=$?"
}
CEILING_POINTS=${CEILING_POINTS:-"one:1:1:0;one_tpc:1:1:0;one_tpc_split:1:1:0;one:1:8:0;one:1:2:0;one:2:4:0;one:3:4:0;one:4:3:0;one:8:1:0;one:2:1:0;one:4:2:0;one_tpc:1:8:0;one_tpc:2:4:0;one_tpc:4:3:0;one_tpc_split:1:8:0;one_tpc_split:2:4:0;one_tpc_split:4:3:0;even:1:8:0;even:2:4:0;even:4:3:0;gpc0:1:8:0;gpc0:2:4:0;gpc0:4:3:0;chip:2:4:0;chip:3:4:0;chip:4:3:0;tpc:2:4:0;tpc:4:3:0;sm:2:4:0;sm:4:3:0"}
CEIL_NAME=${CEIL_NAME:-l2_ceiling}

case "$part" in
  pairs)
    build l2_pairs
    MICRO_NAMES=l2_pairs MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT"
    L2PAIRS_NCU=1 profile "l2_pairs ncu" 300 "$OUT/ncu_l2/l2_pairs_raw.csv" "$OUT/ncu_l2/l2_pairs_points.csv" \
      --kernel-name l2_pairs_kernel --metrics "$L2_METRICS" "$BUILD/l2_pairs"
    ;;
  slices)
    build l2_slice_map
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "l2_slice_map.cu (second version; validation/hw/micro.sh's l2_slice_map line) under ncu --cache-control none with $SLICE_METRICS, --kernel-name regex:probe, L2MAP_KIND=set then pair" > "$OUT/ncu_l2/l2_slice_map_provenance.txt"
    command -v cuobjdump > /dev/null && cuobjdump -sass "$BUILD/l2_slice_map" > "$OUT/l2_slice_map.sass" 2>&1
    for kind in set pair; do
      L2MAP_KIND=$kind timeout 270 $NCU --kernel-name regex:probe --metrics "$SLICE_METRICS" \
        --log-file "$OUT/ncu_l2/l2_slice_map_${kind}_ncu.csv" "$BUILD/l2_slice_map" \
        > "$OUT/ncu_l2/l2_slice_map_${kind}_launches.csv"
      echo "--- l2_slice_map $kind rc=$? ($(wc -l < "$OUT/ncu_l2/l2_slice_map_${kind}_launches.csv") lines)"
    done
    ;;
  slicebits)
    # Pairs among line 0 and the lines with one or two of address bits 1-13 set (line units).
    build l2_slice_map
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "l2_slice_map.cu (second version) pair launches with L2MAP_PAIRS=bits under ncu --cache-control none with $SLICE_METRICS, --kernel-name regex:probe" > "$OUT/ncu_l2/l2_slice_map_pairbits_provenance.txt"
    L2MAP_KIND=pair L2MAP_PAIRS=bits timeout 400 $NCU --kernel-name regex:probe --metrics "$SLICE_METRICS" \
      --log-file "$OUT/ncu_l2/l2_slice_map_pairbits_ncu.csv" "$BUILD/l2_slice_map" \
      > "$OUT/ncu_l2/l2_slice_map_pairbits_launches.csv"
    echo "--- l2_slice_map pairbits rc=$? ($(wc -l < "$OUT/ncu_l2/l2_slice_map_pairbits_launches.csv") lines)"
    ;;
  ceiling)
    # What one SM, one TPC and the chip receive from L2 with 1-8 CTAs per SM (l2_pairs' tile
    # rings; new layouts one, one_tpc, one_tpc_split, even, gpc0): timed, then under ncu.
    build l2_pairs
    export L2PAIRS_POINTS="$CEILING_POINTS"
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "l2_pairs.cu (validation/hw/micro.sh's l2_pairs line) with L2PAIRS_POINTS=$CEILING_POINTS (layout:C:S:skew; one = SM 0 alone, one_tpc = SMs 0 and 1 reading the same tiles, one_tpc_split = each its own, even = SMs 2t all reading the same tiles, gpc0 = SM 0's GPC reading the same tiles)" > "$OUT/hdr.txt"
    timeout 300 "$BUILD/l2_pairs" > "$OUT/pts.csv" 2> "$OUT/l2_pairs_ceiling.err"
    echo "--- l2_pairs ceiling rc=$?"
    cat "$OUT/hdr.txt" "$OUT/pts.csv" > "$OUT/micro_$CEIL_NAME.csv"; rm -f "$OUT/hdr.txt" "$OUT/pts.csv"
    L2PAIRS_NCU=1 profile "l2_pairs ceiling ncu" 270 "$OUT/ncu_l2/${CEIL_NAME}_raw.csv" \
      "$OUT/ncu_l2/${CEIL_NAME}_points.csv" --kernel-name l2_pairs_kernel --metrics "$L2_METRICS" "$BUILD/l2_pairs"
    ;;
  burst)
    # Every CTA's first bulk copy at kernel start (cta_start.cu, all its rows) under ncu, so that
    # a launch's L2 and crossbar counters go with its time (validation/README.md, "A CTA's first
    # load at kernel start"). --cache-control none keeps the l2 rows' warm L2.
    build cta_start
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "cta_start.cu (validation/hw/micro.sh's cta_start line) under ncu --cache-control none with the l2_hot metrics, --kernel-name first_load_kernel: every launch of every row (6 a row, the first dropped by the .cu)" > "$OUT/ncu_l2/cta_start_provenance.txt"
    profile "cta_start ncu" 500 "$OUT/ncu_l2/cta_start_raw.csv" "$OUT/micro_cta_start_ncu_points.csv" \
      --kernel-name first_load_kernel --metrics "$L2_METRICS" "$BUILD/cta_start"
    ;;
  l2hot)
    timed l2_hot
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "l2_hot.cu (validation/hw/micro.sh's l2_hot line) with L2HOT_NCU=1 under ncu --cache-control none with the l2_hot metrics, --kernel-name l2_hot_kernel: per point its warm-up launch and one measured launch" > "$OUT/ncu_l2/l2_hot_provenance.txt"
    L2HOT_NCU=1 profile "l2_hot ncu" 300 "$OUT/ncu_l2/l2_hot_raw.csv" "$OUT/micro_l2_hot_ncu_points.csv" \
      --kernel-name l2_hot_kernel --metrics "$L2_METRICS" "$BUILD/l2_hot"
    ;;
  l2hotrows)
    # l2_hot.cu with L2HOT_ROWS=1: one thread's ring of 2-32 KB boxes (16-256 rows), merged and not
    build l2_hot
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[l2_hot L2HOT_ROWS=1] l2_hot.cu (validation/hw/micro.sh's l2_hot line): 1 CTA per SM, one issuing thread, 8 slots (6 for 256 rows; 16 for two more rows), boxes of 64 fp16 x R rows (R = 16-256) of a 16 MiB L2-resident tensor with 4096-B pitch, every CTA the same tiles (group 0 = all) or its own (1); CUDA events, a warm-up then the median of 5" > "$OUT/micro_l2_hot_rows.csv"
    L2HOT_ROWS=1 timeout 240 "$BUILD/l2_hot" >> "$OUT/micro_l2_hot_rows.csv" || echo "l2_hot rows failed: $?"
    ;;
  launch)
    build launch
    timeout 400 python3 "$HERE/ncu_launch.py" "$BUILD/launch" "$OUT/micro_launch.csv"
    echo "--- launch ncu rc=$?"
    ;;
  firstround) timed first_round ;;
  place) timed cta_place ;;
  placencu)
    # Is the all-132 burst (1339 cycles against 1113-1240 for one GPC) bound by the busiest
    # slice? The sectors each slice serves per launch, as sum, max, min and mean over the lts
    # units, with the lts-to-crossbar busy cycles (validation/README.md, A CTA's first load on
    # chosen SMs).
    build cta_place
    PLACE_METRICS=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.max,lts__t_sectors_srcunit_tex_op_read.min,lts__t_sectors_srcunit_tex_op_read.avg,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lts__lts2xbar_cycles_active.sum,lts__lts2xbar_cycles_active.max,lts__cycles_elapsed.avg,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "cta_place.cu (validation/hw/micro.sh's cta_place line) under ncu --cache-control none with $PLACE_METRICS, --kernel-name placed_load_kernel: every launch of every set (6 a set, the first the warm-up), sets and sizes in the order the .cu prints them" > "$OUT/ncu_l2/cta_place_provenance.txt"
    profile "cta_place ncu" 400 "$OUT/ncu_l2/cta_place_raw.csv" "$OUT/micro_cta_place_ncu_points.csv" \
      --kernel-name placed_load_kernel --metrics "$PLACE_METRICS" "$BUILD/cta_place"
    ;;
  linemap) timed tma_linemap ;;
  latsmem)
    # tma_latency with its coordinates in shared memory (no timed global load): the curve
    # without the every-fourth-sample artefact, into micro_tma_latency_smemcoords.csv
    build tma_latency
    MICRO_NAMES=tma_latency MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT/smem" "--smem-coords"
    mv "$OUT/smem/micro_tma_latency.csv" "$OUT/micro_tma_latency_smemcoords.csv"
    rm -rf "$OUT/smem"
    ;;
  tmacold)
    # tma_partition.cu --cold: each line's DRAM miss by TMA 2-D and by ld.global.cg from every
    # SM, with pass 0 telling which lines are far (helpers SM 0 and SM 2)
    build tma_partition
    for hp in 0 2; do
      MICRO_NAMES=tma_partition MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT/cold$hp" "--cold --helper $hp"
      mv "$OUT/cold$hp/micro_tma_partition.csv" "$OUT/micro_tma_partition_cold_helper$hp.csv"
      rm -rf "$OUT/cold$hp"
    done
    ;;
  tmapart)
    # helper SM 0 (micro_tma_partition.csv), then helper SM 2 of the other partition; the chip's
    # SM map first (micro_sm_map.csv: each call may get another chip, see gpcquiet)
    timed sm_map
    timed tma_partition
    MICRO_NAMES=tma_partition MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT/helper2" "--helper 2"
    mv "$OUT/helper2/micro_tma_partition.csv" "$OUT/micro_tma_partition_helper2.csv"
    ;;
  ring) timed tma_ring ;;
  loaded) timed loaded_latency ;;
  loadedquiet)
    # loaded_latency.cu --quiet 8: every eighth CTA only probes while the others stream and probe
    # (is the queue a probe waits in its own SM's, or the memory system's?)
    build loaded_latency
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[loaded_latency --quiet 8] loaded_latency.cu (validation/hw/micro.sh's loaded_latency line) with CTAs c, c mod 8 = 0, probing only (no stream) and the other CTAs streaming and probing: probes dram and l2hot, S = 0, 2, 4, 6, 8, 16, 3 launches a point; a sample counts if it ended (%globaltimer) before the first streaming CTA's stream did; rows PROBE_quiet and PROBE_stream from the same launches; stream_gbps over the streaming CTAs' bytes" > "$OUT/micro_loaded_latency_quiet.csv"
    timeout 240 "$BUILD/loaded_latency" --quiet 8 >> "$OUT/micro_loaded_latency_quiet.csv" || echo "loaded_latency --quiet failed: $?"
    ;;
  hitstream)
    # loaded_latency.cu --hit-stream: the stream re-reads an 8 MiB region resident in L2, so the
    # probes see the load of L2 hits on the fabric and the slices, not the DRAM's
    build loaded_latency
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[loaded_latency --hit-stream] loaded_latency.cu (validation/hw/micro.sh's loaded_latency line) with the stream over an 8 MiB region every SM read before each launch (copy n of CTA c = unit (c + n * grid) mod 1024 of 8 KB; the flush, the probe region's read, then the stream region's): probes dram and l2hot, rows PROBE_hitstream, S = 0, 1, 2, 3, 4, 6, 8, 16, 3 launches a point" > "$OUT/micro_loaded_latency_hitstream.csv"
    timeout 240 "$BUILD/loaded_latency" --hit-stream >> "$OUT/micro_loaded_latency_hitstream.csv" || echo "loaded_latency --hit-stream failed: $?"
    ;;
  hitquiet)
    # loaded_latency.cu --quiet 8 --hit-stream: under a stream of L2 hits, does a probe wait at its
    # own SM (only PROBE_hitbusy slows) or where all SMs meet (PROBE_hitquiet slows alike)?
    build loaded_latency
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[loaded_latency --quiet 8 --hit-stream] loaded_latency.cu (validation/hw/micro.sh's loaded_latency line) with the stream over an 8 MiB region every SM read before each launch (copy n of CTA c = unit (c + n * grid) mod 1024 of 8 KB) by the CTAs c, c mod 8 != 0 (they probe too: rows PROBE_hitbusy); CTAs c mod 8 = 0 only probe (rows PROBE_hitquiet); probes dram and l2hot, S = 0, 2, 4, 6, 8, 16, 3 launches a point; a sample counts if it ended (%globaltimer) before the first streaming CTA's stream did" > "$OUT/micro_loaded_latency_hitquiet.csv"
    timeout 240 "$BUILD/loaded_latency" --quiet 8 --hit-stream >> "$OUT/micro_loaded_latency_hitquiet.csv" || echo "loaded_latency --quiet 8 --hit-stream failed: $?"
    ;;
  persm)
    # loaded_latency.cu --per-sm, under a stream of L2 hits and under the DRAM stream: each SM's
    # probe quantiles (do some SMs' loads wait and others' not?)
    build loaded_latency
    for mode in hitstream dram; do
      flag=$([ $mode = hitstream ] && echo --hit-stream)
      file=$([ $mode = hitstream ] && echo micro_loaded_latency_hitstream_sm.csv || echo micro_loaded_latency_sm.csv)
      python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[loaded_latency --per-sm $flag] loaded_latency.cu (validation/hw/micro.sh's loaded_latency line${flag:+, the stream over an 8 MiB region every SM read before each launch}): probes dram and l2hot, S = 0, 1, 2, 3, 4, 6, 8, 16, 3 launches a point; one row per SM (smid) and point: its probe samples of the three launches (p10, median, p90) and the mean of its stream's %globaltimer span (stream_us)" > "$OUT/$file"
      timeout 240 "$BUILD/loaded_latency" --per-sm $flag >> "$OUT/$file" || echo "loaded_latency --per-sm $flag failed: $?"
    done
    ;;
  loadedncu)
    # loaded_latency.cu's l2hot launches under ncu, under the stream of L2 hits (--hit-stream) and
    # under the DRAM stream: how many sectors reach the slices across the fabric between the two
    # partitions (lts__t_sectors_srcunit_ltcfabric) against those the SMs ask
    # (lts__t_sectors_srcunit_tex_op_read), and how evenly the slices are asked (.max / .min)
    build loaded_latency
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "loaded_latency.cu (validation/hw/micro.sh's loaded_latency line) under ncu --cache-control none with the l2_hot metrics and lts__t_requests_srcunit_tex_op_read.max/.min, lts__t_requests_srcunit_ltcfabric.sum, --kernel-name regex:loaded_kernel: with --hit-stream launches 24-47 (probe l2hot, S = 0, 1, 2, 3, 4, 6, 8, 16, 3 launches each), without it launches 72-95 (probe l2hot likewise); the run's own rows (timed under ncu) in the _points files" > "$OUT/ncu_l2/loaded_ncu_provenance.txt"
    timeout 240 $NCU --kernel-name regex:loaded_kernel --launch-skip 24 --launch-count 24 --metrics "$LOADED_METRICS" \
      --log-file "$OUT/ncu_l2/loaded_hitstream_raw.csv" "$BUILD/loaded_latency" --hit-stream > "$OUT/ncu_l2/loaded_hitstream_points.csv"
    echo "--- loaded --hit-stream ncu rc=$?"
    timeout 240 $NCU --kernel-name regex:loaded_kernel --launch-skip 72 --launch-count 24 --metrics "$LOADED_METRICS" \
      --log-file "$OUT/ncu_l2/loaded_dram_raw.csv" "$BUILD/loaded_latency" > "$OUT/ncu_l2/loaded_dram_points.csv"
    echo "--- loaded ncu rc=$?"
    ;;
  partncu)
    # loaded_latency.cu --hit-stream under ncu with only the SMs of LOADED_STREAM_SMS streaming (one
    # partition group's, say): do one partition's SMs load only their partition's slices?
    # PART_TAG names the files: OUT/ncu_l2/loaded_hit_${PART_TAG}_{raw,points}.csv
    build loaded_latency
    : "${LOADED_STREAM_SMS:?set LOADED_STREAM_SMS=a,b,...}" "${PART_TAG:?set PART_TAG}"
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "loaded_latency.cu --hit-stream (validation/hw/micro.sh's loaded_latency line) with LOADED_STREAM_SMS=$LOADED_STREAM_SMS (only those SMs stream; every SM probes) under ncu --cache-control none with the l2_hot metrics and lts__t_requests_srcunit_tex_op_read.max/.min, lts__t_requests_srcunit_ltcfabric.sum, --kernel-name regex:loaded_kernel, launches (skip, count) ${PART_LAUNCHES:-36 12} of the 48 (24-47: probe l2hot at S = 0, 1, 2, 3, 4, 6, 8, 16, 3 launches each)${NCU_EXTRA:+, ncu options $NCU_EXTRA}" > "$OUT/ncu_l2/loaded_hit_${PART_TAG}_provenance.txt"
    # PART_LAUNCHES="SKIP COUNT" (default "36 12": S = 4-16); NCU_EXTRA: more ncu options (say
    # --print-metric-instances values, for each slice's own count)
    read -r pskip pcount <<< "${PART_LAUNCHES:-36 12}"
    LOADED_STREAM_SMS="$LOADED_STREAM_SMS" timeout 240 $NCU --kernel-name regex:loaded_kernel --launch-skip "$pskip" --launch-count "$pcount" ${NCU_EXTRA:-} \
      --metrics "$LOADED_METRICS" --log-file "$OUT/ncu_l2/loaded_hit_${PART_TAG}_raw.csv" "$BUILD/loaded_latency" --hit-stream \
      > "$OUT/ncu_l2/loaded_hit_${PART_TAG}_points.csv"
    echo "--- loaded --hit-stream $PART_TAG ncu rc=$?"
    ;;
  gpcquiet)
    # loaded_latency.cu --per-sm --hit-stream with only some SMs streaming L2 hits (LOADED_STREAM_SMS);
    # every SM probes, and the SMs that do not stream keep the samples that ended before the first
    # streaming CTA's stream did. Where does a load wait under a load of hits: where the streaming
    # SMs' responses queue (their GPC's or TPC's port: only their neighbours wait) or where every
    # SM's requests meet (the slices: every SM waits)? Three sets, GPCs by sm.tpc_gpcs
    # (micro_sm_map.csv, the same on the H100 and the H200):
    #   gpc1234: all 64 SMs of GPCs 1-4 stream; GPCs 0, 5, 6, 7 and the side unit are quiet
    #   tpceven: the even SM of every TPC streams (66), its odd partner is quiet
    #   gpc1even: the 8 even SMs of GPC 1 stream; GPC 1's odd SMs and every other GPC are quiet
    #   gpc1, gpc12, gpc14 (GPCQUIET_SETS="gpc1 gpc12 gpc14"): all SMs of GPC 1, of GPCs 1 and 2
    #   (one half of the slices), of GPCs 1 and 4 (one GPC of each half); gpc6 (its 18 SMs: does
    #   the GPC hold them under the ~73 GB/s each that 16 reach?), gpc0 (8 SMs and the side unit's 8),
    #   gpc2 ... gpc7: each GPC alone, for the map of which GPCs a congested one makes wait;
    #   gpc6x, gpc7x: GPCs 6 and 7 without TPCs 60 and 61 (SMs 120-123), 16 SMs each
    # Each call may get another chip, whose SMs may sit in other GPCs: its own SM map first
    # (micro_sm_map.csv; python3 validation/sm_map.py FILE), so the sets can be read by it.
    timed sm_map
    build loaded_latency
    for set in ${GPCQUIET_SETS:-gpc1234 tpceven gpc1even}; do
      case $set in
        gpc1) sms=2,3,18,19,34,35,50,51,64,65,78,79,92,93,106,107 ;;
        gpc12) sms=2,3,4,5,18,19,20,21,34,35,36,37,50,51,52,53,64,65,66,67,78,79,80,81,92,93,94,95,106,107,108,109 ;;
        gpc14) sms=2,3,8,9,18,19,24,25,34,35,40,41,50,51,56,57,64,65,70,71,78,79,84,85,92,93,98,99,106,107,112,113 ;;
        gpc2) sms=4,5,20,21,36,37,52,53,66,67,80,81,94,95,108,109 ;;
        gpc3) sms=6,7,22,23,38,39,54,55,68,69,82,83,96,97,110,111 ;;
        gpc4) sms=8,9,24,25,40,41,56,57,70,71,84,85,98,99,112,113 ;;
        gpc5) sms=10,11,26,27,42,43,58,59,72,73,86,87,100,101,114,115 ;;
        gpc7) sms=14,15,30,31,46,47,62,63,76,77,90,91,104,105,118,119,122,123 ;;
        gpc6) sms=12,13,28,29,44,45,60,61,74,75,88,89,102,103,116,117,120,121 ;;
        gpc0) sms=0,1,16,17,32,33,48,49,124,125,126,127,128,129,130,131 ;;
        gpc6x) sms=12,13,28,29,44,45,60,61,74,75,88,89,102,103,116,117 ;;
        gpc7x) sms=14,15,30,31,46,47,62,63,76,77,90,91,104,105,118,119 ;;
        gpc1234) sms=2,3,4,5,6,7,8,9,18,19,20,21,22,23,24,25,34,35,36,37,38,39,40,41,50,51,52,53,54,55,56,57,64,65,66,67,68,69,70,71,78,79,80,81,82,83,84,85,92,93,94,95,96,97,98,99,106,107,108,109,110,111,112,113 ;;
        tpceven) sms=$(seq -s, 0 2 130) ;;
        gpc1even) sms=2,18,34,50,64,78,92,106 ;;
        *) echo "gpcquiet: unknown set $set" >&2; continue ;;
      esac
      python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[loaded_latency --per-sm --hit-stream, LOADED_STREAM_SMS=$sms ($set)] loaded_latency.cu (validation/hw/micro.sh's loaded_latency line) with the stream over an 8 MiB region every SM read before each launch, by the listed SMs only; every SM probes (dram and l2hot, S = 0, 1, 2, 3, 4, 6, 8, 16, 3 launches a point); a streaming SM's samples count if they ended before its own stream did, a quiet SM's (stream_us 0) if they ended before the first streaming CTA's stream did (%globaltimer); one row per SM and point (columns probe,slots,smid,samples,p10,median,p90,stream_us)" > "$OUT/micro_loaded_latency_$set.csv"
      LOADED_STREAM_SMS="$sms" timeout 240 "$BUILD/loaded_latency" --per-sm --hit-stream >> "$OUT/micro_loaded_latency_$set.csv" || echo "loaded_latency $set failed: $?"
    done
    ;;
  pitch3)
    # Does the chip keep rows whose pitch is a multiple of 3 lines as well as rows 2 or 4 apart?
    # (l2.hash_rotate_residue: the model as configured puts rows 3 apart into two thirds of the
    # slices.) l2_stride_retain.py with those rows at 24 and 32 MiB (~30 s), its ncu report
    # dropped (13 MB).
    STRIDE_SHAPES="1:2,3,4,6;2:6;4:12,16,20" STRIDE_MIB=24,32 \
      python3 "$HERE/l2_stride_retain.py" "$OUT/micro_l2_stride_retain_pitch3.csv"
    rm -f "$OUT"/micro_l2_stride_retain_pitch3_ncu.ncu-rep
    ;;
  halfmap)
    # Which SMs read hits from the same half of the slices as SM 0: for each SM s (HALF_SMS, default
    # the even SMs 2-130, one per TPC) SMs 0 and s stream L2 hits (S = 16, l2hot launches 45-47) under
    # ncu. Same half: the idlest slice keeps only the probes' requests (~230); other half: every slice
    # gets one SM's share (~+960). Rows: sm0,sm,launch,req_sum,req_max,req_min,fabric_sectors.
    # The chip's SM map first (micro_sm_map.csv: each call may get another chip, see gpcquiet).
    timed sm_map
    build loaded_latency
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[halfmap] loaded_latency.cu --hit-stream with LOADED_STREAM_SMS=0,s for each s under ncu --cache-control none --kernel-name regex:loaded_kernel --launch-skip 45 --launch-count 3 (probe l2hot, S = 16) with lts__t_requests_srcunit_tex_op_read.sum/.max/.min and lts__t_sectors_srcunit_ltcfabric.sum" > "$OUT/micro_l2_halfmap.csv"
    echo "sm0,sm,launch,req_sum,req_max,req_min,fabric_sectors" >> "$OUT/micro_l2_halfmap.csv"
    for s in ${HALF_SMS:-$(seq 2 2 130)}; do
      LOADED_STREAM_SMS="0,$s" timeout 60 $NCU --kernel-name regex:loaded_kernel --launch-skip 45 --launch-count 3 \
        --metrics lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min,lts__t_sectors_srcunit_ltcfabric.sum \
        --log-file "$OUT/halfmap_$s.log" "$BUILD/loaded_latency" --hit-stream > /dev/null
      python3 - "$OUT/halfmap_$s.log" "$s" >> "$OUT/micro_l2_halfmap.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"')))
by = {}
for r in rows:
    by.setdefault(r["ID"], {})[r["Metric Name"]] = r["Metric Value"].replace(",", "")
for i, m in enumerate(by.values()):
    print(f"0,{sys.argv[2]},{i},{m['lts__t_requests_srcunit_tex_op_read.sum']},{m['lts__t_requests_srcunit_tex_op_read.max']},"
          f"{m['lts__t_requests_srcunit_tex_op_read.min']},{m['lts__t_sectors_srcunit_ltcfabric.sum']}")
PY
      rm -f "$OUT/halfmap_$s.log"
    done
    ;;
  l2half)
    # Is a line held at its home slice or in the partition of the SMs that read it? l2_half.cu's
    # reader sets: A / B the model's partitions (far lines, l2.partition1_gpcs and
    # l2.partition1_side_tpcs), C / D the halves of the slices that serve hits
    # (the H100's micro_l2_halfmap.csv: GPCs 0, 4, 5, 6 and the side unit / GPCs 1, 2, 3, 7; on an
    # H200 its own: GPCs 0, 1, 5, 7 and the side unit / 2, 3, 4, 6), by this
    # chip's name under the configs' SM-to-GPC map (the chip's own map first, to check it).
    # Timed, then every launch under ncu: hits, DRAM bytes, sectors across the fabric.
    timed sm_map
    build l2_half
    if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
      export L2HALF_A=0,1,2,3,12,13,14,15,16,17,18,19,28,29,30,31,32,33,34,35,44,45,46,47,48,49,50,51,60,61,62,63,64,65,74,75,76,77,78,79,88,89,90,91,92,93,102,103,104,105,106,107,116,117,118,119,120,121,122,123,124,125,130,131
      export L2HALF_B=4,5,6,7,8,9,10,11,20,21,22,23,24,25,26,27,36,37,38,39,40,41,42,43,52,53,54,55,56,57,58,59,66,67,68,69,70,71,72,73,80,81,82,83,84,85,86,87,94,95,96,97,98,99,100,101,108,109,110,111,112,113,114,115,126,127,128,129
    else
      export L2HALF_A=0,1,6,7,8,9,14,15,16,17,22,23,24,25,30,31,32,33,38,39,40,41,46,47,48,49,54,55,56,57,62,63,68,69,70,71,76,77,82,83,84,85,90,91,96,97,98,99,104,105,110,111,112,113,118,119,122,123,124,125,126,127,130,131
      export L2HALF_B=2,3,4,5,10,11,12,13,18,19,20,21,26,27,28,29,34,35,36,37,42,43,44,45,50,51,52,53,58,59,60,61,64,65,66,67,72,73,74,75,78,79,80,81,86,87,88,89,92,93,94,95,100,101,102,103,106,107,108,109,114,115,116,117,120,121,128,129
      # The H200's own halves of the slices (validation/data/h200/micro_l2_halfmap.csv, forty-second
      # session): GPCs 0, 1, 5, 7 and the side unit / GPCs 2, 3, 4, 6.
      export L2HALF_C=${L2HALF_C:-0,1,2,3,10,11,14,15,16,17,18,19,26,27,30,31,32,33,34,35,42,43,46,47,48,49,50,51,58,59,62,63,64,65,72,73,76,77,78,79,86,87,90,91,92,93,100,101,104,105,106,107,114,115,118,119,122,123,124,125,126,127,128,129,130,131}
      export L2HALF_D=${L2HALF_D:-4,5,6,7,8,9,12,13,20,21,22,23,24,25,28,29,36,37,38,39,40,41,44,45,52,53,54,55,56,57,60,61,66,67,68,69,70,71,74,75,80,81,82,83,84,85,88,89,94,95,96,97,98,99,102,103,108,109,110,111,112,113,116,117,120,121}
    fi
    export L2HALF_C=${L2HALF_C:-0,1,8,9,10,11,12,13,16,17,24,25,26,27,28,29,32,33,40,41,42,43,44,45,48,49,56,57,58,59,60,61,70,71,72,73,74,75,84,85,86,87,88,89,98,99,100,101,102,103,112,113,114,115,116,117,120,121,124,125,126,127,128,129,130,131}
    export L2HALF_D=${L2HALF_D:-2,3,4,5,6,7,14,15,18,19,20,21,22,23,30,31,34,35,36,37,38,39,46,47,50,51,52,53,54,55,62,63,64,65,66,67,68,69,76,77,78,79,80,81,82,83,90,91,92,93,94,95,96,97,104,105,106,107,108,109,110,111,118,119,122,123}
    MICRO_NAMES=l2_half MICRO_TIMEOUT=240 bash "$HERE/micro.sh" run "$OUT"
    HALF_METRICS=lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,gpu__time_duration.sum,lts__t_requests_srcunit_tex_op_read.max,lts__t_requests_srcunit_tex_op_read.min
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "l2_half.cu (validation/hw/micro.sh's l2_half line) under ncu --cache-control none with $HALF_METRICS, --kernel-name half_read_kernel: every launch, in the order of the run's own rows (micro_l2_half_ncu_points.csv, timed under ncu)${L2HALF_MIB:+; L2HALF_MIB=$L2HALF_MIB}${L2HALF_ONLY:+; L2HALF_ONLY=$L2HALF_ONLY}; L2HALF_A=$L2HALF_A L2HALF_B=$L2HALF_B L2HALF_C=$L2HALF_C L2HALF_D=$L2HALF_D" > "$OUT/ncu_l2/l2_half_provenance.txt"
    profile "l2_half ncu" 400 "$OUT/ncu_l2/l2_half_raw.csv" "$OUT/micro_l2_half_ncu_points.csv" \
      --kernel-name half_read_kernel --metrics "$HALF_METRICS" "$BUILD/l2_half"
    ;;
  depth)
    # tma_bw.cu --depth: DRAM GB/s against the bytes in flight per SM (8/16/32 KB) made of 1-16 KB
    # copies by 1-8 CTAs per SM, into micro_tma_bw_depth.csv
    build tma_bw
    python3 "$HERE/provenance.py" --script validation/hw/next_batch.sh --method "[tma_bw --depth] tma_bw.cu's bulk ring from DRAM (4 GiB read once per launch, copy n of CTA c = unit (c + n * grid) mod units), ctas_per_sm CTAs per SM with 1 issuing thread and slots 8-16384-B slots each: in flight per SM 8, 16, 32 KB of 1-16 KB copies (and 4-8 slots of 2-4 KB by one CTA); CUDA events, a warm-up then the median of 5" > "$OUT/micro_tma_bw_depth.csv"
    timeout 240 "$BUILD/tma_bw" --depth >> "$OUT/micro_tma_bw_depth.csv" || echo "tma_bw --depth failed: $?"
    ;;
  tmabw) tma_bw_ncu "" "" ;;
  tmabwdram)
    # tmabw again with dram__bytes_read.sum: does the H200 read the 2-slot point's misses from
    # DRAM (the model: 5 % of lookups) or from the far partition and in-flight fills
    # (validation/README.md, Memory bandwidth)?
    tma_bw_ncu _dram ,dram__bytes_read.sum
    ;;
  membw)
    build mem_bw
    MEMBW_NCU=1 profile "mem_bw ncu" 400 "$OUT/ncu_l2/mem_bw_raw.csv" "$OUT/micro_mem_bw_ncu_points.csv" \
      --kernel-name read_kernel --metrics "$L2_METRICS,dram__bytes_read.sum" "$BUILD/mem_bw"
    ;;
  dram) timed dram_bank ;;
  *) echo "$USAGE"; exit 2 ;;
esac
