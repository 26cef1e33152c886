#!/bin/bash
# Runs the Triton frontend on an H200 for the kernels whose programs are committed here:
# capture (dump, instrument, override, profile) and translate. Run from the repository root:
#   validation/traces/capture_h200.sh smoke|all|excerpts OUTDIR        (first round, 2026-11-30)
#   validation/traces/capture_h200.sh round2|round3 OUTDIR [RESULTDIR]  (second and third rounds)
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
# Rounds two and three: Proton's buffer in global scratch sized per warp (a power of two per
# warp, as ConvertProtonToProtonGPU requires; the first round's 114688 B for 4 warps was not), the
# uninstrumented kernel's PTX and SASS kept in the sidecar, and no translation on the device:
# warp-0-of-each-warpgroup excerpts (plus every warp of warp_specialize partitions) come back
# and are translated off-line. Stops starting captures after ${BUDGET:-330} s.
res=${3:-$out/result}; mkdir -p "$res"
cap2() {  # name per_warp_bytes launcher kernel kw...
  if [ $SECONDS -gt ${BUDGET:-330} ]; then echo "=== $1 SKIPPED (time)"; return; fi
  local name=$1 pw=$2 launcher=$3 kernel=$4; shift 4
  echo "=== $name  (t=${SECONDS}s)"
  timeout 150 python3 -m asyncsim_frontend capture --launcher "asyncsim_frontend.launchers:$launcher" \
    --kernel "$kernel" --out "$out/$name" --name "$name" --buffer-per-warp "$pw" --kw "$@" \
    || { echo "FAILED capture $name"; cp "$out/$name"/*.log "$res/" 2>/dev/null; return; }
  cp "$out/$name/$name.json" "$res/"
  python3 - "$out/$name/$name.chrome_trace" "$res/$name.w0.chrome_trace.gz" "$out/$name/$name.json" <<'PY'
import gzip, json, re, sys
side = json.load(open(sys.argv[3]))
nw = side["num_warps"]
d = json.load(open(sys.argv[1]))
keep = []
for e in d["traceEvents"]:
    if e.get("ph") != "X":
        continue
    w = int(re.search(r"warp (\d+)", e["tid"]).group(1))
    if w % 4 and w < nw:
        continue
    m = re.search(r"Core(\d+)\s+CTA(\d+)", e["pid"])
    p = e["name"].split("|")
    keep.append({"name": "|".join([p[0], p[1], p[-1]]), "ph": "X", "ts": e["ts"], "dur": e["dur"],
                 "pid": f"Core{m.group(1)} CTA{m.group(2)}", "tid": f"warp {w}"})
with gzip.open(sys.argv[2], "wt", compresslevel=9) as g:
    json.dump({"traceEvents": keep}, g, separators=(",", ":"))
print(f"excerpt: {len(keep)} of {len(d['traceEvents'])} events")
PY
}
if [ "$mode" = round3 ]; then
  # Third round: the Triton attention kernel of validation/data/h200/attention.csv, all four tile
  # variants with and without the causal mask, at B=1 H=16 S=4096 (512 CTAs, four rounds of
  # CTAs per SM: the steady state the long-sequence rows measure).
  for d in 128 64; do
    for v in bm128_bn64_s3_w8 bm128_bn128_s2_w8; do
      cap2 attn_b1h16s4096d${d}_${v} 32768 attention attn_fwd_kernel B=1 H=16 S=4096 D=$d variant=$v
      cap2 attn_b1h16s4096d${d}_${v}_causal 32768 attention attn_fwd_kernel B=1 H=16 S=4096 D=$d variant=$v causal=1
    done
  done
  echo "=== done (t=${SECONDS}s)"
  exit 0
fi
if [ "$mode" = round2 ]; then
  cap2 persistent_2048x4096x4096_w4 32768 persistent gemm_persistent_kernel M=2048 N=4096 K=4096 variant=128x128x64_s3_w4
  echo "=== ncu (t=${SECONDS}s)"
  timeout 120 python3 validation/traces/measure_h200.py "$res/measured_h200.csv" \
    persistent:2048:4096:4096:128x128x64_s3_w4 persistent_ws:2048:4096:4096:128x256x64_s3_w8 \
    || echo "FAILED ncu"
  cap2 gemm_2048x4096x4096_w4 16384 gemm gemm_tma_kernel M=2048 N=4096 K=4096 variant=128x128x64_s3_w4
  cap2 persistentws_2048x4096x4096_w8 32768 persistent gemm_persistent_kernel M=2048 N=4096 K=4096 variant=128x256x64_s3_w8 ws=1
  cap2 gemm_2048x4096x4096_w8 16384 gemm gemm_tma_kernel M=2048 N=4096 K=4096 variant=128x256x64_s3_w8
  cap2 gemm_4096x4096x4096_w4 16384 gemm gemm_tma_kernel M=4096 N=4096 K=4096 variant=128x128x64_s3_w4
  cap2 gemm_4096x4096x4096_w8 16384 gemm gemm_tma_kernel M=4096 N=4096 K=4096 variant=128x256x64_s3_w8
  cap2 gemmws_1024x1024x1024_w4 16384 gemm gemm_tma_kernel M=1024 N=1024 K=1024 variant=128x128x64_s3_w4 ws=1
  echo "=== done (t=${SECONDS}s)"
  exit 0
fi
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
