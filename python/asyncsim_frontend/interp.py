"""Replay of the scalar data flow of an instrumented TTGIR for one CTA.

Proton records only *when* each scope ran, not its operands. The operands the program needs
(TMA coordinates, barrier slots and phases, predicates) are scalar integer values of the kernel,
so they are recomputed here from the TTGIR: arith ops on scalars, tt.get_program_id, scf.for /
scf.if / scf.yield, memdesc_index of barrier and buffer allocations. Tensor values stay unknown;
an unknown value that decides control flow or an operand is an error naming the line.

replay() returns, per role ('default' or 'partitionN'), the list of site events in program order:
{'site': N, 'pred': bool, 'coords': [...], 'bar': (alloc, index), 'phase': p}, and
{'init': (alloc, index)} where a barrier is initialised (not a recorded scope).
"""
import re

from . import FrontendError
from .ttgir import SSA, shaped, split_type_list, strip_loc

_RECORD = re.compile(r'^\s*proton\.record (start|end) "([^"]*)"')
_ASSIGN = re.compile(r"^\s*((?:%[^\s=,]+(?::\d+)?)(?:\s*,\s*%[^\s=,]+)*)\s*=\s*([a-z_]+\.[a-z_0-9]+)(.*)$")
_BARE = re.compile(r"^\s*([a-z_]+\.[a-z_0-9]+)(.*)$")
_INT_BIN = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.minsi": min, "arith.maxsi": max,
    "arith.minui": min, "arith.maxui": max,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b, "arith.shli": lambda a, b: a << b,
    "arith.shrsi": lambda a, b: a >> b, "arith.shrui": lambda a, b: a >> b,
    "arith.divsi": lambda a, b: int(a / b) if b else None,
    "arith.divui": lambda a, b: a // b if b else None,
    "arith.remsi": lambda a, b: a - b * int(a / b) if b else None,
    "arith.remui": lambda a, b: a % b if b else None,
    "arith.ceildivsi": lambda a, b: -((-a) // b) if b else None,
    "arith.floordivsi": lambda a, b: a // b if b else None,
}
_CMP = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
        "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
        "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b,
        "uge": lambda a, b: a >= b}
_IDENT = {"arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast", "arith.index_castui",
          "arith.bitcast", "ttg.memdesc_trans", "ttg.memdesc_reinterpret", "ttg.convert_layout"}


class Node:
    __slots__ = ("line", "op", "results", "rest", "regions", "site", "headers")

    def __init__(self, line, op, results, rest):
        self.line, self.op, self.results, self.rest = line, op, results, rest
        self.regions, self.site, self.headers = [], None, []


