"""GPU side of the frontend: dump, instrument, override and profile one kernel launch.

capture() runs each phase in a child process, because Triton reads TRITON_* variables when it
compiles. Both children run under the same Proton session configuration, so the kernel hash of
the dump equals the hash the override is looked up under.

  dump     TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR=OUT/dump (renamed dump_wW_sS afterwards:
           Triton's dump hash ignores num_warps and num_stages)
  instrument  every .ttgir of --kernel -> OUT/override_wW_sS/<hash>/<kernel>.ttgir (only that file)
  profile  TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=OUT/override_wW_sS, Proton
           backend="instrumentation", data="trace", one launch; the host side records every
           TensorDescriptor argument (base pointer, shape, strides, block shape, element size)
           and the scalar arguments -> OUT/NAME.json

Proton's buffer (Triton 3.6, ConvertProtonToProtonGPU): one circular segment per warp of the
CTA (all warps, warp_specialize partitions included); buffer bytes / warps must be a power of
two, or the pass fails ("buffer-size per segment(N) must be power of 2"). A *shared* buffer is
also capped by Proton: min(asked, half of the free shared memory rounded to a power of two per
warp) and, when the kernel would fit twice on an SM, at most 4% of the SM's shared memory
(8 KB on the H200). A *global* buffer (the default here) is exactly the size asked, costs no
shared memory (so the instrumented kernel keeps the occupancy of the real one), and lives in
Proton's per-CTA global scratch.
"""
import glob
import importlib
import json
import os
import re
import shutil
import subprocess
import sys

from . import FrontendError

DROP_MARK = "events are dropped"


def _parse_kw(items):
    kw = {}
    for item in items:
        if "=" not in item:
            raise FrontendError(f"--kw expects KEY=VALUE, got '{item}'")
        k, v = item.split("=", 1)
        try:
            kw[k] = int(v)
        except ValueError:
            kw[k] = {"true": True, "false": False}.get(v.lower(), v)
    return kw


def _load_launcher(spec):
    if ":" not in spec:
        raise FrontendError(f"--launcher expects MODULE:FUNCTION, got '{spec}'")
    mod, fn = spec.split(":", 1)
    return getattr(importlib.import_module(mod), fn)


def _describe_arg(value):
    """JSON description of one kernel argument (descriptors and scalars; tensors by pointer)."""
    tname = type(value).__name__
    if tname == "TensorDescriptor" and hasattr(value, "block_shape"):
        base = value.base
        return {"kind": "tensordesc", "base": int(base.data_ptr()), "shape": [int(s) for s in value.shape],
                "strides": [int(s) for s in value.strides],
                "block_shape": [int(s) for s in value.block_shape],
                "element_size": int(base.element_size()), "dtype": str(base.dtype).replace("torch.", "")}
    if isinstance(value, bool):
        return {"kind": "int", "value": int(value)}
    if isinstance(value, int):
        return {"kind": "int", "value": value}
    if isinstance(value, float):
        return {"kind": "float", "value": value}
    if hasattr(value, "data_ptr"):
        return {"kind": "pointer", "base": int(value.data_ptr())}
    return {"kind": "other", "repr": repr(value)[:80]}


def _install_hook(kernel_name, launches, keep_asm=False):
    from triton.runtime.jit import JITFunction
    original = JITFunction.run

    def run(self, *args, **kwargs):
        ret = original(self, *args, **kwargs)
        if getattr(self, "__name__", None) == kernel_name or getattr(getattr(self, "fn", None), "__name__", None) == kernel_name:
            names = list(self.arg_names)
            bound = dict(zip(names, args))
            for k, v in kwargs.items():
                if k in names:
                    bound[k] = v
            grid = kwargs.get("grid")
            if callable(grid):
                grid = grid(dict(bound, **kwargs))
            grid = [int(g) for g in grid] + [1] * (3 - len(grid))
            launches.append({
                "kernel": kernel_name,
                "grid": grid,
                "num_warps": int(kwargs.get("num_warps", 4)),
                "num_stages": int(kwargs.get("num_stages", 3)),
                "args": [dict(_describe_arg(bound[n]), name=n, index=i) for i, n in enumerate(names)
                         if n in bound],
            })
            try:  # what the compiled kernel needs: registers per thread, shared memory per CTA
                launches[-1]["n_regs"] = int(ret.n_regs)
                launches[-1]["shared"] = int(ret.metadata.shared)
            except Exception:  # noqa: BLE001
                pass
            if keep_asm:
                launches[-1].update(_asm_of(ret))
        return ret

    JITFunction.run = run


