"""Reading and checking a Proton instrumentation .chrome_trace.

Proton writes one complete event ('ph': 'X') per scope instance: pid 'KERNEL CoreS CTAc',
tid 'warp W (line L)', ts/dur in microseconds at an assumed 1 GHz, so ts*1000 and dur*1000 are
SM cycles (ts of different CTAs are offset by their start times in ns). Proton itself pairs the
start and end records; a trace written by another tool may instead carry 'B'/'E' pairs, which
are paired here and rejected when unbalanced.
"""
import gzip
import json
import re

from . import FrontendError
from .instrument import PREFIX

_PID = re.compile(r"Core(\d+)\s+CTA(\d+)")
_TID = re.compile(r"warp\s+(\d+)")
SCOPE_OPS = {"TMA_LOAD", "TMA_STORE", "TMA_STORE_WAIT", "WGMMA", "WGMMA_WAIT", "MB_WAIT",
             "MB_ARRIVE", "MB_EXPECT"}


def parse_scope(name, where):
    parts = name.split("|")
    if len(parts) < 3 or parts[0] != PREFIX or parts[1] not in SCOPE_OPS:
        raise FrontendError(f"{where}: unknown scope '{name}' (expected {PREFIX}|OP|...|site=N "
                            f"with OP one of {', '.join(sorted(SCOPE_OPS))})")
    fields = {}
    for p in parts[2:]:
        k, _, v = p.partition("=")
        fields[k] = v
    if not fields.get("site", "").isdigit():
        raise FrontendError(f"{where}: scope '{name}' has no site=N")
    return parts[1], int(fields["site"]), fields


def load(path):
    try:
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            data = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError, gzip.BadGzipFile) as e:
        raise FrontendError(f"{path}: not a JSON chrome trace ({e})") from e
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise FrontendError(f"{path}: no traceEvents list")
    return events


def per_warp(events, path, site_ops=None):
    """site_ops: the op of each site of the capture's site table, checked against every scope.
    {cta: {'sm': s, 'warps': {warp: [(start, end, site), ...] in start order}}} in cycles."""
    ctas, open_ = {}, {}
    for n, ev in enumerate(events):
        ph = ev.get("ph")
        if ph not in ("X", "B", "E"):
            continue
        where = f"{path}: event {n}"
        pm, tm = _PID.search(str(ev.get("pid", ""))), _TID.search(str(ev.get("tid", "")))
        if not pm or not tm:
            raise FrontendError(f"{where}: pid/tid '{ev.get('pid')}'/'{ev.get('tid')}' do not name "
                                "an SM, CTA and warp (expected 'KERNEL CoreS CTAc', 'warp W')")
        sm, cta, warp = int(pm.group(1)), int(pm.group(2)), int(tm.group(1))
        op, site, _ = parse_scope(ev.get("name", ""), where)
        if site_ops is not None:
            if site >= len(site_ops) or site_ops[site] != op:
                have = site_ops[site] if site < len(site_ops) else "no such site"
                raise FrontendError(f"{where}: scope '{ev.get('name')}' is site {site} as {op}, the "
                                    f"sidecar's site table has {have}: the trace is not from the "
                                    "instrumented TTGIR of this capture")
        t = round(float(ev["ts"]) * 1000)
        entry = ctas.setdefault(cta, {"sm": sm, "warps": {}})
        lst = entry["warps"].setdefault(warp, [])
        if ph == "X":
            lst.append((t, t + round(float(ev.get("dur", 0)) * 1000), site))
        elif ph == "B":
            key = (cta, warp, site)
            if key in open_:
                raise FrontendError(f"{where}: unbalanced scope: second start of site {site} "
                                    f"(CTA {cta} warp {warp}) before its end")
            open_[key] = t
        else:
            key = (cta, warp, site)
            if key not in open_:
                raise FrontendError(f"{where}: unbalanced scope: end of site {site} (CTA {cta} "
                                    f"warp {warp}) without a start")
            lst.append((open_.pop(key), t, site))
    if open_:
        (cta, warp, site), _ = next(iter(open_.items()))
        raise FrontendError(f"{path}: unbalanced scope: site {site} of CTA {cta} warp {warp} "
                            f"started and never ended ({len(open_)} open scopes)")
    if not ctas:
        raise FrontendError(f"{path}: no scope events")
    for entry in ctas.values():
        for lst in entry["warps"].values():
            lst.sort()
    return ctas


def warpgroups(entry, cta, path):
    """Deduplicate the four warps of each warpgroup: {wg: [(start, end, site)]} of its first
    warp, after checking that every warp of the group recorded the same sites in the same order."""
    groups = {}
    for warp in sorted(entry["warps"]):
        groups.setdefault(warp // 4, []).append(warp)
    out = {}
    for wg, warps in groups.items():
        lead = entry["warps"][warps[0]]
        sites = [s for _, _, s in lead]
        for w in warps[1:]:
            other = [s for _, _, s in entry["warps"][w]]
            if other != sites:
                k = next((i for i, (a, b) in enumerate(zip(sites, other)) if a != b),
                         min(len(sites), len(other)))
                raise FrontendError(
                    f"{path}: CTA {cta}: warps {warps[0]} and {w} of warpgroup {wg} recorded "
                    f"different scopes ({len(sites)} vs {len(other)} events, first difference at "
                    f"event {k}); the buffer dropped events or the trace is damaged")
        out[wg] = lead
    return out
