"""Plots of asyncsim results (matplotlib from Debian's python3-matplotlib, no pip).

`python3 -m asyncsim_plot gantt TIMELINE.json --sm 0 --from C0 --to C1 -o out.png` draws one
SM's warpgroup tracks from a `--timeline` file, like Sim-FA Fig. 9.
"""
from .timeline import Slice, load_sm, Track
from .gantt import draw_gantt

__all__ = ["Slice", "Track", "load_sm", "draw_gantt"]