def _proton_mode(buffer_size, buffer_type="global"):
    from triton.profiler import mode as pmode
    fields = getattr(pmode.Default, "__dataclass_fields__", {})
    kw = {}
    if "buffer_type" in fields:
        kw["buffer_type"] = buffer_type
    if buffer_size and "buffer_size" in fields:
        kw["buffer_size"] = buffer_size
    return pmode.Default(**kw)


def total_warps(ttgir, num_warps):
    """Warps of the CTA as Proton counts its segments: the module's ttg.total-num-warps, else
    num_warps plus the warps of every warp_specialize partition."""
    m = re.search(r'"?ttg\.total-num-warps"?\s*=\s*(\d+)', ttgir)
    if m:
        return int(m.group(1))
    return num_warps + sum(int(n) for n in re.findall(r"partition\d+\([^)]*\)\s*num_warps\((\d+)\)", ttgir))


def buffer_bytes(per_cta, per_warp, warps):
    """Proton buffer bytes per CTA with a power-of-two share per warp (the pass requires it):
    per_warp if given (rounded up to a power of two), else per_cta rounded up to warps x 2^n;
    0 keeps Proton's default."""
    if per_warp:
        share = per_warp
    elif per_cta:
        share = -(-per_cta // warps)
    else:
        return 0
    return warps * (1 << max(share - 1, 1).bit_length())


def _asm_of(kernel):
    """PTX and SASS (cuobjdump of the cubin) of a compiled kernel, as far as available."""
    out = {}
    try:
        asm = kernel.asm
        out["ptx"] = asm["ptx"]
        sass = asm.get("sass") if hasattr(asm, "get") else None
        if not sass:
            import tempfile
            with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
                f.write(asm["cubin"])
            sass = subprocess.run(["cuobjdump", "--dump-sass", f.name], capture_output=True,
                                  text=True, timeout=120).stdout
            os.unlink(f.name)
        # keep the instruction text only (drop the encodings), one line per instruction
        out["sass"] = "\n".join(re.sub(r"\s*/\* 0x[0-9a-f]+ \*/\s*$", "", line).rstrip()
                                for line in sass.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", line))
    except Exception as e:  # noqa: BLE001
        out["asm_error"] = repr(e)[:200]
    return out


def _child(args):
    """One phase in this process: launch once under Proton, write the launch record."""
    import torch
    import triton.profiler as proton
    launches = []
    _install_hook(args.kernel, launches, keep_asm=args.phase == "dump")
    fn = _load_launcher(args.launcher)
    kw = _parse_kw(args.kw)
    prefix = os.path.join(args.out, f"{args.name}_{args.phase}")
    proton.start(prefix, data="trace", backend="instrumentation",
                 mode=_proton_mode(args.buffer_size, args.buffer_type))
    fn(**kw)
    torch.cuda.synchronize()
    proton.finalize()
    if len(launches) != 1:
        raise FrontendError(f"the launcher launched {args.kernel} {len(launches)} times; "
                            "a profiling run must launch it exactly once")
    rec = launches[0]
    rec["device"] = {"name": torch.cuda.get_device_name(0),
                     "sms": torch.cuda.get_device_properties(0).multi_processor_count}
    with open(prefix + "_launch.json", "w") as f:
        json.dump(rec, f, indent=1)


def _run_phase(args, phase, env_extra):
    env = dict(os.environ, TRITON_ALWAYS_COMPILE="1", **env_extra)
    cmd = [sys.executable, "-m", "asyncsim_frontend", "capture", "--launcher", args.launcher,
           "--kernel", args.kernel, "--out", args.out, "--name", args.name,
           "--buffer-size", str(args.buffer_size), "--buffer-type", args.buffer_type,
           "--phase", phase, "--kw", *args.kw]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = os.path.join(args.out, f"{args.name}_{phase}.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        text = proc.stdout + proc.stderr
        # MLIR prints the diagnostic first and the (long) reproducer after it: show both ends
        errors = [line for line in text.splitlines() if "error:" in line or "Error" in line][:12]
        raise FrontendError(f"{phase} phase failed (exit {proc.returncode}; full log {log}); "
                            "errors:\n" + "\n".join(errors) + "\nlast output:\n" + text[-2000:])
    return proc.stdout + proc.stderr


def _dump(args):
    """Dump phase: compile and launch under Proton (no records yet); returns the launch record,
    the uninstrumented PTX/SASS, and the dumped .ttgir files."""
    tmp_dump = os.path.join(args.out, "dump")
    shutil.rmtree(tmp_dump, ignore_errors=True)
    _run_phase(args, "dump", {"TRITON_KERNEL_DUMP": "1", "TRITON_DUMP_DIR": os.path.abspath(tmp_dump)})
    launch = json.load(open(os.path.join(args.out, f"{args.name}_dump_launch.json")))
    tag = f"w{launch['num_warps']}_s{launch['num_stages']}"
    asm = {k: launch.pop(k) for k in ("ptx", "sass", "asm_error") if k in launch}
    dump = os.path.join(args.out, f"dump_{args.name}_{tag}")
    shutil.rmtree(dump, ignore_errors=True)
    os.rename(tmp_dump, dump)
    ttgirs = sorted(glob.glob(os.path.join(dump, "*", f"{args.kernel}.ttgir")))
    if not ttgirs:
        raise FrontendError(f"no {args.kernel}.ttgir under {dump}")
    return launch, asm, tag, ttgirs


def capture(args):
    if args.phase != "all":
        return _child(args)
    from .instrument import instrument_text
    os.makedirs(args.out, exist_ok=True)
    # The Proton mode (buffer size and type included) is part of the kernel's compile options,
    # hence of the hash the override is looked up under: the dump must run with the final size.
    # That size depends on the CTA's warp count, known only after a compile; with a per-warp
    # size, guess 4 warps and dump again if the kernel has more.
    asked = args.buffer_size
    args.buffer_size = buffer_bytes(asked, args.buffer_per_warp, 4)
    launch, asm, tag, ttgirs = _dump(args)
    warps = total_warps(open(ttgirs[0]).read(), launch["num_warps"])
    size = buffer_bytes(asked, args.buffer_per_warp, warps)
    if size != args.buffer_size:
        print(f"capture: Proton buffer {size} B per CTA ({warps} warps x {size // warps} B, "
              f"{args.buffer_type} memory); dumping again with it")
        args.buffer_size = size
        launch, asm, tag, ttgirs = _dump(args)
    override = os.path.join(args.out, f"override_{args.name}_{tag}")
    shutil.rmtree(override, ignore_errors=True)
    sites = None
    for path in ttgirs:
        text, sites = instrument_text(open(path).read(), args.records)
        dst = os.path.join(override, os.path.basename(os.path.dirname(path)), os.path.basename(path))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
    out = _run_phase(args, "profile", {"TRITON_KERNEL_OVERRIDE": "1",
                                       "TRITON_OVERRIDE_DIR": os.path.abspath(override)})
    launch = json.load(open(os.path.join(args.out, f"{args.name}_profile_launch.json")))
    traces = glob.glob(os.path.join(args.out, f"{args.name}_profile*.chrome_trace"))
    if not traces:
        raise FrontendError(f"Proton wrote no .chrome_trace under {args.out}")
    trace = os.path.join(args.out, f"{args.name}.chrome_trace")
    os.replace(traces[0], trace)
    first = json.load(open(os.path.join(args.out, f"{args.name}_dump_launch.json")))
    launch["uninstrumented"] = {k: first[k] for k in ("n_regs", "shared") if k in first}
    launch["uninstrumented"].update(asm)
    launch["proton_warnings"] = [line for line in out.splitlines() if DROP_MARK in line][:20]
    launch["ttgir_sites"] = sites
    launch["buffer_size"] = args.buffer_size
    launch["buffer_type"] = args.buffer_type
    launch["records"] = args.records
    launch["total_warps"] = warps
    side = os.path.join(args.out, f"{args.name}.json")
    with open(side, "w") as f:
        json.dump(launch, f, indent=1)
    print(f"capture: {trace} {side} ({len(launch['proton_warnings'])} overflow warnings)")
