"""What the compiled kernel does that its TTGIR does not show, read from its PTX and SASS.

Two things happen after the TTGIR that change the timing of a TMA/wgmma kernel:

1. **CTA-wide barriers.** Triton's membar analysis (in the lowering to LLVM) puts a `bar.sync`
   before an op whose shared-memory access (an mbarrier, a TMA destination, a wgmma operand)
   conflicts with an access since the last barrier. For the pipelined GEMM that is one before
   the mbarrier wait, the expect_tx and each of the two refill copies, every iteration. They
   are not TTGIR ops, so neither the instrumentation nor the trace sees them.
   Rule: walk the PTX in program order (its basic blocks in reverse postorder), classify the instructions that correspond to instrumented TTGIR
   ops (anchors), align them with the site table (sites are numbered in TTGIR text order, which
   the PTX keeps for these kernels), and attach the `bar.sync`s found between the previous
   anchor and a site's first anchor to that site. The translator then emits them as
   `BAR_SYNC ID threads=T` before the site's instructions, also where the op itself is
   predicated off (a bar.sync is not predicated). The count is checked against the SASS's
   BAR.SYNC count.
2. **wgmma serialisation by ptxas.** For some tiles (Triton 3.6, 128x256 with 8 warps) ptxas
   waits for every HGMMA before issuing the next (`WARPGROUP.DEPBAR.LE gsb0, 0x0` after each).
   The PTX does not show it; the SASS does. Rule: if every HGMMA of the kernel is followed by
   such a wait before the next HGMMA, each WGMMA site becomes R single-instruction groups, each
   waited for (`WGMMA ... repeat=1; WGMMA_COMMIT; WGMMA_WAIT 0`).

Neither rule is applied to kernels with warp_specialize partitions (their code is laid out per
partition and their barriers are named per partition): the translator says so.
"""
import re

from . import FrontendError

_PRED = re.compile(r"^\s*@!?%\w+\s+")


# PTX prefixes of the instrumented ops, first match wins (expect_tx before plain arrive).
_KINDS = (("bar.sync", "BAR"), ("barrier.sync", "BAR"), ("mbarrier.try_wait", "MB_WAIT"),
          ("mbarrier.arrive.expect_tx", "MB_EXPECT"), ("mbarrier.arrive", "MB_ARRIVE"),
          ("cp.async.bulk.wait_group", "TMA_STORE_WAIT"), ("wgmma.mma_async", "WGMMA"),
          ("wgmma.commit_group", "COMMIT"), ("wgmma.wait_group", "WGMMA_WAIT"))


def _kind(instr):
    """Anchor kind of one PTX instruction, 'BAR' for bar.sync, or None."""
    if instr.startswith("cp.async.bulk.tensor"):
        return "TMA_STORE" if re.match(r"cp\.async\.bulk\.tensor\.\d+d\.global\.", instr) else "TMA_LOAD"
    return next((kind for prefix, kind in _KINDS if instr.startswith(prefix)), None)


def _bar_operands(instr):
    """(id, threads or None) of `bar.sync 0;` / `bar.sync 1, 256;`."""
    m = re.match(r"(?:bar|barrier)\.sync(?:\.aligned)?\s+(\d+)\s*(?:,\s*(\d+))?", instr)
    if not m:
        return 0, None
    return int(m.group(1)), int(m.group(2)) if m.group(2) else None


_LABEL = re.compile(r"^\s*(\$L__\w+):")
_BRA = re.compile(r"^\s*(@!?%\w+\s+)?bra(?:\.uni)?\s+(\$L__\w+)\s*;")


