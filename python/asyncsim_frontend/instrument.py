"""Source-to-source instrumentation of a .ttgir: wrap every TMA / wgmma / mbarrier op in
`proton.record start "..."` / `proton.record end "..."` with a structured scope string.

Scope string: `ASIM|OP|key=value|...|site=N`, e.g.
  ASIM|WGMMA|M=128|N=128|K=64|instrM=64|instrN=128|instrK=16|dtype=f16|acc=f32|mode=SS|site=7
  ASIM|TMA_LOAD|desc=%arg0|block=128x64|dtype=f16|bytes=16384|bar=%45|site=3
The site table returned with the text keeps what the translator needs (operand SSA names, types)
so it can replay the scalar data flow of the kernel (interp.py).
"""
import re

from . import FrontendError
from .ttgir import SSA, aliases, dtype_info, resolve, shaped, split_type_list, strip_loc, swizzle_bytes

TARGETS = {
    "ttng.async_tma_copy_global_to_local": "TMA_LOAD",
    "ttng.async_tma_copy_local_to_global": "TMA_STORE",
    "ttng.async_tma_store_wait": "TMA_STORE_WAIT",
    "ttng.warp_group_dot": "WGMMA",
    "ttng.warp_group_dot_wait": "WGMMA_WAIT",
    "ttng.wait_barrier": "MB_WAIT",
    "ttng.arrive_barrier": "MB_ARRIVE",
    "ttng.barrier_expect": "MB_EXPECT",
}
PREFIX = "ASIM"
_OP_RE = re.compile(r"^\s*(?:(%[^=]+?)\s*=\s*)?(ttng\.[a-z_]+)\b(.*)$")


def _operands_and_types(rest):
    """Split `%a[%b, %c] %d, %e {attrs} : T1, T2 -> T3` into (operand text, attrs, type text)."""
    attrs = ""
    start = rest.find("{")
    colon = rest.find(" : ")
    if start >= 0 and (colon < 0 or start < colon):
        depth = 0
        for i in range(start, len(rest)):
            depth += {"{": 1, "}": -1}.get(rest[i], 0)
            if depth == 0:
                attrs = rest[start:i + 1]
                rest = rest[:start] + rest[i + 1:]
                break
    body, _, types = rest.partition(" : ")
    return body, attrs, types


def _tma_fields(op, body, types, amap):
    m = re.match(r"\s*(" + SSA + r")\[([^\]]*)\]\s*(.*)$", body)
    if not m:
        raise FrontendError(f"cannot read the operands of {op}: '{body.strip()}'")
    desc = m.group(1)
    coords = [c.strip() for c in m.group(2).split(",") if c.strip()]
    rest = re.findall(SSA, m.group(3))
    tlist = split_type_list(types.split("->")[0])
    dims, elem = shaped(tlist[0])
    if dims is None:
        raise FrontendError(f"cannot read the descriptor type of {op}: '{tlist[0]}'")
    name, esize = dtype_info(elem)
    nbytes = esize
    for d in dims:
        nbytes *= d
    full = resolve(types, amap)
    f = {"desc": desc, "coords": coords, "block": dims, "dtype": name, "bytes": nbytes,
         "swizzle": swizzle_bytes(full)}
    if op == "TMA_LOAD":
        if len(rest) < 2:
            raise FrontendError(f"TMA load without barrier operand: '{body.strip()}'")
        f.update(smem=rest[0], bar=rest[1], pred=rest[2] if len(rest) > 2 else None)
    else:
        f.update(smem=rest[0] if rest else None)
    return f


def _wgmma_fields(body, types, amap):
    ops = re.findall(SSA, body)
    lhs, _, res = types.partition("->")
    a_t, _, b_t = lhs.partition(" * ")
    a_dims, a_elem = shaped(a_t)
    b_dims, _ = shaped(b_t)
    c_dims, c_elem = shaped(res)
    if not (a_dims and b_dims and c_dims):
        raise FrontendError(f"cannot read the wgmma types '{types.strip()}'")
    mma = resolve(res, amap)
    ishape = re.search(r"instrShape\s*=\s*\[(\d+),\s*(\d+),\s*(\d+)\]", mma)
    wpc = re.search(r"warpsPerCTA\s*=\s*\[(\d+),\s*(\d+)\]", mma)
    if not ishape:
        raise FrontendError(f"wgmma result without an nvidia_mma instrShape: '{res.strip()}'")
    return {"M": c_dims[-2], "N": c_dims[-1], "K": a_dims[-1], "instrM": 64,
            "instrN": int(ishape.group(2)), "instrK": int(ishape.group(3)),
            "warpsPerCTA": [int(wpc.group(1)), int(wpc.group(2))] if wpc else [4, 1],
            "dtype": dtype_info(a_elem)[0], "acc": dtype_info(c_elem)[0],
            "mode": "SS" if "memdesc" in a_t else "RS", "operands": ops}


