#!/usr/bin/env bash
# Device entry point for issue 3 (one GPU run does the whole batch):
#   ASIM_SCRIPT_REV=<git short hash> bash validation/hw/run_all.sh [--smoke]
# FAMILIES (default "gemm attention persistent micro") picks what to run.
# Writes $OUT/log.txt, $OUT/build.log and $OUT/h200_data.tar.gz
# (validation/data/h200/*.csv plus the PTX greps in validation/data/h200/ptx/).
set -u
SMOKE=${1:-}
OUT=${OUT:-/tmp/asim_out}
FAMILIES=${FAMILIES:-gemm attention persistent micro}
export PYTHONUNBUFFERED=1
STAGE=/tmp/asim_stage
DATA=$STAGE/validation/data/h200
WORK=/tmp/asim_h200
rm -rf "$STAGE"; mkdir -p "$DATA" "$WORK" "$OUT"
LOG=$OUT/log.txt
case " $FAMILIES " in *" micro "*)
  ( bash validation/hw/micro.sh build > "$OUT/build.log" 2>&1 ) & BPID=$! ;;
  *) BPID="" ;;
esac
T0=$(date +%s)
snapshot() {  # re-tar everything so far: a run cut short still brings data back
  mkdir -p "$DATA/ptx"; cp "$WORK"/*_ptx.json "$DATA/ptx/" 2>/dev/null
  tar czf "$OUT/h200_data.tar.gz" -C "$STAGE" validation/data/h200
}
{
  echo "rev ${ASIM_SCRIPT_REV:-unset}  $(date -u)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
  for f in $FAMILIES; do
    t0=$(date +%s)
    if [ $(( t0 - T0 )) -gt ${BUDGET_S:-520} ]; then echo "=== SKIP family $f: time budget used"; continue; fi
    case $f in
      gemm) timeout ${GEMM_TIMEOUT:-240} python3 validation/hw/gemm.py --outdir "$DATA" --workdir "$WORK" $SMOKE ;;
      attention) timeout ${ATTN_TIMEOUT:-300} python3 validation/hw/attention.py --outdir "$DATA" --workdir "$WORK" $SMOKE ;;
      persistent) timeout ${PERS_TIMEOUT:-180} python3 validation/hw/persistent.py --outdir "$DATA" --workdir "$WORK" $SMOKE ;;
      micro) while [ -n "$BPID" ] && kill -0 "$BPID" 2>/dev/null; do sleep 1; done; cat "$OUT/build.log"; bash validation/hw/micro.sh run "$DATA" $SMOKE ;;
    esac
    echo "=== family $f rc=$? in $(( $(date +%s) - t0 )) s"
    snapshot
  done
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv
} 2>&1 | tee "$LOG"
snapshot
ls -la "$DATA" "$OUT"
