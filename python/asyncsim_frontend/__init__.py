"""asyncsim Triton frontend: TTGIR instrumentation -> Proton trace -> asyncsim program.

capture   (GPU side)  dump TTGIR, instrument it, re-inject it and profile one launch with Proton
instrument            source-to-source pass over a .ttgir (wraps TMA / wgmma / mbarrier ops)
translate (anywhere)  Proton .chrome_trace + capture sidecar -> .asim program

See docs/frontend-triton.md.
"""


class FrontendError(Exception):
    """Bad or uninterpretable input; the CLI prints it and exits with status 2."""
