// HbmSystem: exact timing on a tiny round-number part, conservation and determinism
// (docs/memory.md, "DRAM"); the harnesses that hold the H200 defaults against
// validation/data/h200 are in hbm_h200_test.cpp, the address mapping in hbm_mapping_test.cpp.
#include "mem/hbm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "util/error.h"

namespace asyncsim {
namespace {

constexpr Time kNs = 1000;

// One pseudo-channel, 8 banks in 2 groups, 1-ns bursts (32 B over 32 pins at 4000 MHz DDR),
// round timings in ns, no controller latency, no refresh.
HbmParams tiny() {
  HbmParams p;
  p.channels = 1;
  p.pseudo_channels = 1;
  p.stack_ids = 1;
  p.bank_groups = 2;
  p.banks_per_group = 4;
  p.clock_mhz = 4000.0;
  p.interleave_bytes = 256;
  p.window_bytes = 256;
  p.row_bytes = 1024;
  p.t_rcd_ns = 10;
  p.t_rp_ns = 10;
  p.t_ras_ns = 20;
  p.t_cl_ns = 10;
  p.t_wl_ns = 4;
  p.t_rtp_ns = 2;
  p.t_wr_ns = 8;
  p.t_ccd_s_ns = 1;
  p.t_ccd_l_ns = 2;
  p.t_rrd_s_ns = 2;
  p.t_rrd_l_ns = 4;
  p.t_faw_ns = 20;
  p.t_wtr_s_ns = 3;
  p.t_wtr_l_ns = 5;
  p.t_rtw_ns = 1;
  p.ctrl_latency_ns = 0;
  p.refresh = false;
  p.refresh_per_bank = false;
  p.hash_upper = false;
  p.write_batch = 1;
  p.bus_efficiency = 1.0;
  return p;
}

// Tiny part: [8 bits in interleave | 2 column bits | 3 bank bits | row]; the bank bits are
// XORed with the row folded to 3 bits, so this picks the address of (bank, row, column).
uint64_t tiny_addr(int bank, uint64_t row, int column) {
  uint64_t fold = 0;
  for (uint64_t r = row; r != 0; r >>= 3) {
    fold ^= r & 7;
  }
  return (row << 13) | ((static_cast<uint64_t>(bank) ^ fold) << 10) |
         (static_cast<uint64_t>(column) << 8);
}

TEST(Hbm, TinyAddressHelperMatchesDecode) {
  HbmSystem hbm(tiny());
  for (int bank = 0; bank < 8; ++bank) {
    for (uint64_t row = 0; row < 20; ++row) {
      const HbmAddress a = hbm.decode(tiny_addr(bank, row, 3));
      EXPECT_EQ(a.pc, 0);
      EXPECT_EQ(a.bank, bank);
      EXPECT_EQ(a.row, static_cast<int64_t>(row));
      EXPECT_EQ(a.column, 3);
    }
  }
}

// A geometry of more banks than are simulated (or whose int product would overflow) is a config
// error naming the factors, not an allocation that never ends.
TEST(Hbm, TooManyBanksIsAnInputError) {
  HbmParams p = tiny();
  p.pseudo_channels = 1 << 20;
  p.bank_groups = 1 << 20;
  p.banks_per_group = 1 << 20;
  try {
    HbmSystem hbm(p);
    FAIL() << "expected an input error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is more than the 4194304 banks simulated at most"),
              std::string::npos)
        << e.what();
  }
}

