"""asyncsim_plot renders a Gantt chart from a tiny synthetic timeline."""
import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("matplotlib")

from asyncsim_plot import load_sm  # noqa: E402
from asyncsim_plot.gantt import attribute_tensor, row_label  # noqa: E402

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def synthetic_timeline(path):
    """Producer, two consumers and the TMA/tensor tracks of SM 0, in asyncsim's format."""
    def meta(tid, name):
        return {"ph": "M", "name": "thread_name", "pid": 0, "tid": tid, "args": {"name": name}}

    def x(tid, name, ts, dur, pid=0):
        return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}

    events = [meta(0, "slot 0 producer[0]"), meta(1, "slot 1 consumer[0]"),
              meta(2, "slot 2 consumer[1]"), meta(1000, "TMA"), meta(1001, "tensor core"),
              x(0, "tma_issue", 0, 82), x(0, "wait_mbarrier", 82, 900),
              x(1000, "TMA load K", 0, 400),
              x(1, "issue", 400, 8), x(1, "wait_wgmma", 408, 300), x(1, "softmax", 708, 988),
              x(2, "wait_named_barrier", 400, 20), x(2, "wait_wgmma", 428, 580),
              x(2, "softmax", 1008, 988),
              x(1001, "QK^T", 400, 308), x(1001, "QK^T", 408, 600),
              x(1, "compute", 0, 5, pid=1)]  # another SM: ignored
    with open(path, "w") as f:
        json.dump({"traceEvents": events}, f)


def test_load_and_attribute(tmp_path):
    path = tmp_path / "t.json"
    synthetic_timeline(path)
    tracks = load_sm(str(path), 0)
    assert sorted(tracks) == [0, 1, 2, 1000, 1001]
    assert row_label(tracks[2].name) == "consumer-2"
    owners = attribute_tensor(tracks)
    assert [s.end for s in owners[1]] == [708]
    assert [s.end for s in owners[2]] == [1008]


def test_gantt_png(tmp_path):
    path = tmp_path / "t.json"
    out = tmp_path / "g.png"
    synthetic_timeline(path)
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
    subprocess.run([sys.executable, "-m", "asyncsim_plot", "gantt", str(path), "--sm", "0",
                    "--from", "0", "--to", "2000", "-o", str(out)], check=True, env=env)
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000  # a drawn chart, not an empty canvas
