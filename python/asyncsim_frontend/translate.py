"""Proton trace + capture sidecar -> asyncsim program (.asim).

Steps: read and check the trace (trace.py); replay the TTGIR's scalar data flow per CTA for the
operands (interp.py) and check that it visits the same sites in the same order as every warp of
the trace; map each scope to instructions with the fixed table below (Sim-FA Table IV); turn gaps
between scopes into `COMPUTE measured cycles=N`; fold loops per CTA and generalise over CTAs
(fold.py); write declarations from the descriptor sidecar (real base addresses and strides).

Scope -> instructions:
  TMA_LOAD    TMA_LOAD MAP [coords] bar=B   (one per 128-byte swizzle span of the inner box)
  TMA_STORE   TMA_STORE MAP [coords]        (likewise)
  MB_EXPECT   MB_ARRIVE_EXPECT_TX B bytes=N
  MB_WAIT     MB_WAIT B parity=P
  MB_ARRIVE   MB_ARRIVE B count=N
  WGMMA       WGMMA m64nNkK T ss|rs repeat=ceil(Mwg/64)*ceil(N/instrN)*ceil(K/instrK); WGMMA_COMMIT
  WGMMA_WAIT  WGMMA_WAIT N
  TMA_STORE_WAIT  TMA_STORE_WAIT N
Copies, expect_tx and store waits are issued by one thread of the CTA (Triton elects warp 0), so
in a role of several warpgroups they are emitted under `if wg == 0`. A scope whose predicate is
false issues nothing; its preceding gap moves to the next instruction.
"""
import itertools
import json
import re
import statistics

from . import FrontendError
from .fold import Item, Loop, fit_cta, fold, shape
from .interp import collect_barriers, parse, replay
from .sass import ALU_CHAIN_CYCLES, compiled_rules
from .trace import load, per_warp, warpgroups

LEADER_OPS = {"TMA_LOAD", "TMA_STORE", "MB_EXPECT", "TMA_STORE_WAIT", "MB_ARRIVE"}
_ASIM_DTYPE = {"f16": "f16", "bf16": "bf16", "f32": "f32", "tf32": "tf32", "e4m3": "e4m3",
               "e5m2": "e5m2"}
_INSTR_K_BYTES = 32


def _ident(name):
    s = re.sub(r"\W", "_", name.lstrip("%"))
    return s if re.match(r"[A-Za-z_]", s) else "_" + s