def _results(text):
    """['%a', '%b#0', ...] names defined by `%a, %b:2 =`."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if ":" in part:
            name, n = part.split(":")
            out.append((name, int(n)))
        else:
            out.append((part, 0))
    return out


def parse(text):
    """Tree of Nodes for the body of the kernel function (the first tt.func public)."""
    lines = text.splitlines()
    i = 0
    while i < len(lines) and "tt.func public" not in lines[i]:
        i += 1
    if i == len(lines):
        raise FrontendError("no `tt.func public` in the TTGIR")
    func = Node(i + 1, "tt.func", [], strip_loc(lines[i]))
    body, i = _parse_block(lines, i + 1)
    func.regions.append(body)
    return func


def _parse_block(lines, i):
    nodes, pending_site = [], None
    while i < len(lines):
        raw = strip_loc(lines[i])
        s = raw.strip()
        if not s or s.startswith("//"):
            i += 1
            continue
        if s.startswith("}"):
            return nodes, i
        m = _RECORD.match(raw)
        if m:
            if m.group(1) == "start":
                sm = re.search(r"\|site=(\d+)", m.group(2))
                pending_site = int(sm.group(1)) if sm else None
            i += 1
            continue
        m = _ASSIGN.match(raw)
        if m:
            node = Node(i + 1, m.group(2), _results(m.group(1)), m.group(3))
        else:
            m = _BARE.match(raw)
            # generic-form ops ("tt.reduce"(...) ({ ... })) are opaque but their regions are skipped
            node = Node(i + 1, m.group(1), [], m.group(2)) if m else Node(i + 1, "generic", [], raw)
        if node.op.startswith("ttng.") and pending_site is not None:
            node.site, pending_site = pending_site, None
        i += 1
        if s.endswith("{"):
            while True:
                block, i = _parse_block(lines, i)
                node.regions.append(block)
                closing = strip_loc(lines[i]).strip() if i < len(lines) else "}"
                i += 1
                if closing.endswith("{"):  # `} else {`, `partition0(...) num_warps(4) {`
                    node.headers.append(closing)
                    continue
                nxt = strip_loc(lines[i]).strip() if i < len(lines) else ""
                if re.match(r"^(default|partition\d+)\b.*\{$", nxt):
                    node.headers.append(nxt)
                    i += 1
                    continue
                break
        nodes.append(node)
    return nodes, i


class Replay:
    def __init__(self, func, args, pid, grid, sites):
        self.func, self.pid, self.grid, self.sites = func, pid, grid, sites
        self.env = dict(args)
        self.allocs = {}      # alloc name -> shape
        self.inits = {}       # alloc name -> arrivals
        self.events = {}      # role -> list
        self.role = "default"

    def val(self, name, node, need=True):
        if re.fullmatch(r"-?\d+", name):
            return int(name)
        v = self.env.get(name)
        if v is None and need:
            raise FrontendError(f"TTGIR line {node.line}: value {name} of `{node.op}` is not a "
                                "scalar the frontend can recompute")
        return v

    def bind(self, node, values):
        names = []
        for name, n in node.results:
            names += [f"{name}#{k}" for k in range(n)] if n else [name]
        for k, name in enumerate(names):
            self.env[name] = values[k] if k < len(values) else None
        if len(names) == 1 and node.results[0][1]:
            self.env[node.results[0][0]] = values[0] if values else None

    def run(self):
        self.block(self.func.regions[0])
        return self.events

    def block(self, nodes):
        for node in nodes:
            out = self.exec(node)
            if out is not None:
                return out
        return None

    def exec(self, node):
        op, rest = node.op, node.rest
        if node.site is not None:
            self.emit(node)
        if op == "scf.yield" or op == "ttg.warp_yield":
            return [self.env.get(n) for n in re.findall(SSA, rest.split(" : ")[0])]
        if op == "arith.constant":
            m = re.match(r"\s*(-?\d+|true|false)\s*(?::\s*(\S+))?", rest)
            v = None
            if m and not rest.strip().startswith("dense"):
                v = {"true": 1, "false": 0}.get(m.group(1), None)
                v = int(m.group(1)) if v is None else v
            self.bind(node, [v])
        elif op in _INT_BIN or op in _IDENT or op in ("arith.cmpi", "arith.select"):
            self.bind(node, [self.scalar(node)])
        elif op == "tt.get_program_id":
            self.bind(node, [self.pid["xyz".index(rest.split()[0])]])
        elif op == "tt.get_num_programs":
            self.bind(node, [self.grid["xyz".index(rest.split()[0])]])
        elif op == "ttg.local_alloc":
            dims, elem = shaped(rest.split("->")[-1])
            name = node.results[0][0]
            self.allocs[name] = (dims, elem)
            self.bind(node, [(name, ())])
        elif op in ("ttg.memdesc_index", "ttg.memdesc_subview"):
            m = re.match(r"\s*(" + SSA + r")\[([^\]]*)\]", rest)
            base = self.env.get(m.group(1))
            idx = [self.val(x.strip(), node, need=False) for x in m.group(2).split(",")]
            self.bind(node, [(base[0], base[1] + (idx[0],)) if base and idx[0] is not None else None])
        elif op in ("ttg.memdesc_trans", "ttg.memdesc_reinterpret"):
            self.bind(node, [self.env.get(re.findall(SSA, rest)[0])])
        elif op == "ttng.init_barrier":
            ref = self.env.get(re.findall(SSA, rest)[0])
            m = re.search(r",\s*(\d+)", rest)
            if ref:
                self.inits[ref[0]] = int(m.group(1)) if m else 1
                # a barrier initialised again (a pipeline set up per tile) restarts its phases
                self.events.setdefault(self.role, []).append(
                    {"init": (ref[0], ref[1][0] if ref[1] else 0)})
        elif op == "scf.for":
            self.scf_for(node)
        elif op == "scf.if":
            c = self.val(re.findall(SSA, rest)[0], node)
            region = node.regions[0] if c else (node.regions[1] if len(node.regions) > 1 else [])
            out = self.block(region) or []
            self.bind(node, out)
        elif op == "ttg.warp_specialize":
            self.warp_specialize(node)
        elif op == "generic":
            return None
        elif node.results:
            self.bind(node, [])
        return None

    def scalar(self, node):
        op, rest = node.op, node.rest
        body, _, types = rest.partition(" : ")
        if "tensor<" in types:
            return None
        names = re.findall(SSA + r"|(?<![\w%])-?\d+(?![\w])", body)
        if op == "arith.cmpi":
            pred = body.split(",")[0].strip()
            a, b = (self.val(n, node, need=False) for n in names[:2])
            return None if a is None or b is None else int(_CMP[pred](a, b))
        if op == "arith.select":
            c, a, b = (self.val(n, node, need=False) for n in names[:3])
            return None if c is None else (a if c else b)
        if op in _IDENT:
            return self.val(names[0], node, need=False)
        a, b = (self.val(n, node, need=False) for n in names[:2])
        if a is None or b is None:
            return None
        v = _INT_BIN[op](a, b)
        return v

    def scf_for(self, node):
        m = re.match(r"\s*(" + SSA + r")\s*=\s*(\S+)\s+to\s+(\S+)\s+step\s+(\S+)(.*)$", node.rest)
        if not m:
            raise FrontendError(f"TTGIR line {node.line}: cannot read scf.for bounds")
        iv = m.group(1)
        lb, ub, step = (self.val(m.group(k), node) for k in (2, 3, 4))
        inits = []
        im = re.search(r"iter_args\((.*?)\)\s*->", m.group(5))
        if im:
            for pair in split_type_list(im.group(1)):
                a, _, b = pair.partition("=")
                inits.append((a.strip(), self.env.get(b.strip())))
        cur = [v for _, v in inits]
        x = lb
        while x < ub:
            self.env[iv] = x
            for (a, _), v in zip(inits, cur):
                self.env[a] = v
            out = self.block(node.regions[0])
            cur = out if out is not None else cur
            x += step
        self.bind(node, cur)

    def warp_specialize(self, node):
        heads = ["default"] + [h.split("(")[0].strip() for h in node.headers]
        caps = re.findall(SSA, node.rest.split(")")[0])
        saved = self.role
        for k, region in enumerate(node.regions):
            role = heads[k] if k < len(heads) else f"partition{k - 1}"
            if role.startswith("partition") and k - 1 < len(node.headers):
                params = re.findall(r"(" + SSA + r")\s*:", node.headers[k - 1].split("num_warps")[0])
                for p, c in zip(params, caps):
                    self.env[p] = self.env.get(c)
            self.role = role
            out = self.block(region)
            if role == "default" and out is not None:
                self.bind(node, out)
        self.role = saved

    def emit(self, node):
        site = self.sites[node.site]
        ev = {"site": node.site, "pred": 1}
        if site.get("pred"):
            p = self.val(site["pred"], node, need=False)
            if p is None:
                raise FrontendError(f"TTGIR line {node.line}: predicate {site['pred']} unknown")
            ev["pred"] = int(bool(p))
        # a predicated-off op issues nothing, so its operands may be undefined (a pipelined
        # loop computes the coordinates of tiles past the end, e.g. x % 0 in a grouped order)
        need = bool(ev["pred"])
        if "coords" in site:
            ev["coords"] = [self.val(c, node, need) or 0 for c in site["coords"]]
        if site.get("bar"):
            ref = self.val(site["bar"], node)
            ev["bar"] = (ref[0], ref[1][0] if ref[1] else 0)
        if site.get("phase"):
            ev["phase"] = (self.val(site["phase"], node, need) or 0) & 1
        self.events.setdefault(self.role, []).append(ev)


def func_args(func_line, launch_args):
    """Values of the kernel's scalar arguments by TTGIR name, from the launch record."""
    sig = func_line[func_line.index("(") + 1:]
    names = re.findall(r"(%[A-Za-z0-9_]+)\s*:\s*([^,{]+?)(?:\s*\{[^}]*\})?\s*(?:loc\(\"([^\"]*)\")?", sig)
    by_name = {a["name"]: a for a in launch_args}
    out, extra = {}, {}
    for ssa, typ, loc in names:
        py = loc or ssa[1:]
        a = by_name.get(py)
        if a is None:
            continue
        if a["kind"] == "int" and ssa[1:] == py:
            out[ssa] = a["value"]
        elif a["kind"] == "tensordesc" and ssa[1:] != py:
            k = extra.setdefault(py, 0)
            vals = a["shape"] + a["strides"]
            if k < len(vals):
                out[ssa] = vals[k]
            extra[py] = k + 1
    return out


def replay(ttgir, launch, pid):
    func = parse(ttgir)
    args = func_args(func.rest, launch["args"])
    r = Replay(func, args, pid, launch["grid"], launch["ttgir_sites"]["sites"])
    return r.run(), r


def collect_barriers(ttgir, launch):
    """(allocation -> (size, arrivals)) of the mbarrier arrays, from a replay of CTA 0."""
    _, r = replay(ttgir, launch, (0, 0, 0))
    out = {}
    for name, (dims, elem) in r.allocs.items():
        if elem == "i64" and name in r.inits:
            out[name] = (dims[0] if len(dims) > 1 else 1, r.inits[name])
    return out
