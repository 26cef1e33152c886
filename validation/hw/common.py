"""Shared helpers for the H200 measurement scripts (validation/hw/*.py).

Provenance header, device description, correctness metric, Nsight Compute
driver and parser, CSV writer. Runs on the device machine (needs torch/triton
only where noted)."""
import csv
import datetime
import io
import json
import os
import re
import subprocess
import sys

NCU_METRICS = [
    "gpc__cycles_elapsed.max",
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_bytes.sum",
    "sm__cycles_elapsed.avg.per_second",
]
NCU_FLAGS = ["--clock-control", "none", "--cache-control", "all"]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def log(*a):
    print(*a, flush=True)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"<{e}>"


def script_rev():
    """Git short hash of the commit holding the scripts: passed in from the
    workstation (the device copy has no history)."""
    rev = os.environ.get("ASIM_SCRIPT_REV", "").strip()
    if not rev:
        rev = sh(f"git -C {REPO} rev-parse --short HEAD 2>/dev/null") or "unknown"
    return rev


def device_info(print_it=True):
    import torch
    import triton
    p = torch.cuda.get_device_properties(0)
    info = {
        "name": p.name,
        "sms": p.multi_processor_count,
        "l2": getattr(p, "L2_cache_size", -1),
        "driver": sh("nvidia-smi --query-gpu=driver_version --format=csv,noheader").splitlines()[0:1],
        "nvcc": "",
        "triton": triton.__version__,
        "torch": torch.__version__,
    }
    info["driver"] = info["driver"][0] if info["driver"] else "unknown"
    m = re.search(r"release ([0-9.]+), V([0-9.]+)", sh("nvcc --version"))
    info["nvcc"] = m.group(2) if m else "unknown"
    if print_it:
        log(f"GPU: {info['name']}  SMs: {info['sms']}  L2: {info['l2']} B  driver: {info['driver']}  "
            f"nvcc: {info['nvcc']}  triton: {info['triton']}  torch: {info['torch']}")
        log("clocks (nvidia-smi -q -d CLOCK):")
        log(sh("nvidia-smi -q -d CLOCK | grep -E -A4 '^    (Clocks$|Max Clocks|Applications Clocks|Clocks Event)' | head -30"))
    return info


def device_string(info):
    return (f"{info['name']}, {info['sms']} SMs, L2 {info['l2']} B, driver {info['driver']}, "
            f"nvcc {info['nvcc']}, triton {info['triton']}, torch {info['torch']}")


def header_lines(script, method, info):
    return [
        f"# date: {datetime.date.today().isoformat()}",
        f"# script: {script} @ {script_rev()}",
        f"# device: {device_string(info)}",
        f"# method: {method}",
    ]


