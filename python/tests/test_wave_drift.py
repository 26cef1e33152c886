"""validation/wave_drift.py: wave start spreads and per-GPC / per-half CTA cycles from a
cta_map.py record, checked on a hand-made launch and on the committed H100 record."""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "validation"))

import wave_drift  # noqa: E402


def test_summary_of_a_hand_made_launch():
    # TPC t in GPC gpcs[t]; TPCs 62-65 are the side unit. Waves of two CTAs:
    # (order, sm, start us, cycles).
    gpcs = [0, 1] + [0] * 64
    ctas = [(0, 0, 0.0, 100), (1, 2, 0.5, 100),     # wave 1: excluded from the means
            (2, 0, 10.0, 200), (3, 2, 13.0, 300),   # wave 2: spread 3.0
            (4, 124, 20.0, 400), (5, 3, 21.0, 500)]  # wave 3: side unit, GPC 1; spread 1.0
    spreads, means, a, b = wave_drift.summarize(ctas, 2, gpcs, {"1"})
    assert spreads == [0.5, 3.0, 1.0]
    assert means == {"0": 200, "1": 400, "side": 400}
    assert a == 300  # GPC 0's 200 and the side unit's 400
    assert b == 400  # GPC 1's 300 and 500
    # Per wave, B/A - 1: 100 / 100, 300 / 200, 500 / 400.
    assert wave_drift.halves_by_wave(ctas, 2, gpcs, {"1"}) == [0.0, 50.0, 25.0]


def test_h100_record_drifts_in_w4_only():
    path = os.path.join(ROOT, "validation", "data", "h100", "micro_gemm_cta_map_8k.csv")
    device, rows = wave_drift.read_file(path)
    assert "H100" in device
    gpcs = wave_drift.tpc_gpcs("h100")
    for variant, slots in (("128x128x64_s3_w4", 2), ("128x256x64_s3_w8", 1)):
        rs = [r for r in rows if r["K"] == "8192" and r["variant"] == variant and r["rep"] == "0"]
        assert wave_drift.slots_of(variant) == slots
        ctas = wave_drift.record_ctas(rs)
        spreads, _, a, b = wave_drift.summarize(ctas, 132 * slots, gpcs, {"1", "2", "3", "7"})
        if slots == 2:
            assert spreads[-1] > 100.0 and b > 1.03 * a  # waves apart, half B behind
        else:
            assert max(spreads) < 5.0 and abs(b / a - 1) < 0.01


def test_ctas_alone_or_sharing_their_sm():
    # (sm, start, end, cycles): SM 0 runs two CTAs that overlap, then a third after both;
    # SM 1 runs one; SM 2 two that only touch (one ends as the other starts).
    spans = [(0, 0.0, 10.0, 100), (0, 5.0, 15.0, 110), (0, 20.0, 30.0, 90),
             (1, 0.0, 12.0, 120),
             (2, 0.0, 10.0, 80), (2, 10.0, 20.0, 85)]
    alone, shared = wave_drift.by_sharing(spans)
    assert sorted(alone) == [80, 85, 90, 120]
    assert sorted(shared) == [100, 110]
    assert wave_drift.sharing_line(alone, shared) == (
        "alone 4 x 88, shared 2 x 105 (CTAs x median SM cycles)")


def test_h200_record_lone_ctas_share_no_sm():
    # 192 CTAs of two per SM (384x8192x8192 w4): 72 SMs run one CTA, 60 run two at once.
    path = os.path.join(ROOT, "validation", "data", "h200", "micro_gemm_cta_map.csv")
    _, rows = wave_drift.read_file(path)
    rs = [r for r in rows if r["M"] == "384" and r["variant"] == "128x128x64_s3_w4"
          and r["rep"] == "0"]
    alone, shared = wave_drift.by_sharing(wave_drift.record_spans(rs))
    assert (len(alone), len(shared)) == (72, 120)


