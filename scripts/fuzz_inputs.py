#!/usr/bin/env python3
"""Bad-input sweeps: what the contract says must end in a message and exit 2 (or a deadlock
report, exit 3), never a crash, a hang or an unbounded allocation.

  python3 scripts/fuzz_inputs.py config   [--asyncsim build/asyncsim] [--timeout 20]
      every parameter of `asyncsim params` set to edge values (ints 0 -1 1 2 3 7 100 65536 and
      10^15, floats 0 0.001 1 3 1000 and 10^15, other values 'bogus') on a 256^3 GEMM; a valid
      program must not deadlock (exit 3) because of a config value either
  python3 scripts/fuzz_inputs.py programs FILE.asim ... [--count 200] [--seed 1]
      mutants of each program (lines deleted, duplicated, swapped; tokens and numbers replaced)
      run with `asyncsim run`

Prints one line per finding (HANG, CRASH rc=N, DEADLOCK) and exits 1 if there was any. About a
minute per mode on this project's VM; not part of the test suite. A HANG may be a valid program
that is merely long (a mutated loop bound): read the kept file before calling it a defect. The fortieth session's sweeps found: an L2 of one
set per slice looping forever, DRAM geometries and L2 sizes that allocated without end,
1e6-stage programs allocating barrier state before their shared memory was checked, and
sm.smem_bytes below a CTA's need reported as a deadlock (all fixed, with tests).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "HANG", ""
    last = (r.stderr.strip().splitlines() or [""])[-1][:200]
    return r.returncode, last


def params(exe):
    out = subprocess.run([exe, "params", "--gpu", "h200"], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines()[2:]:
        parts = line.split()
        if len(parts) >= 2:
            yield parts[0], parts[1]


def edge_values(value):
    if re.fullmatch(r"-?\d+", value):
        return ["0", "-1", "1", "2", "3", "7", "100", "65536", "1000000000000000"]
    if re.fullmatch(r"-?\d+\.\d*(e[-+]?\d+)?", value):
        return ["0", "0.001", "1", "3", "1000", "1e15"]
    return ["bogus", "''"]


def fuzz_config(a):
    found = 0
    gemm = [a.asyncsim, "gemm", "--m", "256", "--n", "256", "--k", "256"]
    for key, value in params(a.asyncsim):
        for v in edge_values(value):
            rc, msg = run(gemm + ["--set", f"{key}={v}"], a.timeout)
            if rc not in (0, 2):
                found += 1
                kind = "HANG" if rc == "HANG" else ("DEADLOCK" if rc == 3 else f"CRASH rc={rc}")
                print(f"{kind} --set {key}={v}: {msg}", flush=True)
    return found


MUTANT_VALUES = ["0", "-1", "99999999999999999999", "1e9", "", "x", "[", "]", "(", ")", "%",
                 "/0", "* 0", "65536", "0x", "3.5", "=", "nan"]
MUTANT_NUMBERS = ["0", "1", "7", "1000000", "4294967296", "9223372036854775807"]


def mutate(lines, rng):
    lines = list(lines)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        op = rng.randrange(5)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif op == 2:
            toks = re.split(r"(\s+|[\[\](),=])", lines[i])
            idx = [j for j, t in enumerate(toks) if t.strip() and t not in "[](),="]
            if idx:
                toks[rng.choice(idx)] = rng.choice(MUTANT_VALUES)
            lines[i] = "".join(toks)
        elif op == 3:
            nums = list(re.finditer(r"\d+", lines[i]))
            if nums:
                m = rng.choice(nums)
                lines[i] = lines[i][:m.start()] + rng.choice(MUTANT_NUMBERS) + lines[i][m.end():]
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        if not lines:
            lines = [""]
    return lines


def fuzz_programs(a):
    found = 0
    rng = random.Random(a.seed)
    for path in a.files:
        src = open(path).read().split("\n")
        for n in range(a.count):
            text = "\n".join(mutate(src, rng))
            with tempfile.NamedTemporaryFile("w", suffix=".asim", delete=False) as f:
                f.write(text)
            rc, msg = run([a.asyncsim, "run", f.name], a.timeout)
            if rc not in (0, 2, 3):
                found += 1
                kind = "HANG" if rc == "HANG" else f"CRASH rc={rc}"
                print(f"{kind} {path} mutant {n} (kept as {f.name}): {msg}", flush=True)
            else:
                os.remove(f.name)
    return found


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("mode", choices=["config", "programs"])
    p.add_argument("files", nargs="*")
    p.add_argument("--asyncsim", default="build/asyncsim")
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.mode == "programs" and not a.files:
        p.error("programs needs at least one .asim file")
    found = fuzz_config(a) if a.mode == "config" else fuzz_programs(a)
    print(f"{found} finding(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