def _cdiv(a, b):
    return -(-a // b)


class Stream:
    """Builds the Items of one CTA role from replayed events and the leader warpgroup's times."""

    def __init__(self, sites, barriers, multi_wg, serial=False):
        self.sites, self.barriers, self.multi, self.serial = sites, barriers, multi_wg, serial
        self.fills, self.waits, self.arrives = {}, {}, {}
        self.since_init = {}  # slot -> waits since its last init_barrier (the recorded phases)
        self.items = []

    def init(self, slot):
        self.since_init[slot] = 0

    def bar(self, ev):
        alloc, idx = ev["bar"]
        size = self.barriers.get(alloc, (1, 1))[0]
        return _ident("bar_" + alloc), size, (alloc, idx)

    def add(self, ev, gap):
        site = self.sites[ev["site"]]
        op = site["op"]
        leader = self.multi and op in LEADER_OPS
        if op in ("TMA_LOAD", "TMA_STORE"):
            return self.tma(op, site, ev, gap, leader)
        if op == "MB_EXPECT":
            name, size, slot = self.bar(ev)
            n = self.fills.get(slot, 0)
            self.fills[slot] = n + 1
            g = slot[1] + size * n
            self.push(("EXP", name, size, site["bytes"]), f"MB_ARRIVE_EXPECT_TX {name}[{{0}}] "
                      f"bytes={site['bytes']}", [("mod", size)], [g], gap, leader)
        elif op == "MB_WAIT":
            name, size, slot = self.bar(ev)
            n = self.waits.get(slot, 0)
            self.waits[slot] = n + 1
            local = self.since_init.get(slot, n)
            self.since_init[slot] = local + 1
            g = slot[1] + size * n
            # The simulated barrier is initialised once, so its phases run on across a re-init
            # in the kernel: the n-th wait of a slot waits for parity n % 2 (n over the whole
            # kernel) whenever the recorded phase is the count since the last init.
            if ev.get("phase", local % 2) == local % 2:
                self.push(("WAIT", name, size), f"MB_WAIT {name}[{{0}}] parity={{1}}",
                          [("mod", size), ("par", size)], [g, g], gap, leader)
            else:
                self.push(("WAITP", name, size), f"MB_WAIT {name}[{{0}}] parity={{1}}",
                          [("mod", size), ("v",)], [g, ev["phase"]], gap, leader)
        elif op == "MB_ARRIVE":
            name, size, slot = self.bar(ev)
            n = self.arrives.get(slot, 0)
            self.arrives[slot] = n + 1
            self.push(("ARR", name, size, site["count"]), f"MB_ARRIVE {name}[{{0}}] "
                      f"count={site['count']}", [("mod", size)], [slot[1] + size * n], gap, leader)
        elif op == "WGMMA":
            self.push(("WGMMA",) + self.wgmma(site), self.wgmma_text(site), [], [], gap, leader)
        elif op in ("WGMMA_WAIT", "TMA_STORE_WAIT"):
            self.push((op, site["pendings"]), f"{op} {site['pendings']}", [], [], gap, leader)
        else:
            raise FrontendError(f"no translation for scope {op}")
        return None

    @staticmethod
    def wgmma(site):
        wpc_m = site["warpsPerCTA"][0]
        m_wg = site["M"] // (wpc_m // 4) if wpc_m >= 4 else site["M"]
        k_instr = site["instrK"]
        rep = _cdiv(m_wg, 64) * _cdiv(site["N"], site["instrN"]) * _cdiv(site["K"], k_instr)
        return site["instrN"], k_instr, site["dtype"], site["mode"].lower(), rep

    def wgmma_text(self, site):
        n, k, dt, mode, rep = self.wgmma(site)
        if dt not in _ASIM_DTYPE:
            raise FrontendError(f"wgmma input type {dt} has no asyncsim equivalent")
        if self.serial:  # ptxas waits for every wgmma before the next (sass.py)
            return "\n".join([f"WGMMA m64n{n}k{k} {dt} {mode} repeat=1\nWGMMA_COMMIT\nWGMMA_WAIT 0"] * rep)
        return f"WGMMA m64n{n}k{k} {dt} {mode} repeat={rep}\nWGMMA_COMMIT"

    def bar_sync(self, bars, threads, gap):
        """The CTA-wide bar.syncs the compiled kernel executes before a site (sass.py)."""
        text = "\n".join(f"BAR_SYNC {b} threads={t or threads}" for b, t in bars)
        self.push(("BAR", tuple(bars)), text, [], [], gap, False)

    def tma(self, op, site, ev, gap, leader):
        esize = site["bytes"]
        for d in site["block"]:
            esize //= d
        inner = site["block"][-1]
        box = min(inner, site["swizzle"] // esize) if site["swizzle"] else inner
        coords = list(reversed(ev["coords"]))
        name = _ident(site["desc"])
        rank = len(coords)
        # one TTGIR copy -> one instruction per swizzle span of the inner box (one Item)
        vals, kinds, lines = [], [], []
        if op == "TMA_LOAD":
            bname, size, slot = self.bar(ev)
            n = max(self.fills.get(slot, 1) - 1, 0)
            vals.append(slot[1] + size * n)
            kinds.append(("mod", size))
        for j in range(_cdiv(inner, box)):
            base = len(vals)
            vals += [coords[0] + j * box] + coords[1:]
            kinds += [("v",)] * rank
            ph = ", ".join(f"{{{base + k}}}" for k in range(rank))
            lines.append(f"TMA_LOAD {name} [{ph}] bar={bname}[{{0}}]" if op == "TMA_LOAD"
                         else f"TMA_STORE {name} [{ph}]")
        key = (op, name, len(lines)) + ((bname, size) if op == "TMA_LOAD" else ())
        self.push(key, "\n".join(lines), kinds, vals, gap, leader)

    def push(self, key, text, kinds, vals, gap, leader):
        self.items.append(Item(key + (leader,), text, kinds, vals, gap, leader))


# bar.sync release after the last arrival, as asyncsim models it (configs/h200.yaml
# barrier.named_cycles): part of every measured gap that ends at a bar.sync, not work.
BAR_RELEASE_CYCLES = 20


def _role_warps(ttgir, num_warps):
    """[(role, first warp, warps)]: the default region, then each warp_specialize partition."""
    roles = [("default", 0, num_warps)]
    nxt = num_warps
    for k, m in enumerate(re.finditer(r"partition(\d+)\([^)]*\)\s*num_warps\((\d+)\)", ttgir)):
        roles.append((f"partition{m.group(1)}", nxt, int(m.group(2))))
        nxt += int(m.group(2))
    return roles


def _estimate_overhead(all_gaps):
    pos = sorted(g for g in all_gaps if g is not None and g >= 0)
    return pos[len(pos) // 50] if pos else 0


def build_streams(launch, ctas, path, barriers, rules, skip_overhead=0):
    """Per role and CTA, the program items of the lead warpgroup's events. An event that emits
    no instruction (predicated off, or a wait_group ptxas dropped) leaves its gaps to the next
    item; its own start/end records are instrumentation, `skip_overhead` cycles, taken out.
    Returns (streams, roles, how many gaps before a bar.sync the plain PTX capped)."""
    ttgir = launch["ttgir_sites"]["ttgir"]
    sites = launch["ttgir_sites"]["sites"]
    func = parse(ttgir)
    roles = _role_warps(ttgir, launch["num_warps"])
    gx, gy, _ = launch["grid"]
    streams = {}
    capped = 0
    for cta in sorted(ctas):
        pid = (cta % gx, (cta // gx) % gy, cta // (gx * gy))
        events, _ = replay(ttgir, launch, pid) if func else ({}, None)
        wgs = warpgroups(ctas[cta], cta, path)
        for role, w0, nw in roles:
            allev = events.get(role, [])
            rev = [e for e in allev if "site" in e]
            want = [e["site"] for e in rev]
            lead = None
            every = []
            for wg in range(w0 // 4, (w0 + nw) // 4):
                got = wgs.get(wg)
                if got is None:
                    if want:
                        raise FrontendError(f"{path}: CTA {cta}: warpgroup {wg} ({role}) has no "
                                            f"events; the TTGIR replay expects {len(want)}")
                    continue
                sites_got = [s for _, _, s in got]
                if sites_got != want:
                    k = next((i for i, (a, b) in enumerate(zip(sites_got, want)) if a != b),
                             min(len(sites_got), len(want)))
                    raise FrontendError(
                        f"{path}: CTA {cta} warpgroup {wg} ({role}): the trace has {len(sites_got)} "
                        f"events, the TTGIR replay {len(want)}; first difference at event {k} "
                        f"(trace site {sites_got[k] if k < len(sites_got) else 'none'}, replay site "
                        f"{want[k] if k < len(want) else 'none'}): dropped events or a TTGIR that "
                        "is not the one profiled")
                lead = lead or got
                every.append(got)
            if lead is None:
                continue
            st = Stream(sites, barriers, nw // 4 > 1, rules["serial"])
            threads = launch.get("total_warps", launch["num_warps"]) * 32
            pending, prev_end = 0, None
            # per warpgroup: end of its previous event and its gaps not yet charged
            ends = [None] * len(every)
            waits = [0] * len(every)
            times = iter(lead)
            k = -1
            for ev in allev:
                if "init" in ev:
                    st.init(ev["init"])
                    continue
                k += 1
                start, end, _ = next(times)
                gap = None if prev_end is None else start - prev_end
                prev_end = end
                for w, got in enumerate(every):
                    if ends[w] is not None:
                        waits[w] += got[k][0] - ends[w]
                    ends[w] = got[k][1]
                bars = rules["bars"].get(ev["site"])
                if bars:  # executed whether or not the op's predicate holds
                    # A warpgroup's gap up to a bar.sync is its own work plus its wait for the
                    # others; the simulator models the wait, so only the work is charged: the
                    # smallest gap over the warpgroups, that of the last one to arrive.
                    # The release after the last arrival is the simulator's barrier latency.
                    # The plain kernel's instructions before the bar.sync bound that work
                    # (sass.py, ALU_CHAIN_CYCLES): the rest is the records of every warp that
                    # meets there, sharing the warp schedulers. Capped before the overhead is
                    # taken from the median, so the emitted COMPUTE is at most the bound.
                    work = None if gap is None else max(0, min(waits) - BAR_RELEASE_CYCLES * len(bars))
                    cap = rules.get("work", {}).get(ev["site"])
                    if work is not None and cap is not None and work > cap + skip_overhead:
                        work = cap + skip_overhead
                        capped += 1
                    st.bar_sync(bars, threads, work)
                    gap, pending = None, 0
                # With every wgmma serialised (rules["serial"]), a later wgmma.wait_group has
                # nothing to wait for and ptxas leaves it out of the SASS (the 128x256 w8 GEMM's
                # loop has no WARPGROUP.DEPBAR.LE gsb0, 0x1): no instruction, its gap carries on.
                dropped = rules["serial"] and sites[ev["site"]]["op"] == "WGMMA_WAIT"
                if bars or (ev["pred"] and not dropped):  # gaps so far charged (bar, or the op)
                    waits = [0] * len(every)
                if not ev["pred"] or dropped:
                    pending += (gap or 0) - skip_overhead
                    waits = [w - skip_overhead for w in waits]
                    continue
                if gap is not None:
                    gap += pending
                pending = 0
                st.add(ev, gap)
            streams.setdefault(role, {})[cta] = st.items
    return streams, roles, capped


def _rename(nodes):
    """Name loop variables by their order in the tree (i0, i1, ...) so CTAs can be compared."""
    mapping = {}

    def walk(ns):
        for n in ns:
            if isinstance(n, Loop):
                mapping[n.var] = f"i{len(mapping)}"
                n.var = mapping[n.var]
                walk(n.body)
    walk(nodes)
    for n in nodes:
        for f in n.all_forms():
            for old in [k for k in f if k]:
                f[mapping[old]] = f.pop(old)
    return nodes


def _render_form(form, kind):
    terms = []
    for var, c in form.items():
        if var == "":
            continue
        if c == "0" or c == 0:
            continue
        terms.append(var if str(c) == "1" else f"({c}) * {var}" if not str(c).lstrip("-").isdigit()
                     else f"{c} * {var}")
    const = form.get("", 0)
    if str(const) not in ("0",) or not terms:
        terms.insert(0, str(const) if str(const).lstrip("-").isdigit() else f"({const})")
    expr = " + ".join(terms)
    const_only = len(terms) == 1 and str(const).lstrip("-").isdigit() and not any(k for k in form if k and str(form[k]) != "0")
    if kind[0] == "v":
        return expr
    size = kind[1]
    if size == 1:
        return "0"
    if const_only:
        v = int(const)
        return str(v % size) if kind[0] == "mod" else str((v // size) % 2)
    return f"({expr}) % {size}" if kind[0] == "mod" else f"(({expr}) / {size}) % 2"


def _merge_group(ctas, per_cta, divisors):
    """Fit every form coefficient over the CTAs of one shape group; None if one does not fit."""
    ref = per_cta[ctas[0]]
    flat = {c: [f for n in per_cta[c] for f in n.all_forms()] for c in ctas}
    items = {c: [i for n in per_cta[c] for i in n.items()] for c in ctas}
    out_forms = []
    for k, f0 in enumerate(flat[ctas[0]]):
        keys = set()
        for c in ctas:
            keys |= set(flat[c][k])
        form = {}
        for var in keys:
            vals = [flat[c][k].get(var, 0) for c in ctas]
            e = fit_cta(ctas, vals, divisors)
            if e is None:
                return None
            form[var] = e
        out_forms.append(form)
    for f0, form in zip(flat[ctas[0]], out_forms):
        f0.clear()
        f0.update(form)
    for k, it in enumerate(items[ctas[0]]):
        for c in ctas[1:]:
            it.gaps.extend(items[c][k].gaps)
    return ref


def _emit_nodes(nodes, indent, lines, min_gap, overhead, measured):
    pad = "  " * indent
    open_leader = False
    for n in nodes:
        if isinstance(n, Loop):
            if open_leader:
                lines.append(pad + "end")
                open_leader = False
            lines.append(f"{pad}loop {n.var} = 0, {n.trips}")
            _emit_nodes(n.body, indent + 1, lines, min_gap, overhead, measured)
            lines.append(pad + "end")
            continue
        gap = int(statistics.median(n.gaps)) - overhead if n.gaps else 0
        if gap >= min_gap:
            # between two copies of the issuing warpgroup the gap stays inside its `if wg == 0`
            # block, so that expect_tx and the loads it covers share one straight-line block
            if open_leader and not n.leader:
                lines.append(pad + "end")
                open_leader = False
            lines.append(f"{pad}{'  ' if open_leader else ''}COMPUTE measured cycles={gap}")
            measured.append(gap)
        vals = [_render_form(f, k) for f, k in zip(n.forms, n.kinds)]
        text = n.template.format(*vals)
        if n.leader and not open_leader:
            lines.append(pad + "if wg == 0")
            open_leader = True
        elif not n.leader and open_leader:
            lines.append(pad + "end")
            open_leader = False
        ipad = pad + ("  " if n.leader else "")
        lines.extend(ipad + t for t in text.split("\n"))
    if open_leader:
        lines.append(pad + "end")


def _ranges(ctas):
    ctas = sorted(ctas)
    out, start = [], ctas[0]
    for a, b in zip(ctas, ctas[1:] + [None]):
        if b != a + 1:
            out.append((start, a))
            start = b
    return out


def packed_bases(launch):
    """{recorded base: new base}: the tensors of the descriptor arguments, in argument order,
    placed from 4 GiB on at 2 MiB-aligned addresses, one after the other, as `asyncsim gemm`
    places A, B and C. The recorded addresses are virtual: the GPU reaches DRAM through page
    tables, so where torch's allocator put a tensor says nothing about its DRAM channels; what
    the simulator's address hashing makes of 0x7f... pointers is a property of the model."""
    out, nxt = {}, 1 << 32
    align = 2 << 20
    for a in launch["args"]:
        if a["kind"] != "tensordesc" or a["base"] in out:
            continue
        extent = a["element_size"] * (1 + sum((n - 1) * st for n, st in zip(a["shape"], a["strides"])))
        out[a["base"]] = nxt
        nxt = -(-(nxt + extent) // align) * align
    return out


def _declarations(launch, barriers, sites, divisors_out, bases="recorded"):
    lines = []
    descs = {a["name"]: a for a in launch["args"] if a["kind"] == "tensordesc"}
    remap = packed_bases(launch) if bases == "packed" else {}
    used = {}
    for s in sites:
        if "desc" in s:
            used.setdefault(s["desc"], s)
    for ssa, s in used.items():
        d = descs.get(ssa.lstrip("%"))
        if d is None:
            raise FrontendError(f"descriptor {ssa} used by site {s['site']} is not a "
                                "TensorDescriptor argument of the launch (sidecar has: "
                                f"{', '.join(descs) or 'none'})")
        es = d["element_size"]
        dims = list(reversed(d["shape"]))
        strides = [st * es for st in reversed(d["strides"][:-1])]
        inner = d["block_shape"][-1]
        box_inner = min(inner, s["swizzle"] // es) if s["swizzle"] else inner
        box = [box_inner] + list(reversed(d["block_shape"][:-1]))
        dt = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float8_e4m3fn": "e4m3",
              "float8_e5m2": "e5m2"}.get(d["dtype"], s["dtype"])
        sw = f" swizzle={s['swizzle']}B" if s["swizzle"] else ""
        lines.append(f"tensormap {_ident(ssa)} dtype={dt} dims=[{', '.join(map(str, dims))}] "
                     f"strides=[{', '.join(map(str, strides))}] box=[{', '.join(map(str, box))}] "
                     f"base={hex(remap.get(d['base'], d['base']))}{sw}")
        divisors_out += [_cdiv(a, b) for a, b in zip(d["shape"], d["block_shape"])]
    for alloc, (size, arrivals) in barriers.items():
        lines.append(f"mbarrier {_ident('bar_' + alloc)}[{size}] arrivals={arrivals}")
    return lines


def translate(trace_path, launch, min_gap=32, record_overhead=None, ptx=None, sass=None,
              compiled=True, bases="recorded"):
    if launch.get("proton_warnings"):
        raise FrontendError(f"{trace_path}: Proton's buffer overflowed and dropped events "
                            f"({launch['proton_warnings'][0].strip()}); capture again with a "
                            "larger --buffer-size")
    ctas = per_warp(load(trace_path), trace_path,
                    [s["op"] for s in launch["ttgir_sites"]["sites"]])
    gx, gy, gz = launch["grid"]
    if len(ctas) != gx * gy * gz:
        raise FrontendError(f"{trace_path}: {len(ctas)} CTAs in the trace, the grid has "
                            f"{gx * gy * gz}: events of some CTAs were lost")
    ttgir = launch["ttgir_sites"]["ttgir"]
    sites = launch["ttgir_sites"]["sites"]
    barriers = collect_barriers(ttgir, launch)
    rules = compiled_rules(launch, ptx, sass) if compiled else {
        "bars": {}, "serial": False, "report": "PTX/SASS rules off"}
    if record_overhead is None:
        # every gap between two consecutive records of one warp holds one end and one start
        # record; the smallest gaps are nothing else
        raw = []
        for cta in ctas:
            for got in warpgroups(ctas[cta], cta, trace_path).values():
                raw += [b[0] - a[1] for a, b in zip(got, got[1:])]
        overhead = _estimate_overhead(raw)
    else:
        overhead = record_overhead
    streams, roles, capped = build_streams(launch, ctas, trace_path, barriers, rules, overhead)
    if rules.get("work"):
        rules["report"] += (f"; {capped} gaps before a bar.sync capped at the plain PTX's "
                            f"instructions there ({ALU_CHAIN_CYCLES} cycles each)")
    divisors = [gx]
    decl = _declarations(launch, barriers, sites, divisors, bases)
    names = (f"i{k}" for k in itertools.count())
    body, report, measured = [], [], []
    for role, w0, nw in roles:
        per = streams.get(role)
        if not per:
            continue
        folded = {c: _rename(fold(items, names)) for c, items in per.items()}
        groups = {}
        for c in sorted(folded):
            groups.setdefault(shape(folded[c]), []).append(c)
        body.append(f"role {role if role != 'default' else 'main'} warpgroups={nw // 4}")
        blocks = []
        for g_ctas in groups.values():
            merged = _merge_group(g_ctas, folded, divisors)
            if merged is not None:
                blocks.append((g_ctas, merged))
            else:
                blocks += [([c], _merge_group([c], folded, divisors)) for c in g_ctas]
        report.append(f"role {role}: {len(per)} CTAs, {len(groups)} loop shapes, "
                      f"{len(blocks)} code blocks")
        for g_ctas, nodes in blocks:
            if len(blocks) == 1:
                _emit_nodes(nodes, 1, body, min_gap, overhead, measured)
                continue
            for a, b in _ranges(g_ctas):
                cond = f"cta == {a}" if a == b else f"cta >= {a} && cta <= {b}"
                body.append(f"  if {cond}")
                _emit_nodes(nodes, 2, body, min_gap, overhead, measured)
                body.append("  end")
        body.append("  EXIT")
        body.append("end")
    # The machine code's size, fetched cold at launch (resources code=): 16 B per SASS
    # instruction of the uninstrumented kernel; unknown without its SASS.
    listing = sass if sass is not None else launch.get("uninstrumented", {}).get("sass")
    code = 16 * len(re.findall(r"/\*[0-9a-f]{4,}\*/", listing)) if listing else 0
    regs = launch.get("uninstrumented", {}).get("n_regs") or launch.get("n_regs") or 128
    smem = launch.get("uninstrumented", {}).get("shared") or launch.get("shared") or 0
    head = [f"# Translated by asyncsim_frontend from {trace_path.split('/')[-1]} (Proton trace of "
            f"{launch['kernel']}, num_warps={launch['num_warps']}, num_stages={launch['num_stages']}).",
            f"# COMPUTE measured: gaps between recorded scopes in SM cycles, median over "
            f"iterations and CTAs, minus {overhead} cycles of recording overhead; gaps < {min_gap} dropped.",
            f"kernel {_ident(launch['kernel'])}",
            f"grid {gx} {gy} {gz}",
            f"resources regs={regs} smem={smem}" + (f" code={code}" if code else "")] + decl + [""]
    report.append(f"record overhead {overhead} cycles; {len(measured)} COMPUTE lines")
    report.append(rules["report"])
    head.insert(2, f"# Compiled code (PTX/SASS of the uninstrumented kernel): {rules['report']}.")
    return "\n".join(head + body) + "\n", report


def translate_files(trace_path, sidecar_path, min_gap=32, record_overhead=None, ptx_path=None,
                    sass_path=None, compiled=True, bases="recorded"):
    try:
        launch = json.load(open(sidecar_path))
    except json.JSONDecodeError as e:
        raise FrontendError(f"{sidecar_path}: not JSON ({e})") from e
    for k in ("grid", "num_warps", "args", "ttgir_sites", "kernel"):
        if k not in launch:
            raise FrontendError(f"{sidecar_path}: missing '{k}' (write it with `capture`)")
    if launch.get("records", "all") != "all":
        raise FrontendError(f"{sidecar_path}: captured with --records {launch['records']}, which "
                            "times the CTA and is not a program; capture with --records all")
    ptx = open(ptx_path).read() if ptx_path else None
    sass = open(sass_path).read() if sass_path else None
    return translate(trace_path, launch, min_gap, record_overhead or None, ptx, sass, compiled,
                     bases)