def _cfg(ptx):
    """Basic blocks [[(lineno, text)]] of the PTX and their successors."""
    blocks, cur, labels = [], [], {}
    for lineno, raw in enumerate(ptx.splitlines(), 1):
        m = _LABEL.match(raw)
        if m:
            if cur:
                blocks.append(cur)
            cur = []
            labels[m.group(1)] = len(blocks)
            continue
        cur.append((lineno, raw.strip()))
        if _BRA.match(raw) or re.match(r"^\s*(@!?%\w+\s+)?(ret|exit)\s*;", raw):
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    # labels index the block that starts after them; empty blocks were not appended
    succ = []
    for k, blk in enumerate(blocks):
        last = blk[-1][1] if blk else ""
        m = _BRA.match(last)
        nxt = [k + 1] if k + 1 < len(blocks) else []
        if m:
            tgt = labels.get(m.group(2))
            tgt = [tgt] if tgt is not None and tgt < len(blocks) else []
            succ.append(tgt + (nxt if m.group(1) else []))
        elif re.match(r"^(@!?%\w+\s+)?(ret|exit)\s*;", last):
            succ.append(nxt if last.startswith("@") else [])
        else:
            succ.append(nxt)
    return blocks, succ


def program_order(ptx, with_blocks=False):
    """The PTX instruction lines [(lineno, text)] with its basic blocks in reverse postorder of
    the control-flow graph (branch targets visited before fall-through), i.e. in the order of the
    structured source: an if's body before what follows it, a loop's body before its exit,
    whatever order ptxas's input laid the blocks out in. with_blocks: (lineno, text, block,
    the blocks that branch back to it) instead."""
    blocks, succ = _cfg(ptx)
    post, seen, stack = [], {0}, [(0, iter(succ[0] if blocks else []))]
    while stack:
        node, it = stack[-1]
        child = next(it, None)
        if child is None:
            post.append(node)
            stack.pop()
        elif child not in seen:
            seen.add(child)
            stack.append((child, iter(succ[child])))
    rpo = list(reversed(post))
    if not with_blocks:
        return [line for k in rpo for line in blocks[k]]
    pos = {k: i for i, k in enumerate(rpo)}
    back = {k: [b for b in rpo if k in succ[b] and pos[b] >= pos[k]] for k in rpo}
    return [(ln, text, k, back[k]) for k in rpo for ln, text in blocks[k]]


# Cycles one plain PTX instruction can take at most in a dependent chain: the dependent-issue
# latency of the integer and FP32 pipes, 4 cycles on Volta (Jia et al., "Dissecting the NVIDIA
# Volta GPU Architecture via Microbenchmarking", 2018, table of instruction latencies), taken
# as unchanged on Hopper (not measured here).
ALU_CHAIN_CYCLES = 4
# Instructions whose latency is not an ALU's: a gap holding one of them is not bounded.
_LONG = re.compile(r"^(ld|st|atom|red|tex|tld|suld|sust|shfl|cp|mbarrier|fence|membar|vote|"
                   r"match|griddepcontrol|nanosleep|call|tcgen|wgmma)\b|%(clock|"
                   r"globaltimer|smid|nsmid|laneid|warpid)")
_INSTR = re.compile(r"^[a-z][\w.:]*(\s.*)?;$")


def barriers_before_sites(ptx, sites, work=None):
    """{site: [(id, threads), ...]} of the bar.syncs the PTX executes right before each site's
    op, or raise FrontendError naming the first anchor that does not align with the site table.

    With `work` (a dict), also fill work[site] for those sites: the most cycles the plain
    kernel's own instructions between the previous anchor and the site can take before the
    site's op (ALU_CHAIN_CYCLES per instruction, bar.syncs not counted), or None when one of
    them is a memory, barrier or special-register instruction (no bound). The instrumented
    kernel's gap there also holds the records of every warp that meets at the bar.sync."""
    ops = [s["op"] for s in sites]
    out, pending, j, last, in_group = {}, [], 0, None, False
    lines = program_order(ptx, with_blocks=True)
    # per line: (counts as work, unbounded); per block: work after its last anchor
    plain = []
    for _, raw, _, _ in lines:
        instr = _PRED.sub("", raw)
        is_work = _kind(instr) is None and bool(_INSTR.match(instr)) and not instr.startswith("bra")
        plain.append((is_work, is_work and bool(_LONG.search(instr)), _kind(instr)))
    tail = {}
    for (_, _, blk, _), (is_work, long_, kind) in zip(lines, plain):
        if kind not in (None, "BAR"):
            tail[blk] = (0, False)
        elif is_work:
            c, u = tail.get(blk, (0, False))
            tail[blk] = (c + 1, u or long_)
    count, unbounded, cur_blk = 0, False, None
    for (lineno, raw, blk, back), (is_work, long_, kind) in zip(lines, plain):
        if blk != cur_blk:
            cur_blk = blk
            # a loop header's gap in the steady state comes from the latch's last anchor
            if back and work is not None:
                c, u = tail.get(back[-1], (0, False))
                count, unbounded = c, u
        instr = _PRED.sub("", raw)
        if kind is None:
            if is_work:
                count += 1
                unbounded = unbounded or long_
            continue
        if kind == "BAR":
            pending.append(_bar_operands(instr))
            continue
        if kind == "COMMIT":
            in_group = False
            continue
        # one TTGIR op may be several PTX instructions: the wgmmas of one group, the copies of
        # one split box
        if kind == last and ((kind == "WGMMA" and in_group) or (kind == "TMA_STORE" and not pending)):
            continue
        if j >= len(ops) or ops[j] != kind:
            want = ops[j] if j < len(ops) else "none"
            raise FrontendError(f"PTX line {lineno}: {kind} ({instr[:60]}) where the site table "
                                f"expects site {j} ({want}); the PTX does not follow the TTGIR order")
        if pending:
            out[j] = pending
            if work is not None:
                work[j] = None if unbounded else count * ALU_CHAIN_CYCLES
        pending, last, j = [], kind, j + 1
        count, unbounded = 0, False
        in_group = kind == "WGMMA"
    if j != len(ops):
        raise FrontendError(f"PTX has anchors for {j} of {len(ops)} sites")
    return out