def _site_fields(op, body, attrs, types, amap):
    if op in ("TMA_LOAD", "TMA_STORE"):
        return _tma_fields(op, body, types, amap)
    if op == "WGMMA":
        return _wgmma_fields(body, types, amap)
    if op in ("WGMMA_WAIT", "TMA_STORE_WAIT"):
        m = re.search(r"pendings\s*=\s*(\d+)", attrs)
        return {"pendings": int(m.group(1)) if m else 0}
    ops = re.findall(SSA, body)
    if op == "MB_WAIT":
        return {"bar": ops[0], "phase": ops[1] if len(ops) > 1 else None,
                "pred": ops[2] if len(ops) > 2 and " deps " not in body.split(ops[2])[0] else None}
    if op == "MB_EXPECT":
        m = re.match(r"\s*" + SSA + r"\s*,\s*(\d+)", body)
        if not m:
            raise FrontendError(f"cannot read barrier_expect bytes: '{body.strip()}'")
        return {"bar": ops[0], "bytes": int(m.group(1)), "pred": ops[1] if len(ops) > 1 else None}
    if op == "MB_ARRIVE":
        m = re.match(r"\s*" + SSA + r"\s*,\s*(\d+)", body)
        return {"bar": ops[0], "count": int(m.group(1)) if m else 1,
                "pred": ops[1] if len(ops) > 1 else None}
    return {}


def scope_name(site, op, f):
    keys = {
        "TMA_LOAD": ["desc", "block", "dtype", "bytes", "bar"],
        "TMA_STORE": ["desc", "block", "dtype", "bytes"],
        "WGMMA": ["M", "N", "K", "instrM", "instrN", "instrK", "dtype", "acc", "mode"],
        "WGMMA_WAIT": ["pendings"], "TMA_STORE_WAIT": ["pendings"],
        "MB_WAIT": ["bar"], "MB_EXPECT": ["bar", "bytes"], "MB_ARRIVE": ["bar", "count"],
    }[op]
    parts = [PREFIX, op]
    for k in keys:
        v = f[k]
        if isinstance(v, list):
            v = "x".join(str(x) for x in v)
        parts.append(f"{k}={v}")
    parts.append(f"site={site}")
    return "|".join(parts)


RECORDS = ("all", "bracket")


def instrument_text(text, records="all"):
    """Return (instrumented text, site table). Fails on an already instrumented file.

    records="bracket" wraps only the first and the last target op of the text: a CTA's span
    with (almost) no instrumentation inside it, to measure what the full records cost
    (validation/traces/record_cost.py). Its trace is not for translation."""
    if "proton.record" in text:
        raise FrontendError("the TTGIR already contains proton.record ops")
    if records not in RECORDS:
        raise FrontendError(f"records must be one of {', '.join(RECORDS)}, not '{records}'")
    amap = aliases(text)
    out, sites = [], []
    lines = text.splitlines(keepends=True)
    targets = [i for i, raw in enumerate(lines)
               if (m := _OP_RE.match(strip_loc(raw))) and m.group(2) in TARGETS]
    keep = set(targets) if records == "all" else {targets[0], targets[-1]} if targets else set()
    for lineno, raw in enumerate(lines, 1):
        line = strip_loc(raw)
        m = _OP_RE.match(line)
        kind = TARGETS.get(m.group(2)) if m and lineno - 1 in keep else None
        if not kind:
            out.append(raw)
            continue
        body, attrs, types = _operands_and_types(m.group(3))
        f = _site_fields(kind, body, attrs, types, amap)
        site = len(sites)
        name = scope_name(site, kind, f)
        f.update(site=site, op=kind, line=lineno, results=m.group(1).strip() if m.group(1) else None)
        sites.append(f)
        indent = re.match(r"\s*", raw).group(0)
        out.append(f'{indent}proton.record start "{name}"\n')
        out.append(raw if raw.endswith("\n") else raw + "\n")
        out.append(f'{indent}proton.record end "{name}"\n')
    return "".join(out), {"sites": sites, "ttgir": "".join(out)}