// 128 B = 4 bursts from one bank: column commands tCCD_L apart, the last burst ends
// tCL + tBURST after the last command.
TEST(Hbm, RowMissHitConflictLatency) {
  HbmSystem hbm(tiny());
  const Time miss = hbm.access(tiny_addr(0, 0, 0), 128, false, 0);
  EXPECT_EQ(miss, (10 + 3 * 2 + 10 + 1) * kNs);  // tRCD + 3 tCCD_L + tCL + tBURST
  EXPECT_EQ(miss, hbm.idle_miss_latency(128));
  const Time hit = hbm.access(tiny_addr(0, 0, 1), 128, false, 1000 * kNs) - 1000 * kNs;
  EXPECT_EQ(hit, (3 * 2 + 10 + 1) * kNs);
  const Time conflict = hbm.access(tiny_addr(0, 1, 0), 128, false, 2000 * kNs) - 2000 * kNs;
  EXPECT_EQ(conflict, (10 + 10 + 3 * 2 + 10 + 1) * kNs);  // + tRP
  EXPECT_EQ(hbm.stats().row_misses, 1U);
  EXPECT_EQ(hbm.stats().row_hits, 1U);
  EXPECT_EQ(hbm.stats().row_conflicts, 1U);
  EXPECT_EQ(hbm.stats().activates, 2U);
}

// A conflict waits for tRAS of the row it closes.
TEST(Hbm, ConflictWaitsForTras) {
  HbmSystem hbm(tiny());
  hbm.access(tiny_addr(0, 0, 0), 32, false, 0);
  // ACT at 0: PRE no earlier than tRAS = 20, ACT 30, RD 40, data end 51.
  EXPECT_EQ(hbm.access(tiny_addr(0, 1, 0), 32, false, 1 * kNs), 51 * kNs);
}

