"""GPU side of the frontend: dump, instrument, override and profile one kernel launch.

capture() runs each phase in a child process, because Triton reads TRITON_* variables when it
compiles. Both children run under the same Proton session configuration, so the kernel hash of
the dump equals the hash the override is looked up under.

  dump     TRITON_KERNEL_DUMP=1 TRITON_DUMP_DIR=OUT/dump (renamed dump_wW_sS afterwards:
           Triton's dump hash ignores num_warps and num_stages)
  instrument  every .ttgir of --kernel -> OUT/override_wW_sS/<hash>/<kernel>.ttgir (only that file)
  profile  TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=OUT/override_wW_sS, Proton
           backend="instrumentation", data="trace", shared-memory buffer, one launch; the host
           side records every TensorDescriptor argument (base pointer, shape, strides, block
           shape, element size) and the scalar arguments -> OUT/NAME.json
"""
import glob
import importlib
import json
import os
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


def _install_hook(kernel_name, launches):
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
        return ret

    JITFunction.run = run


def _proton_mode(buffer_size):
    from triton.profiler import mode as pmode
    fields = getattr(pmode.Default, "__dataclass_fields__", {})
    kw = {}
    if "buffer_type" in fields:
        kw["buffer_type"] = "shared"
    if buffer_size and "buffer_size" in fields:
        kw["buffer_size"] = buffer_size
    return pmode.Default(**kw)


def _child(args):
    """One phase in this process: launch once under Proton, write the launch record."""
    import torch
    import triton.profiler as proton
    launches = []
    _install_hook(args.kernel, launches)
    fn = _load_launcher(args.launcher)
    kw = _parse_kw(args.kw)
    prefix = os.path.join(args.out, f"{args.name}_{args.phase}")
    proton.start(prefix, data="trace", backend="instrumentation", mode=_proton_mode(args.buffer_size))
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
           "--buffer-size", str(args.buffer_size), "--phase", phase, "--kw", *args.kw]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    log = os.path.join(args.out, f"{args.name}_{phase}.log")
    with open(log, "w") as f:
        f.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise FrontendError(f"{phase} phase failed (exit {proc.returncode}); last output:\n"
                            + (proc.stdout + proc.stderr)[-3000:])
    return proc.stdout + proc.stderr


def capture(args):
    if args.phase != "all":
        return _child(args)
    from .instrument import instrument_text
    os.makedirs(args.out, exist_ok=True)
    tmp_dump = os.path.join(args.out, "dump")
    shutil.rmtree(tmp_dump, ignore_errors=True)
    _run_phase(args, "dump", {"TRITON_KERNEL_DUMP": "1", "TRITON_DUMP_DIR": os.path.abspath(tmp_dump)})
    launch = json.load(open(os.path.join(args.out, f"{args.name}_dump_launch.json")))
    tag = f"w{launch['num_warps']}_s{launch['num_stages']}"
    dump = os.path.join(args.out, f"dump_{args.name}_{tag}")
    shutil.rmtree(dump, ignore_errors=True)
    os.rename(tmp_dump, dump)
    ttgirs = sorted(glob.glob(os.path.join(dump, "*", f"{args.kernel}.ttgir")))
    if not ttgirs:
        raise FrontendError(f"no {args.kernel}.ttgir under {dump}")
    override = os.path.join(args.out, f"override_{args.name}_{tag}")
    shutil.rmtree(override, ignore_errors=True)
    sites = None
    for path in ttgirs:
        text, sites = instrument_text(open(path).read())
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
    launch["proton_warnings"] = [line for line in out.splitlines() if DROP_MARK in line][:20]
    launch["ttgir_sites"] = sites
    launch["buffer_size"] = args.buffer_size
    side = os.path.join(args.out, f"{args.name}.json")
    with open(side, "w") as f:
        json.dump(launch, f, indent=1)
    print(f"capture: {trace} {side} ({len(launch['proton_warnings'])} overflow warnings)")
