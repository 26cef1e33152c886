#!/usr/bin/env python3
"""H200 ground truth for the TMA attention forward (validation/kernels/attention_tma.py):
calibration and held-out shapes (non-causal and causal), the warp-specialised
build if Triton compiles one, and a long-sequence sweep (B=1, H=16, D=128,
S in 16k/32k/64k) where K/V exceed L2.

Same method as gemm.py: correctness (fresh randn, NaN-poisoned output, rel err vs
a float32 torch reference < 1e-2), do_bench median, then one ncu-profiled launch
per case in a child process.

  python3 validation/hw/attention.py --outdir validation/data/h200 [--smoke]
"""
import argparse
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from validation.hw import common  # noqa: E402
from validation.hw.common import log  # noqa: E402

CALIB = [(1, 16, 1024, 128), (1, 16, 4096, 128), (2, 32, 1024, 128), (1, 32, 8192, 128),
         (4, 16, 512, 64), (2, 16, 2048, 64), (1, 32, 8192, 64), (8, 8, 4096, 128)]
TEST = [(1, 8, 2048, 128), (2, 16, 3000, 64), (1, 40, 4096, 128)]
SWEEP = [(1, 16, 16384, 128), (1, 16, 32768, 128), (1, 16, 65536, 128)]

COLS = ["kernel", "variant", "split", "B", "H", "HKV", "S", "SKV", "D", "BM", "BN", "stages", "warps",
        "causal", "cycles", "duration_ns", "sm_clock_mhz", "dram_read_bytes", "dram_write_bytes",
        "l2_bytes", "do_bench_us", "rel_err"]

METHOD = ("ncu --clock-control none --cache-control all (cold L2, clocks as found) one launch per row; "
          "cycles=gpc__cycles_elapsed.max duration=gpu__time_duration.sum dram=dram__bytes_read/write.sum "
          "l2=lts__t_bytes.sum; sm_clock_mhz=cycles/duration; do_bench_us=triton.testing.do_bench median "
          "of CUDA-graph replays of one launch (L2 flushed per rep) outside ncu; rel_err=||out-ref||/||ref|| vs float32 torch softmax attention "
          "on torch.randn q/k/v (output NaN-poisoned), must be <1e-2; sm_scale=1/sqrt(D)")


def build_cases(smoke):
    from validation.kernels.attention_tma import VARIANTS
    cases = []
    shapes = [("calib", s) for s in CALIB] + [("test", s) for s in TEST]
    if smoke:
        shapes = [("calib", (1, 16, 1024, 128)), ("test", (2, 16, 3000, 64))]
    for split, shp in shapes:
        for v in VARIANTS:
            for causal in (0, 1):
                cases.append(dict(kernel="attention", variant=v, split=split, shape=shp, causal=causal))
    for split, shp in shapes:
        for v in VARIANTS:
            cases.append(dict(kernel="attention_ws", variant=v, split=split, shape=shp, causal=0))
    for shp in (SWEEP[:1] if smoke else SWEEP):
        cases.append(dict(kernel="attention", variant="bm128_bn64_s3_w8", split="sweep", shape=shp, causal=0))
    for c in cases:
        B, H, S, D = c.pop("shape")
        BM, BN, st, w = VARIANTS[c["variant"]]
        c.update(B=B, H=H, HKV=H, S=S, SKV=S, D=D, BM=BM, BN=BN, stages=st, warps=w)
    return cases


def inputs(c):
    import torch
    shp = (c["B"], c["H"], c["S"], c["D"])
    q = torch.randn(shp, device="cuda", dtype=torch.float16)
    k = torch.randn(shp, device="cuda", dtype=torch.float16)
    v = torch.randn(shp, device="cuda", dtype=torch.float16)
    o = torch.full(shp, float("nan"), device="cuda", dtype=torch.float16)
    return q, k, v, o


def launch(c, q, k, v, o):
    from validation.kernels.attention_tma import attention
    return attention(q, k, v, o, c["variant"], causal=bool(c["causal"]), ws=(c["kernel"] == "attention_ws"))


