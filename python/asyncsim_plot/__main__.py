"""Command line: python3 -m asyncsim_plot gantt TIMELINE.json [--sm N] [--from C] [--to C] -o PNG"""
import argparse
import sys

from .gantt import draw_gantt
from .timeline import load_sm


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="asyncsim_plot")
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gantt", help="one SM's warpgroup tracks as a Gantt chart (PNG)")
    g.add_argument("timeline", help="file written by asyncsim ... --timeline")
    g.add_argument("--sm", type=int, default=0, help="SM to draw (default 0)")
    g.add_argument("--from", dest="begin", type=float, default=None, help="first cycle")
    g.add_argument("--to", dest="end", type=float, default=None, help="last cycle")
    g.add_argument("--title", default=None)
    g.add_argument("-o", "--output", required=True, help="PNG to write")
    a = p.parse_args(argv)
    tracks = load_sm(a.timeline, a.sm)
    if not tracks:
        print(f"asyncsim_plot: no events for SM {a.sm} in {a.timeline}", file=sys.stderr)
        return 1
    draw_gantt(tracks, a.output, a.begin, a.end, a.title or f"SM {a.sm}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