def test_pairs_line_gap_by_wave_and_shared_a_tiles():
    # (pid, sm, start, end), rows of 64 tiles. SM 0: CTAs 0 and 1 together (same row, gap 1),
    # then 130 and 140 (same row 2, gap 10) overlapping for half of 130's run. SM 1: CTAs 2 and
    # 70 (rows 0 and 1, gap 68), then 150 and 300 (rows 2 and 4, gap 150).
    runs = [(0, 0, 0.0, 10.0), (1, 0, 0.0, 10.0), (130, 0, 10.0, 20.0), (140, 0, 15.0, 25.0),
            (2, 1, 0.0, 10.0), (70, 1, 0.0, 10.0), (150, 1, 10.0, 20.0), (300, 1, 10.0, 20.0)]
    # Wave 0: gaps 1 and 68 (median 34.5, printed 34 by round-half-even); wave 1: 10 and 150.
    # Overlap weights: 1 (0, 1), 0.5 (130, 140), 1 (2, 70), 1 (150, 300): same row 1.5 of 3.5.
    assert wave_drift.pair_line(runs, 64) == (
        "pid gap by wave 34 80; same A tile 42.9 % of co-resident time")


def w4_rows(chip, k):
    """Rep 0 of the 8192 x 8192 x k w4 launch in a chip's committed cta_map record."""
    path = os.path.join(ROOT, "validation", "data", chip, "micro_gemm_cta_map_8k.csv")
    _, rows = wave_drift.read_file(path)
    return [r for r in rows
            if r["K"] == str(k) and r["variant"] == "128x128x64_s3_w4" and r["rep"] == "0"]


def test_h100_record_pairs_come_to_share_a_tiles():
    # The chip's drifting w4 launch: an SM's two CTAs come within a few dozen pids of each other
    # and work on the same row of C tiles about half the time (the model: 3-13 %).
    rs = w4_rows("h100", 4096)
    line = wave_drift.pair_line([(int(r["pid"]), int(r["smid"]), float(r["start_ns"]),
                                  float(r["end_ns"])) for r in rs], 64)
    gaps = [int(g) for g in line.split(";")[0].split()[4:]]
    assert gaps[0] == 132 and max(gaps[3:]) < 40
    share = float(line.split("same A tile ")[1].split(" %")[0])
    assert 45.0 < share < 60.0


def test_first_wave_line_sd_across_sms():
    # (order, sm, start, cycles): wave of 4 CTAs over SMs 0 and 1 (means 100 and 300: s.d. 100,
    # 50 % of 200); the fifth CTA is the next wave's and left out.
    ctas = [(0, 0, 0.0, 90), (1, 1, 0.0, 250), (2, 0, 0.0, 110), (3, 1, 0.0, 350),
            (4, 0, 5.0, 1000)]
    assert wave_drift.first_wave_line(ctas, 4) == (
        "per-SM mean CTA cycles s.d. 50.0 % of 200 over 2 SMs")


def test_first_waves_vary_by_chip():
    # The first w4 wave of 8192x8192x4096 varies by 2-5 % across the H100's SMs, by under 1 % on
    # the H200, whose 8192^3 launch still drifts apart later (the model: 0.1-0.7 %).
    def sd(chip, k):
        line = wave_drift.first_wave_line(wave_drift.record_ctas(w4_rows(chip, k)), 264)
        assert line.endswith("over 132 SMs")
        return float(line.split("s.d. ")[1].split(" %")[0])
    assert 2.0 < sd("h100", 4096) < 6.0
    assert sd("h200", 4096) < 1.0 and sd("h200", 8192) < 1.0


