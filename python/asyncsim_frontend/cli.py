"""Command line of the frontend. Every input error exits with status 2 and one message."""
import argparse
import json
import sys

from . import FrontendError


def _cmd_instrument(args):
    from .instrument import instrument_text
    text = open(args.ttgir).read()
    out, sites = instrument_text(text)
    with open(args.output, "w") as f:
        f.write(out)
    if args.sites:
        with open(args.sites, "w") as f:
            json.dump(sites, f, indent=1)
    print(f"instrumented {len(sites['sites'])} sites -> {args.output}")


def _cmd_translate(args):
    from .translate import translate_files
    text, report = translate_files(args.trace, args.descriptors, min_gap=args.min_gap,
                                   record_overhead=args.record_overhead, ptx_path=args.ptx,
                                   sass_path=args.sass, compiled=not args.no_compiled_rules,
                                   bases=args.bases)
    with open(args.output, "w") as f:
        f.write(text)
    for line in report:
        print(line)


def _cmd_capture(args):
    from .capture import capture
    capture(args)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m asyncsim_frontend")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("instrument", help="wrap TMA/wgmma/mbarrier ops of a .ttgir in proton.record")
    p.add_argument("ttgir")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--sites", help="write the site table (JSON) here")
    p.set_defaults(func=_cmd_instrument)

    p = sub.add_parser("translate", help="Proton chrome trace + capture sidecar -> .asim")
    p.add_argument("trace")
    p.add_argument("--descriptors", required=True, help="sidecar JSON written by capture")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--min-gap", type=int, default=32,
                   help="gaps between scopes shorter than this many cycles are dropped")
    p.add_argument("--record-overhead", type=int, default=0,
                   help="cycles subtracted from every measured gap (instrumentation cost)")
    p.add_argument("--bases", choices=["recorded", "packed"], default="recorded",
                   help="tensor base addresses: as recorded (torch's virtual pointers) or packed "
                        "from 4 GiB in argument order, 2 MiB aligned (as `asyncsim gemm` does)")
    p.add_argument("--ptx", help="PTX of the uninstrumented kernel (default: the sidecar's)")
    p.add_argument("--sass", help="SASS listing of the uninstrumented kernel (default: the sidecar's)")
    p.add_argument("--no-compiled-rules", action="store_true",
                   help="do not add the bar.syncs of the PTX nor the wgmma serialisation of the "
                        "SASS (the program then follows the TTGIR alone)")
    p.set_defaults(func=_cmd_translate)

    p = sub.add_parser("capture", help="GPU side: dump, instrument, override, profile one launch")
    p.add_argument("--launcher", required=True,
                   help="MODULE:FUNCTION that launches the kernel once, e.g. "
                        "asyncsim_frontend.launchers:gemm")
    p.add_argument("--kw", nargs="*", default=[], help="KEY=VALUE arguments for the launcher")
    p.add_argument("--kernel", required=True, help="name of the @triton.jit function to profile")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--name", required=True, help="base name of the outputs")
    p.add_argument("--buffer-size", type=int, default=0,
                   help="Proton buffer bytes per CTA, rounded up to warps x a power of two "
                        "(0: Proton's default, 16 KB per warp for a global buffer)")
    p.add_argument("--buffer-per-warp", type=int, default=0,
                   help="Proton buffer bytes per warp (rounded up to a power of two); "
                        "overrides --buffer-size")
    p.add_argument("--buffer-type", choices=["global", "shared"], default="global",
                   help="where Proton keeps the records: global scratch (exact size, no shared "
                        "memory taken from the kernel) or shared memory (capped by Proton)")
    p.add_argument("--records", choices=["all", "bracket"], default="all",
                   help="all: every TMA/wgmma/mbarrier op (the trace to translate); bracket: only "
                        "the first and last of them, to time the CTA without the records "
                        "(validation/traces/record_cost.py)")
    p.add_argument("--phase", choices=["all", "dump", "profile"], default="all",
                   help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_capture)

    args = ap.parse_args(argv)
    try:
        args.func(args)
    except FrontendError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0
