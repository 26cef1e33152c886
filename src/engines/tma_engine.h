// The per-SM Tensor Memory Accelerator. A warpgroup hands it a transaction (a tensor-map box
// or a bulk range); the engine admits up to tma.queue_depth of them, pays the launch latency
// (plus tensor-map setup for tensor copies), then one request generator walks the box over up
// to 5 dimensions at tma.bytes_per_cycle, emitting de-duplicated, out-of-bounds-clipped line
// requests to memory, with at most tma.max_inflight_requests outstanding. A transaction is done
// when its last response is back (FlashGPU-sim §III-A, Sim-FA §IV-C).
// The same engine, built with EngineKind::kLsu and the lsu.* parameters, is the SM's load/store
// unit path for LD_GLOBAL / ST_GLOBAL: its transactions are a warpgroup's coalesced rows, its
// loads complete a warpgroup's pending-load count instead of an mbarrier, and its stores take
// their data from registers (no shared-memory read to wait for).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/context.h"

namespace asyncsim {

enum class EngineKind : uint8_t { kTma, kLsu };

struct TmaTransaction {
  bool store = false;
  bool tensor = true;
  uint16_t cta_slot = 0;
  uint16_t wg_slot = 0;
  uint32_t barrier = UINT32_MAX;  // SM-wide mbarrier index (loads)
  int64_t tx_bytes = 0;           // bytes credited to the barrier (the full box, OOB included)
  uint16_t map = 0;
  std::array<int64_t, program::kMaxTensorRank> coord{};
  uint64_t bulk_addr = 0;
  int64_t rows = 1;  // non-tensor: rows of tx_bytes / rows bytes, row_stride apart
  int64_t row_stride = 0;
  int32_t extra_cycles = 0;  // added to the launch latency (lsu: 128-bit loads)
  Time accepted = 0;
  Time ready = 0;         // earliest start of request generation
  Time gen_end = 0;       // last request emitted (shared memory read done, for stores)
  Time done = 0;          // last response back
  uint32_t requests = 0;  // line requests emitted for it (OOB ones included)
  bool live = false;
};

struct TmaStats {
  uint64_t transactions = 0;
  uint64_t load_bytes = 0;   // bytes delivered to shared memory
  uint64_t store_bytes = 0;  // bytes written to global memory
  uint64_t requests = 0;     // line requests sent to memory
  // Responses consumed: a transaction's requests, counted when the SM processes its completion
  // (release()), so requests == responses once a kernel ends says every transaction whose
  // requests went out completed exactly once (none lost, none processed twice).
  uint64_t responses = 0;
  uint64_t request_bytes = 0;
  uint64_t oob_sectors = 0;
  uint64_t dedup_merged = 0;  // row segments merged into an already generated line
  uint64_t descriptor_misses = 0;
  Time request_latency_ps = 0;  // summed over requests: emission to response
  Time generator_busy_ps = 0;
};

class TmaEngine {
 public:
  TmaEngine(SimContext& ctx, uint16_t sm, EngineKind kind = EngineKind::kTma);

  bool full() const { return m_live >= m_capacity; }
  // Admits a transaction at time t; returns its slot. The caller checked full().
  uint32_t accept(const TmaTransaction& txn, Time t);
  // Event handler for EventKind::kTmaGenerate.
  void generate(Time t);
  TmaTransaction& txn(uint32_t slot) { return m_txns[slot]; }
  void release(uint32_t slot);
  const TmaStats& stats() const { return m_stats; }
  uint32_t live() const { return m_live; }

  // Flags on the payload of kTmaDone events.
  static constexpr uint32_t kStoreReadDone = 1u << 31;

 private:
  struct LineRequest {
    uint64_t line;
    uint8_t sectors;
    bool oob;
    bool partial_row = false;     // any request of a copy with such a row
    bool partial_sector = false;  // one sector the copy covers only in part
  };
  void start_next(Time t);
  void build_requests(const TmaTransaction& txn);
  void add_segment(int64_t byte_begin, int64_t byte_end, bool oob);
  bool whole_lines_2d(const program::TensorMap& m, const TmaTransaction& txn, int64_t esize);
  Time emit(const LineRequest& r, Time at, bool store);
  void finish_transaction(Time t);

  SimContext& m_ctx;
  uint16_t m_sm;
  EngineKind m_kind;
  EventKind m_generate_event;
  EventKind m_done_event;
  int m_launch_cycles;
  uint32_t m_capacity;
  std::vector<TmaTransaction> m_txns;
  std::vector<uint32_t> m_fifo;  // admitted, not yet generated, in order
  uint32_t m_fifo_head = 0;
  uint32_t m_live = 0;
  // Generator state for the transaction being generated.
  int32_t m_current = -1;
  std::vector<LineRequest> m_requests;
  size_t m_next_request = 0;
  Time m_cursor = 0;
  bool m_event_pending = false;
  // In-flight request tracking: completion times of outstanding requests (FIFO ring).
  std::vector<Time> m_inflight;
  uint32_t m_inflight_head = 0;
  uint32_t m_inflight_count = 0;
  // Tensor maps whose descriptor this SM has fetched (the TMA descriptor cache): only a miss
  // pays tma.tensor_setup_cycles.
  std::vector<bool> m_descriptor_cached;
  Time m_sector_ps;
  Time m_store_sector_ps;                // stores read shared memory at tma.store_bytes_per_cycle
  Time m_request_ps;                     // tma.request_cycles
  bool m_split_partial_sectors = false;  // tma.split_partial_sectors (TMA only)
  int64_t m_line_bytes;
  int64_t m_sector_bytes;
  int m_line_shift;      // log2 of the line size, -1 if it is not a power of two
  uint8_t m_full_mask;   // every sector of a line
  bool m_any_unaligned;  // a row of the copy being built starts or ends inside a sector
  Time m_oob_latency;
  TmaStats m_stats;
};

}  // namespace asyncsim
