"""Gantt chart of one SM: a row per warpgroup slot (producer / consumer-1 / consumer-2 for FA3),
then the TMA engine and the tensor pipe, over a window of cycles (Sim-FA Fig. 9)."""
import re
from typing import Dict, List, Optional, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .timeline import TENSOR_TRACK, TMA_TRACK, Slice, Track  # noqa: E402

# Work in strong colours; waits light so the overlap of work across rows stands out.
COLOURS = {
    "QK^T": "#1f77b4",
    "PV": "#2ca02c",
    "softmax": "#ff7f0e",
    "epilogue": "#9467bd",
    "compute": "#ffbb78",
    "TMA": "#d62728",
    "wgmma group": "#17becf",
    "wait": "#d9d9d9",
    "issue": "#8c8c8c",
}
WAITS = ("wait_mbarrier", "wait_wgmma", "wait_named_barrier", "wait_tma_queue", "wait_store")


def colour_key(name: str) -> str:
    if name.startswith("TMA") or name == "tma_issue":
        return "TMA"
    if name in WAITS:
        return "wait"
    return name if name in COLOURS else "compute"


def row_label(name: str) -> str:
    """'slot 1 consumer[0]' -> 'consumer-1'; other roles keep 'role[i]'."""
    m = re.match(r"slot \d+ (\w+)\[(\d+)\]", name)
    if not m:
        return name
    role, index = m.group(1), int(m.group(2))
    if role == "producer":
        return "producer"
    if role == "consumer":
        return f"consumer-{index + 1}"
    return f"{role}[{index}]"


def attribute_tensor(tracks: Dict[int, Track]) -> Dict[int, List[Slice]]:
    """A wgmma group completes exactly when the wait_wgmma of the warpgroup that issued it ends,
    so groups are matched to warpgroup rows by end time."""
    owners: Dict[int, List[Slice]] = {}
    tensor = tracks.get(TENSOR_TRACK)
    if tensor is None:
        return owners
    ends: Dict[float, int] = {}
    for tid, t in tracks.items():
        if tid < TMA_TRACK:
            for s in t.slices:
                if s.name == "wait_wgmma":
                    ends[round(s.end, 1)] = tid
    for s in tensor.slices:
        tid = ends.get(round(s.end, 1))
        if tid is not None:
            owners.setdefault(tid, []).append(s)
    return owners


def clipped(slices: List[Slice], lo: float, hi: float) -> List[Tuple[float, float, str]]:
    return [(max(s.begin, lo), min(s.end, hi) - max(s.begin, lo), s.name)
            for s in slices if s.end > lo and s.begin < hi]


def draw_row(ax, y: float, bars: List[Tuple[float, float, str]], height: float) -> None:
    by_colour: Dict[str, List[Tuple[float, float]]] = {}
    for x, w, name in bars:
        by_colour.setdefault(colour_key(name), []).append((x, w))
    for key, spans in by_colour.items():
        h = height * (0.45 if key in ("wait", "issue") else 1.0)
        ax.broken_barh(spans, (y - h / 2, h), facecolors=COLOURS[key], linewidth=0)


def draw_gantt(tracks: Dict[int, Track], out: str, begin: Optional[float] = None,
               end: Optional[float] = None, title: str = "") -> None:
    all_slices = [s for t in tracks.values() for s in t.slices]
    lo = begin if begin is not None else min((s.begin for s in all_slices), default=0.0)
    hi = end if end is not None else max((s.end for s in all_slices), default=1.0)
    owners = attribute_tensor(tracks)
    rows = sorted(tid for tid in tracks if tid < TMA_TRACK)
    rows += [tid for tid in (TMA_TRACK, TENSOR_TRACK) if tid in tracks]
    fig, ax = plt.subplots(figsize=(14, 0.6 * len(rows) + 1.6))
    for i, tid in enumerate(rows):
        y = len(rows) - 1 - i
        draw_row(ax, y, clipped(tracks[tid].slices, lo, hi), 0.7)
        # The warpgroup's own wgmma groups, drawn as a band over its waits.
        draw_row(ax, y, clipped(owners.get(tid, []), lo, hi), 0.35)
    names = {TMA_TRACK: "TMA engine", TENSOR_TRACK: "tensor pipe"}
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([names.get(t, row_label(tracks[t].name)) for t in reversed(rows)])
    ax.set_xlim(lo, hi)
    ax.set_xlabel("SM cycles")
    ax.set_title(title)
    used = {colour_key(s.name) for t in tracks.values() for s in t.slices}
    legend = [Patch(color=COLOURS[k], label=k) for k in COLOURS if k in used]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.18),
              ncol=len(legend), frameon=False)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
