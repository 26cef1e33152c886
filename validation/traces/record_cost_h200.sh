#!/bin/bash
# What Proton's records cost the kernels whose translated programs are compared in README.md:
# each kernel captured twice in one run, with every TMA/wgmma/mbarrier op recorded (the trace
# the translator reads) and with only the first and last op recorded (--records bracket), and
# the per-CTA spans of both written to RESULTDIR/spans.csv (validation/traces/cta_spans.py).
# Analysis anywhere: python3 validation/traces/record_cost.py validation/traces/record_cost.csv
#   validation/traces/record_cost_h200.sh OUTDIR RESULTDIR      # on the GPU machine
set -u
out=$1; res=$2
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
mkdir -p "$out" "$res"
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
echo "kernel,records,core,cta,warp,start,end,records_n" > "$res/spans.csv"
one() {  # name records per_cta_bytes launcher kernel kw...
  if [ $SECONDS -gt ${BUDGET:-420} ]; then echo "=== $1 $2 SKIPPED (time)"; return; fi
  local name=$1 rec=$2 buf=$3 launcher=$4 kernel=$5; shift 5
  echo "=== $name $rec (t=${SECONDS}s)"
  local dir="$out/${name}_$rec"
  timeout 150 python3 -m asyncsim_frontend capture --launcher "asyncsim_frontend.launchers:$launcher" \
    --kernel "$kernel" --out "$dir" --name "$name" --buffer-size "$buf" --records "$rec" --kw "$@" \
    || { echo "FAILED capture $name $rec"; return; }
  grep -o '"proton_warnings": \[[^]]*\]' "$dir/$name.json" | head -c 300; echo
  python3 validation/traces/cta_spans.py "$dir/$name.chrome_trace" "$name" "$rec" >> "$res/spans.csv"
  rm -rf "$dir"
}
for spec in "gemm_2048x4096x4096_w8 131072 gemm gemm_tma_kernel M=2048 N=4096 K=4096 variant=128x256x64_s3_w8" \
            "gemm_2048x4096x4096_w4 65536 gemm gemm_tma_kernel M=2048 N=4096 K=4096 variant=128x128x64_s3_w4" \
            "gemm_1024x1024x1024_w8 131072 gemm gemm_tma_kernel M=1024 N=1024 K=1024 variant=128x256x64_s3_w8" \
            "gemm_1024x1024x1024_w4 65536 gemm gemm_tma_kernel M=1024 N=1024 K=1024 variant=128x128x64_s3_w4" \
            "persistentws_2048x4096x4096_w8 262144 persistent gemm_persistent_kernel M=2048 N=4096 K=4096 variant=128x256x64_s3_w8 ws=1" \
            "gemm_4096x4096x4096_w8 131072 gemm gemm_tma_kernel M=4096 N=4096 K=4096 variant=128x256x64_s3_w8"; do
  set -- $spec
  name=$1; buf=$2; shift 2
  one "$name" all "$buf" "$@"
  one "$name" bracket "$buf" "$@"
done
echo "=== done (t=${SECONDS}s)"