def test_rows_line_same_gpc_pairs_and_runs():
    # TPC 0 is GPC 0 (SMs 0, 1), TPC 1 GPC 1 (SMs 2, 3); waves of 4 CTAs, rows of 2 tiles.
    # Wave 0: row 0 on GPCs 0, 0 (one pair, same), row 1 on 1, 0 (not): 0.50. Wave 1: row 2 on
    # 1, 1, row 3 on 0, 1: 0.50. Waves 2 on go to GPCs 1, 1, 0, 1: three runs of 4 CTAs.
    gpcs = [0, 1]
    sms = [0, 1, 2, 0, 2, 3, 0, 2]
    ctas = [(i, sm, 0.0, 100) for i, sm in enumerate(sms)]
    assert wave_drift.gpc_row_line(ctas, 4, gpcs, 2) == (
        "same GPC within a row by wave 0.50 0.50; runs of one GPC 1.33 CTAs")


def test_chips_hand_a_gpc_ctas_in_a_row_in_w4_launches():
    # Both chips' 8192x8192x4096 w4 launches: after the first wave, consecutive CTAs go to one
    # GPC more often than eight GPCs taking turns would give (1.14), and a row's CTAs share a
    # GPC more often as the waves go on (the model: 0.11-0.14 from wave 2, runs 1.18-1.24).
    for chip in ("h100", "h200"):
        gpcs = wave_drift.tpc_gpcs(chip)
        line = wave_drift.gpc_row_line(wave_drift.record_ctas(w4_rows(chip, 4096)), 264, gpcs, 64)
        shares = [float(x) for x in line.split(";")[0].split()[7:]]
        runs = float(line.split("runs of one GPC ")[1].split()[0])
        assert len(shares) == 6 and abs(shares[0] - 0.21) < 0.01
        assert max(shares[4:]) > 0.2 and runs > 1.3


def test_turnover_line_delays_order_and_gpc_ends():
    # SMs 0 (GPC 0) and 2 (GPC 1), one slot each. (pid, sm, start, end): pid 2 takes SM 0's
    # slot freed at 10 (1 later), pid 3 SM 2's freed at 8 (4 later): freed out of order once in
    # three consecutive pairs. Ends in time less one wave either side: 10 G0, 20 G0, 22 G1,
    # 30 G0: one of three consecutive pairs on one GPC. Pids 1-5 (wave 2 on) all start within
    # 64 ns; the pairs on two SMs are all on two GPCs: ends 12, 22, 2, 11, 8, 1 ns apart, median
    # 9.5 ns (0.01 us), and none on one GPC.
    runs = [(0, 0, 0, 10), (1, 2, 0, 8), (2, 0, 11, 20), (3, 2, 12, 22), (4, 0, 21, 30),
            (5, 2, 23, 31)]
    assert wave_drift.turnover_line(runs, 1, 1, [0, 1]) == (
        "slot freed to next start 1 ns (1-4); freed out of order 0.33; "
        "consecutive ends on one GPC 0.33; co-started CTAs end apart, one / two GPCs, "
        "n/a / 0.01 us")


def test_chips_refill_slots_in_order_and_end_ctas_by_gpc():
    # Both chips' 8192x8192x4096 w4 launches: a freed slot takes the next CTA ~0.2 us later and
    # first come, first served, but a GPC's CTAs end together: consecutive ends fall on one GPC
    # in 0.26-0.28 of pairs (the model, which refills alike: 0.16 H100, 0.22 H200).
    for chip in ("h100", "h200"):
        rs = w4_rows(chip, 4096)
        line = wave_drift.turnover_line([(int(r["pid"]), int(r["smid"]), float(r["start_ns"]),
                                          float(r["end_ns"])) for r in rs], 2, 264,
                                        wave_drift.tpc_gpcs(chip))
        delay = float(line.split("next start ")[1].split()[0])
        swapped = float(line.split("out of order ")[1].split(";")[0])
        ends = float(line.split("one GPC ")[1].split(";")[0])
        one, two = (float(x) for x in line.split("GPCs, ")[1].split()[0:3:2])
        assert 190.0 <= delay <= 260.0 and swapped < 0.1 and ends > 0.25
        assert two > 1.4 * one  # co-started CTAs end closer together on one GPC
