"""Reads asyncsim's Chrome-trace timeline (src/stats/timeline.cpp): pid = SM, tid = warpgroup
slot (1000 = TMA engine, 1001 = tensor pipe), ts/dur in SM cycles."""
import json
from dataclasses import dataclass, field
from typing import Dict, List

TMA_TRACK = 1000
TENSOR_TRACK = 1001


@dataclass
class Slice:
    name: str
    begin: float
    end: float


@dataclass
class Track:
    tid: int
    name: str
    slices: List[Slice] = field(default_factory=list)


def load_sm(path: str, sm: int) -> Dict[int, Track]:
    """Tracks of SM `sm` by tid, slices sorted by begin time."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    tracks: Dict[int, Track] = {}

    def track(tid: int) -> Track:
        return tracks.setdefault(tid, Track(tid, f"track {tid}"))

    for e in events:
        if e.get("pid") != sm or "tid" not in e:
            continue
        if e["ph"] == "M" and e["name"] == "thread_name":
            track(e["tid"]).name = e["args"]["name"]
        elif e["ph"] == "X":
            track(e["tid"]).slices.append(Slice(e["name"], e["ts"], e["ts"] + e["dur"]))
    for t in tracks.values():
        t.slices.sort(key=lambda s: s.begin)
    return tracks