def child(cases_path, launched_path):
    import torch
    cases = json.load(open(cases_path))
    launched = []
    for i, c in enumerate(cases):
        try:
            q, k, v, o = inputs(c)
            torch.cuda.synchronize()
            launch(c, q, k, v, o)
            torch.cuda.synchronize()
            launched.append(i)
            del q, k, v, o
        except Exception as e:  # noqa: BLE001
            print(f"child: case {i} failed: {e!r}", flush=True)
        json.dump(launched, open(launched_path, "w"))
    print(f"child: launched {len(launched)}/{len(cases)}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", default="validation/data/h200")
    ap.add_argument("--workdir", default="/tmp/asim_h200")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--child", nargs=2, metavar=("CASES", "LAUNCHED"))
    ap.add_argument("--ncu-timeout", type=int, default=300)
    args = ap.parse_args()
    if args.child:
        return child(*args.child)

    import torch
    import triton
    from validation.kernels.attention_tma import reference
    torch.backends.cuda.matmul.allow_tf32 = False
    info = common.device_info()
    os.makedirs(args.workdir, exist_ok=True)
    cases = build_cases(args.smoke)
    log(f"attention: {len(cases)} cases")
    ptx_seen = {}
    ws_failed = set()
    ok = []
    for c in cases:
        tag = (f"{c['kernel']} {c['variant']} B={c['B']} H={c['H']} S={c['S']} D={c['D']} "
               f"causal={c['causal']}")
        key = (c["kernel"], c["variant"], c["D"], c["causal"])
        if (c["kernel"], c["variant"]) in ws_failed:
            log(f"SKIP {tag}: warp-specialised build failed before")
            continue
        try:
            q, k, v, o = inputs(c)
            kobj = launch(c, q, k, v, o)
            torch.cuda.synchronize()
            if key not in ptx_seen:
                ptx_seen[key] = common.ptx_report(" ".join(map(str, key)), kobj)
            ref = reference(q, k, v, causal=bool(c["causal"]))
            err = common.rel_err(o, ref)
            del ref
            if not (err < 1e-2):
                log(f"FAIL correctness {tag}: rel_err={err}")
                continue
            if c["kernel"] == "attention_ws":
                bkey = ("attention",) + key[1:]
                if bkey not in ptx_seen:
                    ptx_seen[bkey] = common.ptx_report(" ".join(map(str, bkey)),
                                                       launch(dict(c, kernel="attention"), q, k, v, o))
                if ptx_seen[bkey]["ptx_md5"] == ptx_seen[key]["ptx_md5"]:
                    log(f"SAME-PTX {tag}: warp_specialize=True produced the same PTX as attention; "
                        f"not measured separately")
                    continue
            us, how = common.bench_us(lambda: launch(c, q, k, v, o), args.smoke)
            c["rel_err"] = f"{err:.3e}"
            c["do_bench_us"] = round(us, 3)
            flops = 4.0 * c["B"] * c["H"] * c["S"] * c["S"] * c["D"] * (0.5 if c["causal"] else 1.0)
            log(f"ok {tag}: rel_err={err:.2e} do_bench={us:.2f} us [{how}] ({flops / (us * 1e-6) / 1e12:.0f} TFLOP/s)")
            ok.append(c)
            del q, k, v, o
        except Exception as e:  # noqa: BLE001
            log(f"FAIL {tag}: {e!r}")
            log(traceback.format_exc(limit=4)[-3000:])
            if c["kernel"] == "attention_ws":
                ws_failed.add((c["kernel"], c["variant"]))
    torch.cuda.empty_cache()
    json.dump({" ".join(map(str, k)): v for k, v in ptx_seen.items()},
              open(os.path.join(args.workdir, "attention_ptx.json"), "w"), indent=1)

    cases_path = os.path.join(args.workdir, "attention_cases.json")
    launched_path = os.path.join(args.workdir, "attention_launched.json")
    json.dump(ok, open(cases_path, "w"))
    if os.path.exists(launched_path):
        os.remove(launched_path)
    prof = common.run_ncu([os.path.abspath(__file__), "--child", cases_path, launched_path],
                          "^attn_fwd_kernel$", os.path.join(args.workdir, "attention_ncu"), args.ncu_timeout)
    launched = json.load(open(launched_path)) if os.path.exists(launched_path) else []
    if len(prof) != len(launched):
        log(f"WARNING: {len(prof)} profiled launches vs {len(launched)} launched cases")
    rows = []
    for p, i in zip(prof, launched):
        c = dict(ok[i])
        f = common.ncu_fields(p)
        c.update(f)
        rows.append(c)
        log(f"ncu {c['kernel']} {c['variant']} B{c['B']} H{c['H']} S{c['S']} D{c['D']} c{c['causal']}: "
            f"cycles={f['cycles']} dur={f['duration_ns']} ns clk={f['sm_clock_mhz']} MHz "
            f"dram r/w={f['dram_read_bytes']}/{f['dram_write_bytes']} l2={f['l2_bytes']}")
    common.write_csv(os.path.join(args.outdir, "attention.csv"),
                     common.header_lines("validation/hw/attention.py", METHOD, info), COLS, rows)


if __name__ == "__main__":
    main()