// Five activates at once to five banks: tRRD_S/tRRD_L space the first four, the fifth waits
// for the tFAW window opened by the first.
TEST(Hbm, FawLimitsActivates) {
  std::vector<Time> with_faw;
  std::vector<Time> without_faw;
  for (double faw : {20.0, 0.0}) {
    HbmParams p = tiny();
    p.t_faw_ns = faw;
    HbmSystem hbm(p);
    auto& out = faw > 0 ? with_faw : without_faw;
    for (int bank = 0; bank < 5; ++bank) {  // bank groups alternate 0, 1, 0, 1, 0
      out.push_back(hbm.access(tiny_addr(bank, 0, 0), 32, false, 0));
    }
  }
  // ACTs at 0, 2, 4, 6 (tRRD_S 2, tRRD_L 4); the fifth at tFAW = 20, else at 8.
  EXPECT_EQ(with_faw[3], (6 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(with_faw[4], (20 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(without_faw[4], (8 + 10 + 10 + 1) * kNs);
}

// A read right after a drained write waits tWTR_L (same bank group) from the end of the write
// data before its column command.
TEST(Hbm, WriteToReadTurnaround) {
  HbmSystem hbm(tiny());
  EXPECT_EQ(hbm.access(tiny_addr(0, 0, 0), 32, true, 0), 0);  // posted, drained at once
  EXPECT_EQ(hbm.stats().writes_drained, 1U);
  // WR at tRCD = 10, data 14..15; RD no earlier than 15 + tWTR_L = 20.
  EXPECT_EQ(hbm.access(tiny_addr(0, 0, 1), 32, false, 16 * kNs), (20 + 10 + 1) * kNs);
  // Without the write the same hit takes tCL + tBURST.
  HbmSystem fresh(tiny());
  fresh.access(tiny_addr(0, 0, 0), 32, false, 0);
  EXPECT_EQ(fresh.access(tiny_addr(0, 0, 1), 32, false, 16 * kNs), (16 + 10 + 1) * kNs);
}

// The drain also costs the bus: reads after it cannot use the bus before the write data ends
// plus tWTR_S plus tCL, even in another bank group.
TEST(Hbm, DrainHoldsBusForTurnaround) {
  HbmSystem hbm(tiny());
  hbm.access(tiny_addr(1, 0, 0), 32, false, 0);  // open bank 1 (group 1): ACT 0
  hbm.access(tiny_addr(0, 0, 0), 32, true, 0);   // WR bank 0 (group 0): ACT 2, WR 12
  // The read's data ends at 21, so the write data goes at 21 + tRTW = 22..23 (WR at 12 waits
  // for the bus). The hit in bank 1 at 17: RD at 23 + tWTR_S = 26, but the bus carries read
  // data again only from 23 + tWTR_S + tCL = 36: done 37.
  EXPECT_EQ(hbm.access(tiny_addr(1, 0, 1), 32, false, 17 * kNs), 37 * kNs);
}

// Writes wait in the queue until write_batch of them are there.
TEST(Hbm, WritesArePostedAndDrainedInBatches) {
  HbmParams p = tiny();
  p.write_batch = 4;
  HbmSystem hbm(p);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(hbm.access(tiny_addr(i, 0, 0), 64, true, i * kNs), i * kNs);
  }
  EXPECT_EQ(hbm.stats().drains, 0U);
  hbm.access(tiny_addr(3, 0, 0), 64, true, 3 * kNs);
  EXPECT_EQ(hbm.stats().drains, 1U);
  EXPECT_EQ(hbm.stats().writes_drained, 4U);
  hbm.access(tiny_addr(4, 0, 0), 64, true, 4 * kNs);
  // The batch drained at 3 opened banks 0-3 (ACTs at 3 / 5 / 7 / 9: tRRD_S, tRRD_L), its eight
  // bursts held the bus 7-15 and its data ended at 26 (WR at 19 + tCCD_L + tWL + tBURST); a
  // read would have the bus from 26 + tWTR_S + tCL = 39, a write needs no turnaround. The fifth
  // write's bank waits for tFAW (fifth ACT of the SID at 3 + 20 = 23), WR at 23 + tRCD = 33,
  // data end 33 + tCCD_L + tWL + tBURST = 40 (its bursts at 15-17). Until the forty-second
  // session a drain after a drain waited for the read turnaround too: 41.
  EXPECT_EQ(hbm.flush(5 * kNs), 40 * kNs);
  EXPECT_EQ(hbm.stats().writes_drained, 5U);
  EXPECT_EQ(hbm.stats().write_bytes, 5U * 64U);
}

// dram.drain_when_idle: a posted write that finds its pseudo-channel's bus idle (nothing booked)
// drains the queue at once; one that arrives while a read holds the bus waits for the batch.
TEST(Hbm, IdleBusDrainsPostedWritesAtOnce) {
  HbmParams p = tiny();
  p.write_batch = 4;
  p.drain_when_idle = true;
  HbmSystem hbm(p);
  hbm.access(tiny_addr(0, 0, 0), 64, true, 0);  // idle: drained alone
  EXPECT_EQ(hbm.stats().drains, 1U);
  EXPECT_EQ(hbm.stats().writes_drained, 1U);
  const Time read_done = hbm.access(tiny_addr(1, 0, 0), 64, false, 100 * kNs);
  hbm.access(tiny_addr(2, 0, 0), 64, true, 101 * kNs);  // the read still holds the bus: queued
  EXPECT_EQ(hbm.stats().drains, 1U);
  hbm.access(tiny_addr(3, 0, 0), 64, true, read_done + kNs);  // idle again: both go
  EXPECT_EQ(hbm.stats().drains, 2U);
  EXPECT_EQ(hbm.stats().writes_drained, 3U);
}

// FR-FCFS: a hit on the row a queued switch is about to close is served first.
TEST(Hbm, RowHitBypassesQueuedSwitch) {
  Time with = 0;
  Time without = 0;
  for (int window : {4, 0}) {
    HbmParams p = tiny();
    p.frfcfs_window = window;
    HbmSystem hbm(p);
    hbm.access(tiny_addr(0, 0, 0), 32, false, 0);        // row 0 open, ACT 0
    hbm.access(tiny_addr(0, 1, 0), 32, false, 1 * kNs);  // switch: PRE at tRAS = 20
    const Time done = hbm.access(tiny_addr(0, 0, 1), 32, false, 2 * kNs);
    (window > 0 ? with : without) = done;
    EXPECT_EQ(hbm.stats().bypass_hits, window > 0 ? 1U : 0U);
  }
  // Bypass: row 0 is open since its ACT at 0, so the RD goes at tRCD = 10 (the column budget,
  // 4, and the arrival, 2, are earlier; until the forty-second session it went at 4, before
  // the row could be read), data tCL and one burst later: 21.
  EXPECT_EQ(with, 21 * kNs);
  // No bypass: a second switch after row 1's tRAS (ACT 30 -> PRE 50 -> ACT 60 -> RD 70).
  EXPECT_EQ(without, (70 + 10 + 1) * kNs);
}

// A row miss that arrives first and a row hit that arrives later can have their data ready
// at the same moment. The bus budget books the miss's bus time at its arrival, so both bursts
// end together on one bus; dram.bus_calendar books each burst at its data's own time, and the
// hit takes the next free slot.
TEST(Hbm, BusCalendarSerialisesDataReadyTogether) {
  for (bool calendar : {false, true}) {
    HbmParams p = tiny();
    p.bus_calendar = calendar;
    HbmSystem hbm(p);
    EXPECT_EQ(hbm.access(tiny_addr(1, 0, 0), 32, false, 0), 21 * kNs);  // opens bank 1's row 0
    // Bank 0 (closed): ACT 100, RD 110, data ready 120, last data 121.
    EXPECT_EQ(hbm.access(tiny_addr(0, 0, 0), 32, false, 100 * kNs), 121 * kNs);
    // Bank 1 (other bank group, row open): RD at its arrival 110, data ready 120 as well.
    EXPECT_EQ(hbm.access(tiny_addr(1, 0, 1), 32, false, 110 * kNs), (calendar ? 122 : 121) * kNs);
    EXPECT_EQ(hbm.stats().row_hits, 1U);
  }
}

TEST(Hbm, RefreshClosesRowsAndBlocksThePseudoChannel) {
  HbmParams p = tiny();
  p.refresh = true;
  p.t_refi_ns = 1000;
  p.t_rfc_ns = 100;
  HbmSystem hbm(p);
  hbm.access(tiny_addr(0, 0, 0), 32, false, 0);
  // Inside the refresh window [1000, 1100): the row is closed, the ACT waits for its end.
  EXPECT_EQ(hbm.access(tiny_addr(0, 0, 1), 32, false, 1010 * kNs), (1100 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(hbm.stats().row_misses, 2U);
  EXPECT_EQ(hbm.stats().refreshes, 1U);
}

// The H200's pseudo-channels with per-bank refresh a quarter of each bank's time (1000 ns of
// every 4000), for the refresh-alignment tests below.
HbmParams quarter_refresh() {
  HbmParams p;
  p.refresh_per_bank = true;
  p.t_refi_ns = 4000;
  p.t_rfcpb_ns = 1000;
  return p;
}

// dram.refresh_by_bank_index: the chip refreshes bank b of every pseudo-channel in the b-th
// share of tREFI, so the 32 granules of an 8 KB window (32 pseudo-channels, one bank index)
// meet a refresh together, about as often as one granule does (a quarter of the time here);
// staggered per pseudo-channel (refresh_sync_pcs 1) most windows have a granule in refresh.
TEST(Hbm, RefreshByBankIndexRefreshesAWindowsGranulesTogether) {
  const auto windows_waiting = [](bool by_bank) {
    HbmParams p = quarter_refresh();
    p.refresh_by_bank_index = by_bank;
    HbmSystem hbm(p);
    int waiting = 0;
    Time t = 0;
    for (int i = 0; i < 64; ++i) {
      // Every window at another moment of tREFI: 5-9 us apart, in an order unrelated to banks.
      t += static_cast<Time>(5000 + i * uint64_t{2654435761} % 4001) * kNs;
      const uint64_t window = static_cast<uint64_t>(i) * (uint64_t{1} << 24);
      Time slowest = 0;
      for (int g = 0; g < 32; ++g) {
        slowest = std::max(slowest,
                           hbm.access(window + 256 * static_cast<uint64_t>(g), 32, false, t) - t);
      }
      waiting += slowest > 300 * kNs ? 1 : 0;
    }
    return waiting;
  };
  const int by_bank = windows_waiting(true);
  const int apart = windows_waiting(false);
  std::printf("    windows with a granule in refresh: by bank index %d, apart %d of 64\n", by_bank,
              apart);
  EXPECT_GE(by_bank, 8);  // a quarter of 64 is 16 (17): the refresh is still met
  EXPECT_LE(by_bank, 24);
  EXPECT_GE(apart, 40);  // 32 granules on their own schedules: mostly one (51)
}

// dram.refresh_sync_pcs: the 8 granules of an aligned 2 KB (eight 256-B granules of one window,
// in eight pseudo-channels at one bank index) meet a per-bank refresh all together or not at all
// when those pseudo-channels refresh each bank index together; on their own schedules (1) some
// blocks have some granules waiting and others not. A quarter of each bank's time is refresh here.
TEST(Hbm, RefreshSyncedPseudoChannelsRefreshContiguousDataTogether) {
  const auto waiting_counts = [](int sync) {
    HbmParams p = quarter_refresh();
    p.refresh_sync_pcs = sync;
    HbmSystem hbm(p);
    std::vector<int> counts;
    for (int i = 0; i < 64; ++i) {
      const Time t = static_cast<Time>(i) * 7919 * kNs;  // every block at another moment
      const uint64_t block = static_cast<uint64_t>(i) * (uint64_t{1} << 24) + 2048 * (i % 4);
      std::vector<Time> lat;
      for (int g = 0; g < 8; ++g) {
        lat.push_back(hbm.access(block + 256 * static_cast<uint64_t>(g), 32, false, t) - t);
      }
      const Time fastest = *std::min_element(lat.begin(), lat.end());
      int waited = 0;
      for (const Time l : lat) {
        waited += l > fastest + 50 * kNs ? 1 : 0;
      }
      // All eight waiting shows as none above the fastest: count a block whose fastest read
      // itself waited (more than the idle latency) as eight.
      counts.push_back(fastest > 300 * kNs ? 8 : waited);
    }
    return counts;
  };
  const std::vector<int> synced = waiting_counts(8);
  const std::vector<int> apart = waiting_counts(1);
  int partial_synced = 0;
  int partial_apart = 0;
  int all_synced = 0;
  for (size_t i = 0; i < synced.size(); ++i) {
    partial_synced += synced[i] > 0 && synced[i] < 8 ? 1 : 0;
    all_synced += synced[i] == 8 ? 1 : 0;
    partial_apart += apart[i] > 0 && apart[i] < 8 ? 1 : 0;
  }
  std::printf("    synced: %d partial, %d all; apart: %d partial\n", partial_synced, all_synced,
              partial_apart);
  EXPECT_EQ(partial_synced, 0);
  EXPECT_GT(all_synced, 4);
  EXPECT_GT(partial_apart, 10);
  HbmParams bad;
  bad.refresh_sync_pcs = 7;  // does not divide 192
  EXPECT_THROW(HbmSystem{bad}, InputError);
}

// dram.refresh_postpone_ns: bank 0 is due for its refresh at 1000 ns (window [1000, 1100)). A
// read at 1010 into an idle bank waits for the window's end (ACT 1100, RD 1110, data 1120-1121);
// after a read of the same row at 900 (the bank busy within 200 ns of the refresh) the refresh
// is postponed and the read is a row hit (RD 1010, data 1020-1021); a use at 500 is too early.
TEST(Hbm, BusyBanksPostponeTheirRefresh) {
  const auto read_at_1010 = [](double postpone_ns, Time before) {
    HbmParams p = tiny();
    p.refresh_per_bank = true;
    p.t_refi_ns = 1000;
    p.t_rfcpb_ns = 100;
    p.refresh_postpone_ns = postpone_ns;
    HbmSystem hbm(p);
    if (before >= 0) {
      hbm.access(tiny_addr(0, 1, 0), 32, false, before);
    }
    return hbm.access(tiny_addr(0, 1, 1), 32, false, 1010 * kNs);
  };
  EXPECT_EQ(read_at_1010(0, -1), (1100 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(read_at_1010(200, -1), (1100 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(read_at_1010(0, 900 * kNs), (1100 + 10 + 10 + 1) * kNs);
  EXPECT_EQ(read_at_1010(200, 900 * kNs), (1010 + 10 + 1) * kNs);
  EXPECT_EQ(read_at_1010(200, 500 * kNs), (1100 + 10 + 10 + 1) * kNs);
}

TEST(Hbm, RejectsInconsistentOrganisation) {
  HbmParams p;
  p.bank_groups = 3;
  EXPECT_THROW(HbmSystem{p}, InputError);
  p = HbmParams{};
  p.window_bytes = 128 * 256;  // 128 pseudo-channels per group do not divide 192
  EXPECT_THROW(HbmSystem{p}, InputError);
  p = HbmParams{};
  p.bus_efficiency = 1.5;
  EXPECT_THROW(HbmSystem{p}, InputError);
}

// ---- Conservation and determinism -------------------------------------------------------------

struct Trace {
  std::vector<Time> returns;
  HbmSystem::Stats stats;
  uint64_t requested_read = 0;
  uint64_t requested_write = 0;
};

Trace run_random(uint64_t seed, int n) {
  HbmSystem hbm(HbmParams{});
  std::mt19937_64 rng(seed);
  Trace tr;
  Time t = 0;
  for (int i = 0; i < n; ++i) {
    t += static_cast<Time>(rng() % 400);  // ~2.6 requests per ns on average: near saturation
    const uint64_t addr = (rng() % (1ULL << 32)) & ~uint64_t{127};
    const int bytes = 32 * static_cast<int>(1 + rng() % 4);
    const bool write = rng() % 3 == 0;
    const Time done = hbm.access(addr + static_cast<uint64_t>(128 - bytes), bytes, write, t);
    tr.returns.push_back(done);
    (write ? tr.requested_write : tr.requested_read) += static_cast<uint64_t>(bytes);
    if (write) {
      EXPECT_EQ(done, t);
    } else {
      const double floor_ns = hbm.params().ctrl_latency_ns + hbm.params().t_cl_ns;
      EXPECT_GE(done, t + static_cast<Time>(floor_ns * 1000.0));
    }
  }
  hbm.flush(t);
  tr.stats = hbm.stats();
  return tr;
}

TEST(Hbm, ConservationEveryAccessCompletesOnceAndBytesAdd) {
  const Trace tr = run_random(7, 200000);
  const HbmSystem::Stats& s = tr.stats;
  EXPECT_EQ(s.reads + s.writes, 200000U);
  EXPECT_EQ(s.writes_drained, s.writes);
  EXPECT_EQ(s.row_hits + s.row_misses + s.row_conflicts, s.reads + s.writes);
  EXPECT_EQ(s.read_bytes, tr.requested_read);
  EXPECT_EQ(s.write_bytes, tr.requested_write);
  EXPECT_EQ(s.row_misses + s.row_conflicts, s.activates);
  // Every burst read or written holds its pseudo-channel's bus once: max(tBURST, tCCD_S) =
  // 1.25 ns over dram.bus_efficiency 0.94, 1330 ps (bytes are whole bursts here).
  EXPECT_EQ(s.busy_ps, static_cast<Time>((s.read_bytes + s.write_bytes) / 32 * 1330));
}

TEST(Hbm, Deterministic) {
  const Trace a = run_random(11, 50000);
  const Trace b = run_random(11, 50000);
  EXPECT_EQ(a.returns, b.returns);
  EXPECT_EQ(a.stats.row_hits, b.stats.row_hits);
  EXPECT_EQ(a.stats.busy_ps, b.stats.busy_ps);
}

}  // namespace
}  // namespace asyncsim