def write_csv(path, headers, columns, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        for h in headers:
            f.write(h + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([r.get(c, "") for c in columns])
    log(f"wrote {path} ({len(rows)} rows)")


def parse_shapes(text, default):
    """GEMM shapes from 'M,N,K,VARIANT[;M,N,K,VARIANT...]' (default when text is empty)."""
    if not text:
        return default
    out = []
    for item in text.split(";"):
        M, N, K, v = item.split(",")
        out.append((int(M), int(N), int(K), v))
    return out


def rel_err(out, ref):
    import torch
    o = out.float()
    r = ref.float()
    return (torch.linalg.vector_norm(o - r) / torch.linalg.vector_norm(r)).item()


def ptx_report(tag, kernel):
    """Grep a compiled Triton kernel's PTX for the async machinery."""
    ptx = kernel.asm.get("ptx", "")
    res = {
        "tag": tag,
        "wgmma.mma_async": ptx.count("wgmma.mma_async"),
        "cp.async.bulk.tensor": ptx.count("cp.async.bulk.tensor"),
        "setmaxnreg": ptx.count("setmaxnreg"),
        "mbarrier.try_wait": ptx.count("mbarrier.try_wait"),
        "n_regs": getattr(kernel, "n_regs", None),
        "shared": getattr(getattr(kernel, "metadata", None), "shared", None),
    }
    import hashlib
    res["ptx_chars"] = len(ptx)
    res["ptx_md5"] = hashlib.md5(ptx.encode()).hexdigest()[:12]
    m = re.search(r"wgmma\.mma_async\.sync\.aligned\.(m\d+n\d+k\d+)", ptx)
    res["wgmma_shape"] = m.group(1) if m else ""
    log("PTX " + json.dumps(res))
    return res


def bench_us(fn, smoke=False):
    """Median time of fn in microseconds by triton.testing.do_bench (which zeroes a
    256 MB buffer before every repetition, i.e. cold L2). fn is captured once in a
    CUDA graph and the graph is replayed, so the host launch path (descriptor
    encoding, Python) stays out of the number; falls back to plain launches if
    capture fails. Returns (us, how)."""
    import torch
    import triton
    rep = 20 if smoke else 100
    try:
        fn()
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        g.replay()
        torch.cuda.synchronize()
        us = triton.testing.do_bench(g.replay, warmup=25, rep=rep, return_mode="median") * 1000.0
        return us, "graph"
    except Exception as e:  # noqa: BLE001
        log(f"  graph capture failed ({e!r}); plain do_bench")
        torch.cuda.synchronize()
        us = triton.testing.do_bench(fn, warmup=25, rep=rep, return_mode="median") * 1000.0
        return us, "launch"


def _num(s):
    s = (s or "").strip().replace(",", "")
    if s in ("", "n/a", "N/A"):
        return float("nan")
    return float(s)


def run_ncu(child_argv, kernel_regex, rep_base, timeout):
    """Profile `python3 child_argv...` under ncu; return a list of per-launch
    dicts in launch order (kernel launches matching kernel_regex only)."""
    cmd = (["ncu"] + NCU_FLAGS + ["--metrics", ",".join(NCU_METRICS),
                                  "--kernel-name", f"regex:{kernel_regex}",
                                  "--force-overwrite", "-o", rep_base,
                                  sys.executable] + child_argv)
    log("RUN " + " ".join(cmd))
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        out = p.stdout + p.stderr
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        rc = "timeout"
    for line in out.splitlines():
        log("  ncu| " + line)
    log(f"ncu rc={rc}")
    rep = rep_base + ".ncu-rep"
    if not os.path.exists(rep):
        log("no ncu report")
        return []
    imp = subprocess.run(["ncu", "--import", rep, "--csv", "--page", "raw", "--print-units", "base"],
                         capture_output=True, text=True, timeout=300)
    rows = list(csv.reader(io.StringIO(imp.stdout)))
    if len(rows) < 3:
        log("ncu import gave no rows: " + imp.stderr[-2000:])
        return []
    hdr, units = rows[0], rows[1]
    idx = {h: i for i, h in enumerate(hdr)}
    log("ncu units: " + json.dumps({m: units[idx[m]] for m in NCU_METRICS if m in idx}))
    res = []
    for r in rows[2:]:
        if len(r) != len(hdr):
            continue
        d = {"id": int(_num(r[idx["ID"]])), "kernel_name": r[idx["Kernel Name"]]}
        for m in NCU_METRICS:
            d[m] = _num(r[idx[m]]) if m in idx else float("nan")
        # unit normalisation (base units asked; be defensive)
        u = units[idx["gpu__time_duration.sum"]] if "gpu__time_duration.sum" in idx else "ns"
        scale = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
                 "s": 1e9, "second": 1e9}.get(u, 1)
        d["gpu__time_duration.sum"] *= scale
        for m in ("dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum"):
            um = units[idx[m]] if m in idx else "byte"
            d[m] *= {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(um, 1)
        res.append(d)
    res.sort(key=lambda d: d["id"])
    log(f"ncu: {len(res)} profiled launches")
    return res


def ncu_fields(d):
    cyc = d["gpc__cycles_elapsed.max"]
    dur = d["gpu__time_duration.sum"]
    return {
        "cycles": int(round(cyc)),
        "duration_ns": int(round(dur)),
        "sm_clock_mhz": round(cyc / dur * 1000.0, 2) if dur > 0 else "",
        "dram_read_bytes": int(round(d["dram__bytes_read.sum"])),
        "dram_write_bytes": int(round(d["dram__bytes_write.sum"])),
        "l2_bytes": int(round(d["lts__t_bytes.sum"])),
        "ncu_sm_hz": d["sm__cycles_elapsed.avg.per_second"],
    }


def touch(t, write):
    """One torch kernel over tensor t: write it (`fill_`, its lines dirty in L2) or read it
    (`sum`, clean)."""
    return t.fill_(1.0) if write else t.sum()


def w_stream_w_child(cases, big_mib):
    """child() of the W / stream / W micros (l2_dirty_retain.py, l2_write_stream.py): for each
    (w_write, stream_mib, stream_write) of `cases`, torch kernels in sequence: read 256 MiB
    (flush), write or read W (16 MiB), write or read the first stream_mib MiB of a large buffer
    (one element for 0: a no-op stream), read W again (the measured kernel)."""
    import torch
    mib = 1 << 20
    flush = torch.ones(256 * mib // 4, device="cuda")
    w = torch.zeros(16 * mib // 4, device="cuda")
    zero = any(s == 0 for _, s, _ in cases)
    big = torch.ones(big_mib * mib // 4 + (1 if zero else 0), device="cuda")
    torch.cuda.synchronize()
    for w_write, s, s_write in cases:
        flush.sum()
        touch(w, w_write)
        touch(big[: s * mib // 4] if s else big[:1], s_write)
        w.sum()  # measured
        torch.cuda.synchronize()


def sequence_main(script, child, cases, per, method, columns, row, setup=3):
    """main() of a micro made of torch kernels in sequence (l2_*.py). `SCRIPT --child` runs
    child(): `setup` kernels, then `per` kernels for each of `cases`. Otherwise `SCRIPT OUT.csv`
    profiles the child under ncu with no cache control between kernels, every kernel, lists each
    profiled kernel in OUT_kernels.txt and writes OUT.csv: the provenance lines, `columns`, and
    for each case the rows row(case, [ncu_fields of its `per` kernels]) returns."""
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child()
    out = sys.argv[1]
    info = device_info()
    NCU_FLAGS[:] = ["--clock-control", "none", "--cache-control", "none"]
    prof = run_ncu([os.path.abspath(script), "--child"], ".*", os.path.splitext(out)[0] + "_ncu", 500)
    fields = [ncu_fields(p) for p in prof]
    with open(os.path.splitext(out)[0] + "_kernels.txt", "w") as fh:
        for p, f in zip(prof, fields):
            fh.write(f"{p.get('id')} {p.get('kernel_name', '')[:60]} dram_read={f['dram_read_bytes']} "
                     f"dram_write={f['dram_write_bytes']} l2={f['l2_bytes']} cycles={f['cycles']}\n")
    expected = len(cases) * per
    if len(prof) != expected + setup:
        print(f"WARNING: {len(prof)} profiled kernels, expected {expected + setup}", file=sys.stderr)
    fields = fields[max(0, len(fields) - expected):]
    lines = header_lines(os.path.relpath(os.path.abspath(script), REPO), method, info) + [columns]
    for i, case in enumerate(cases):
        if (i + 1) * per > len(fields):
            break
        lines += row(case, fields[i * per:(i + 1) * per])
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
