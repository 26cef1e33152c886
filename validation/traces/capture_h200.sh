#!/bin/bash
# Runs the Triton frontend on an H200 for the kernels whose programs are committed here:
# capture (dump, instrument, override, profile) and translate. Run from the repository root:
#   validation/traces/capture_h200.sh smoke|all|excerpts OUTDIR
# Needs torch + triton 3.6 (Proton included). Full traces of the large shapes are hundreds of MB
# of JSON, so only the translated programs, the sidecars and warp-0-only excerpts come back.
set -u
mode=$1; out=$2
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
mkdir -p "$out/asim"
cap() {  # name timeout_s buffer_bytes launcher kernel kw...
  local name=$1 t=$2 buf=$3 launcher=$4 kernel=$5; shift 5
  echo "=== $name"
  timeout "$t" python3 -m asyncsim_frontend capture --launcher "asyncsim_frontend.launchers:$launcher" \
    --kernel "$kernel" --out "$out/$name" --name "$name" --buffer-size "$buf" --kw "$@" \
    || { echo "FAILED capture $name"; return; }
  rm -rf "$out/$name/dump"
  cp "$out/$name/$name.json" "$out/asim/"
  timeout 90 python3 -m asyncsim_frontend translate "$out/$name/$name.chrome_trace" \
    --descriptors "$out/$name/$name.json" -o "$out/asim/$name.asim" || echo "FAILED translate $name"
}
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
if [ "$mode" = smoke ]; then
  cap gemm_1024_w4 120 32768 gemm gemm_tma_kernel M=1024 N=1024 K=1024 variant=128x128x64_s3_w4
  cap attn_b1h16s1024 120 32768 attention attn_fwd_kernel B=1 H=16 S=1024 D=128 variant=bm128_bn64_s3_w8
  exit 0
fi
if [ "$mode" = all ]; then
  cap persistent_2048x4096x4096_w4 120 114688 persistent gemm_persistent_kernel M=2048 N=4096 K=4096 variant=128x128x64_s3_w4
  cap attn_b1h16s1024_w8 120 32768 attention attn_fwd_kernel B=1 H=16 S=1024 D=128 variant=bm128_bn64_s3_w8
  for shp in 1024x1024x1024 2048x4096x4096 4096x4096x4096; do
    IFS=x read M N K <<< "$shp"
    cap gemm_${shp}_w4 120 32768 gemm gemm_tma_kernel M=$M N=$N K=$K variant=128x128x64_s3_w4
    cap gemm_${shp}_w8 120 65536 gemm gemm_tma_kernel M=$M N=$N K=$K variant=128x256x64_s3_w8
  done
  cap gemmws_1024x1024x1024_w4 120 65536 gemm gemm_tma_kernel M=1024 N=1024 K=1024 variant=128x128x64_s3_w4 ws=1
  exit 0
fi
# mode excerpts: warp-0-of-each-warpgroup excerpts of the smaller traces (for offline checks; the translator
# accepts them: a warpgroup of one recorded warp needs no de-duplication).
mkdir -p "$out/excerpts"
for name in persistent_2048x4096x4096_w4 gemmws_1024x1024x1024_w4 gemm_1024x1024x1024_w4 gemm_1024x1024x1024_w8 attn_b1h16s1024_w8; do
  f="$out/$name/$name.chrome_trace"; [ -f "$f" ] || continue
  python3 - "$f" "$out/excerpts/$name.w0.chrome_trace.gz" <<'PY'
import gzip, json, re, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if int(re.search(r"warp (\d+)", e["tid"]).group(1)) % 4 == 0]
for e in ev:
    e.pop("args", None); e.pop("cname", None); e.pop("cat", None)
with gzip.open(sys.argv[2], "wt") as g:
    json.dump({"traceEvents": ev}, g, separators=(",", ":"))
PY
done
