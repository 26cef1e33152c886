"""Reading asyncsim's Chrome-trace timeline (`--timeline`) for the copies of a warpgroup and the
moment it saw each complete; shared by the scripts that set the simulator's copies against an
H200 clock64 measurement (cta_start.py, cta_place.py, first_round.py, traces/first_stages.py),
with the bare run they simulate (run_bare) and the committed CSV they read (measured_rows).

A warpgroup's MB_WAIT is drawn as several wait_mbarrier slices, not always back to back (the
hold after the warp's own copy, the try_wait before it, the blocked wait), so a wait is not
recovered by joining slices. Instead each `tma_issue` slice is matched with the copy's slice on
its SM's TMA track (same start; that slice ends when the last byte is in shared memory), and the
warpgroup saw the copy complete when the first of its wait slices that ends at or after that
moment ends, as the H200's clock64 after its wait does. Standard library only.
"""
import csv
import json
import os
import subprocess
import tempfile

TMA_TRACK = 1000


def threads(timeline_path):
    """{(sm, track): [(issue_start, issue_end, copy_done), ...], [wait_end, ...]} per warpgroup
    slot track of every SM, in time order."""
    events = [e for e in json.load(open(timeline_path))["traceEvents"] if e.get("ph") == "X"]
    done_at = {}  # (sm, start) -> end of the copy issued then
    for e in events:
        if e["tid"] == TMA_TRACK and e["name"].startswith("TMA load"):
            done_at[(e["pid"], round(e["ts"], 2))] = e["ts"] + e["dur"]
    out = {}
    for e in sorted(events, key=lambda e: e["ts"]):
        if e["tid"] == TMA_TRACK:
            continue
        copies, waits = out.setdefault((e["pid"], e["tid"]), ([], []))
        if e["name"] == "tma_issue":
            done = done_at.get((e["pid"], round(e["ts"], 2)))
            if done is not None:
                copies.append((e["ts"], e["ts"] + e["dur"], done))
        elif e["name"] == "wait_mbarrier":
            waits.append(e["ts"] + e["dur"])
    return {k: v for k, v in out.items() if v[0]}


def seen(waits, t):
    """When a warpgroup whose wait slices end at `waits` saw an event at time t (None if never)."""
    return next((w for w in waits if w >= t), None)


def run_bare(binary, programs, extra=()):
    """Simulate the program texts back to back on one GPU (`asyncsim run`, the L2 and DRAM state
    carried over) at 1980 MHz with the kernel and CTA launch costs off, as the H200 micros clock
    from inside the CTA; returns threads() of the timeline."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, text in enumerate(programs):
            paths.append(os.path.join(tmp, f"p{i}.asim"))
            with open(paths[-1], "w") as f:
                f.write(text)
        tl = os.path.join(tmp, "t.json")
        subprocess.run([binary, "run", *paths, "--sm-clock-mhz", "1980",
                        "--set", "sm.kernel_launch_cycles=0", "--set", "sm.cta_launch_cycles=0",
                        "--timeline", tl, *extra], check=True, capture_output=True)
        return threads(tl)


def last_copy_cycles(per_thread):
    """Per warpgroup: its last copy, from the issue to the moment its wait saw it complete."""
    out = []
    for copies, waits in per_thread.values():
        issue, _, done = copies[-1]
        out.append(seen(waits, done) - issue)
    return out


def measured_rows(path):
    """The rows of a committed CSV (its '#' header lines skipped); none if it does not exist."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))