def sass_counts(sass):
    """(BAR.SYNC count, HGMMA count, wgmma serialised?) of a SASS listing: serialised when every
    HGMMA is followed, before the next HGMMA, by WARPGROUP.DEPBAR.LE gsb0, 0x0."""
    bars = len(re.findall(r"\bBAR\.SYNC", sass))
    hgmma, waited, open_ = 0, 0, False
    for line in sass.splitlines():
        if "HGMMA." in line:
            hgmma += 1
            open_ = True
        elif open_ and re.search(r"WARPGROUP\.DEPBAR\.LE\s+gsb0,\s*0x0\b", line):
            waited += 1
            open_ = False
    return bars, hgmma, hgmma > 1 and waited == hgmma


def compiled_rules(launch, ptx=None, sass=None):
    """The PTX/SASS rules for this capture: {'bars': {site: [(id, threads)]}, 'serial': bool,
    'report': str}. ptx/sass override the sidecar's `uninstrumented` copies."""
    un = launch.get("uninstrumented", {})
    ptx = ptx if ptx is not None else un.get("ptx")
    sass = sass if sass is not None else un.get("sass")
    ttgir = launch["ttgir_sites"]["ttgir"]
    if "ttg.warp_specialize" in ttgir:
        return {"bars": {}, "serial": False,
                "report": "PTX/SASS rules not applied: warp_specialize partitions"}
    if not ptx:
        return {"bars": {}, "serial": False,
                "report": "PTX/SASS rules not applied: no PTX in the sidecar (give --ptx/--sass)"}
    work = {}
    try:
        bars = barriers_before_sites(ptx, launch["ttgir_sites"]["sites"], work)
    except FrontendError as e:
        return {"bars": {}, "serial": False, "report": f"PTX/SASS rules not applied: {e}"}
    n_ptx = len(re.findall(r"^\s*(?:@!?%\w+\s+)?(?:bar|barrier)\.sync", ptx, re.M))
    report = (f"PTX: {n_ptx} bar.sync, {sum(len(v) for v in bars.values())} of them before "
              f"{len(bars)} sites ({', '.join(f'{s}:{len(v)}' for s, v in sorted(bars.items()))})")
    serial = False
    if sass:
        n_sass, hgmma, serial = sass_counts(sass)
        report += f"; SASS: {n_sass} BAR.SYNC, {hgmma} HGMMA, wgmma serialised: {'yes' if serial else 'no'}"
        if n_sass != n_ptx:
            report += " (BAR.SYNC count differs from the PTX: barriers follow the PTX)"
    else:
        report += "; no SASS: wgmma serialisation unknown (not applied)"
    return {"bars": bars, "serial": serial, "report": report, "work": work}
