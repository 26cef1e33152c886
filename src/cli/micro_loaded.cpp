// asyncsim micro loaded_latency: validation/hw/micro/loaded_latency.cu's mirror. Every SM runs
// one CTA of two roles: a probe (one warpgroup standing for the .cu's one thread) times
// dependent single-line loads, while a stream keeps `slots` 8 KB bulk copies from DRAM in
// flight. The probe's latency against the stream's load separates what load adds to a DRAM
// miss and to an L2 hit. The .cu's --quiet 8 (probes PROBE_quiet and PROBE_stream): CTAs c with
// c % 8 == 0 only probe, the others stream and probe; whether a probe waits behind its own SM's
// stream or in the memory system all SMs share. The .cu's --hit-stream (probes PROBE_hitstream):
// the stream re-reads an 8 MiB region read before the launch, a load of L2 hits on the fabric
// and the slices with the DRAM idle. next_batch.sh gpcquiet (probes PROBE_SETbusy and
// PROBE_SETquiet): that stream from a set of SMs only (LOADED_STREAM_SMS), the others probe
// alone: SET gpc1234 (the SMs of GPCs 1-4), tpceven (every TPC's even SM), gpc1even (GPC 1's even
// SMs), gpc12, gpc14 (GPCs 1 and 2's, 1 and 4's), gpc0 (GPC 0's with the side unit's), gpc1 ...
// gpc7 (one GPC's), by the SM a CTA runs on.
#include <fmt/format.h>

#include <algorithm>

#include "cli/micro_detail.h"
#include "program/builder.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

namespace {

constexpr int64_t kCopyBytes = 8192;
constexpr int kCopies = 600;  // per CTA
constexpr int kDrop = 8;      // first samples of the probe dropped
constexpr int64_t kStreamBase = 0;
constexpr int64_t kDramProbeBase = int64_t{4} << 30;
constexpr int64_t kDramProbeLines = (int64_t{4} << 30) / 128;
constexpr int64_t kL2ProbeBase = int64_t{8} << 30;
constexpr int64_t kL2ProbeLines = kMiB / 128;
constexpr int kQuietEvery = 8;                              // the .cu's --quiet 8
constexpr int64_t kHitStreamUnits = 8 * kMiB / kCopyBytes;  // the .cu's --hit-stream region
// What the .cu times besides a probe load (probes dram, l2, l2hot): between its two clock reads
// the SASS (validation/data/h100/micro_loaded_latency_sass.txt, 3c3aa2a) has the clock's
// S2UR, an LDC.64 of the probe pointer from constant memory and the IMAD.WIDE of the address
// before the LDG, and the dependent LOP3 after it; the program does not simulate those. Fitted
// on the H200's unloaded l2hot row (micro_loaded_latency.csv: 327 cycles, the model 258
// without this), so that row is no check; the unloaded dram row is (755 measured). The
// tma_dram probe times arrive + copy + wait, which the program simulates.
constexpr int64_t kProbeHarnessCycles = 69;

const std::vector<std::string> kColumns = {
    "probe", "slots",  "rep", "stream_gbps", "sm_mhz", "inside", "samples", "min", "p10",
    "p25",   "median", "p75", "p90",         "mean",   "p95",    "p99",     "max"};

// next_batch.sh gpcquiet's sets as conditions on the SM a CTA runs on, GPCs by the config's
// sm.tpc_gpcs (the H200's and the H100's maps, micro_sm_map.csv, put the side unit's TPCs 62-65
// in GPC 0); "" for a set of no such name. gpcDIGITS: the SMs of those GPCs; gpc1even: GPC 1's
// even SMs; tpceven: every TPC's even SM.
std::string stream_set_condition(const GpuConfig& c, const std::string& set) {
  if (set == "tpceven") {
    return "sm % 2 == 0";
  }
  const bool even = set == "gpc1even";
  const std::string digits = even ? "1" : set.starts_with("gpc") ? set.substr(3) : "";
  if (digits.empty() || digits.find_first_not_of("01234567") != std::string::npos) {
    return "";
  }
  std::string any;
  for (int sm = 0; sm < c.sm.count; sm += even ? 2 : 1) {
    if (digits.find(static_cast<char>('0' + gpc_of_sm(c.sm, sm))) != std::string::npos) {
      any += fmt::format("{}sm == {}", any.empty() ? "" : " || ", sm);
    }
  }
  return any;
}

// The kernel: role 0 the probe, role 1 the stream.
program::Kernel loaded_kernel(const GpuConfig& c, bool dram, bool bulk, int64_t l2_lines, int slots,
                              int samples, int rep, int copies, bool quiet, bool hit_stream,
                              const std::string& stream_set) {
  program::KernelBuilder b("loaded_latency");
  b.set_grid(c.sm.count);
  b.set_resources(32, 128 * kKiB);
  if (slots > 0) {
    b.add_barrier("bar", slots, 1);
  }
  b.add_barrier("pbar", 1, 1);
  b.begin_role("probe", 1);
  b.loop("k", "0", s(samples));
  // A scattered line per (CTA, sample), a different set per rep; the .cu hashes the pair.
  const int64_t lines = dram ? kDramProbeLines : l2_lines;
  const std::string addr = fmt::format("{} + 128 * (((cta * 7919 + k + {}) * 1000003 + 1) % {})",
                                       dram ? kDramProbeBase : kL2ProbeBase, rep * 104729, lines);
  if (bulk) {  // probe=tma_dram: one 128-B bulk copy through the TMA engine the stream uses
    b.mb_arrive_expect_tx("pbar", "0", "128");
    b.bulk_load(addr, "128", "pbar", "0");
    b.mb_wait("pbar", "0", "k % 2");
  } else {
    b.ld_global(addr, "4", "1", "0", "4");
    b.ld_wait("0");
    program::KernelBuilder::ComputeOps harness;
    harness.cycles = s(kProbeHarnessCycles);
    b.compute(harness, false, "harness");
  }
  b.end_loop();
  b.end_role();
  if (slots > 0) {
    b.begin_role("stream", 1);
    if (!stream_set.empty()) {
      b.if_(stream_set_condition(c, stream_set));
    } else if (quiet) {
      b.if_(fmt::format("cta % {} != 0", kQuietEvery));
    }
    b.loop("j", "0", s(copies));
    const std::string slot = fmt::format("j % {}", slots);
    b.if_(fmt::format("j >= {}", slots));
    b.mb_wait("bar", slot, fmt::format("(j / {} - 1) % 2", slots));
    b.end_if();
    b.mb_arrive_expect_tx("bar", slot, s(kCopyBytes));
    const std::string unit = hit_stream
                                 ? fmt::format("((cta + j * {}) % {})", c.sm.count, kHitStreamUnits)
                                 : fmt::format("(cta + j * {})", c.sm.count);
    b.bulk_load(fmt::format("{} + {} * {}", kStreamBase, unit, kCopyBytes), s(kCopyBytes), "bar",
                slot);
    b.end_loop();
    b.loop("k", s(std::max(0, copies - slots)), s(copies));
    b.mb_wait("bar", fmt::format("k % {}", slots), fmt::format("(k / {}) % 2", slots));
    b.end_loop();
    if (quiet || !stream_set.empty()) {
      b.end_if();
    }
    b.end_role();
  }
  return b.finish();
}

// What the .cu pools from one launch, here from a trace of every CTA: the probe samples of
// every CTA (with --quiet, of the quiet CTAs, c % 8 == 0, or of the streaming ones), each kept
// if it ended before its CTA's stream did (with --quiet: before the first streaming CTA's
// stream did, as the .cu's %globaltimer filter); the stream's GB/s over the streaming CTAs'
// bytes, first copy to last exit; `inside` the lowest share, over launches, of the pooled CTAs
// whose probe ended inside the stream (the .cu's column).
enum class Pool { kAll, kQuiet, kStreaming };
void pool_samples(const std::vector<IssueMark>& trace, const GpuConfig& c, Pool pool,
                  program::Op probe_op, int slots, int copies, std::vector<int64_t>& pooled,
                  std::vector<double>& gbps, double& inside, bool by_issue,
                  const std::vector<bool>& pooled_ctas) {
  const auto ctas = static_cast<size_t>(c.sm.count);
  // A CTA streams unless it is quiet: by --quiet's rule, or (a stream set) if it issued nothing
  // in the stream role.
  std::vector<bool> issued(ctas, false);
  for (const IssueMark& m : trace) {
    if (m.role == 1 && m.op == program::Op::kBulkLoad) {
      issued[static_cast<size_t>(m.cta)] = true;
    }
  }
  const auto streams = [&](size_t cta) {
    return pool == Pool::kAll || (by_issue ? issued[cta] : cta % kQuietEvery != 0);
  };
  std::vector<std::vector<Time>> loads(ctas);
  std::vector<Time> last(ctas, 0);
  Time first = -1;
  for (const IssueMark& m : trace) {
    const auto cta = static_cast<size_t>(m.cta);
    if (m.role == 0 && m.op == probe_op) {
      loads[cta].push_back(m.t);
    } else if (m.role == 1 && streams(cta)) {
      first = first < 0 ? m.t : std::min(first, m.t);
      last[cta] = std::max(last[cta], m.t);
    }
  }
  Time first_end = kTimeNever;
  Time last_end = 0;
  int streaming = 0;
  for (size_t cta = 0; cta < ctas; ++cta) {
    if (streams(cta)) {
      first_end = std::min(first_end, last[cta]);
      last_end = std::max(last_end, last[cta]);
      ++streaming;
    }
  }
  int kept = 0;
  int ended_inside = 0;
  for (size_t cta = 0; cta < ctas; ++cta) {
    if ((pool == Pool::kQuiet && streams(cta)) || (pool == Pool::kStreaming && !streams(cta)) ||
        (!pooled_ctas.empty() && !pooled_ctas[cta])) {
      continue;
    }
    // A stream set's streaming CTAs keep what ended before their own stream did (the .cu's
    // LOADED_STREAM_SMS rule), --quiet's what ended before the first stream did.
    const Time end =
        pool == Pool::kAll || (by_issue && pool == Pool::kStreaming) ? last[cta] : first_end;
    const std::vector<Time>& l = loads[cta];
    for (size_t i = kDrop; i + 1 < l.size(); ++i) {
      if (slots == 0 || l[i + 1] <= end) {
        pooled.push_back(sm_cycles(c, l[i + 1] - l[i]));
      }
    }
    ++kept;
    ended_inside += !l.empty() && l.back() < end ? 1 : 0;
  }
  if (slots > 0) {
    const double bytes = static_cast<double>(streaming) * copies * kCopyBytes;
    gbps.push_back(bytes / (static_cast<double>(last_end - first) * 1e-12) * 1e-9);
    inside = std::min(inside, kept > 0 ? static_cast<double>(ended_inside) / kept : 1.0);
  }
}

}  // namespace

const std::vector<std::string>& loaded_columns() {
  return kColumns;
}

std::vector<MicroRow> loaded_points() {
  std::vector<MicroRow> out;
  for (const char* probe : {"dram", "l2", "tma_dram", "l2hot"}) {
    for (const int slots : {0, 1, 2, 3, 4, 6, 8, 16}) {
      out.push_back({{"probe", probe}, {"slots", s(slots)}, {"rep", "all"}});
    }
  }
  for (const char* probe : {"dram_quiet", "dram_stream", "l2hot_quiet", "l2hot_stream"}) {
    for (const int slots : {0, 2, 4, 6, 8, 16}) {
      out.push_back({{"probe", probe}, {"slots", s(slots)}, {"rep", "all"}});
    }
  }
  for (const char* probe : {"dram_hitstream", "l2hot_hitstream"}) {
    for (const int slots : {0, 1, 2, 3, 4, 6, 8, 16}) {
      out.push_back({{"probe", probe}, {"slots", s(slots)}, {"rep", "all"}});
    }
  }
  for (const char* probe : {"dram_hitquiet", "dram_hitbusy", "l2hot_hitquiet", "l2hot_hitbusy"}) {
    for (const int slots : {0, 2, 4, 6, 8, 16}) {
      out.push_back({{"probe", probe}, {"slots", s(slots)}, {"rep", "all"}});
    }
  }
  for (const char* set : {"gpc1234", "tpceven", "gpc1even", "gpc12", "gpc14", "gpc0", "gpc1",
                          "gpc2", "gpc3", "gpc4", "gpc5", "gpc6", "gpc7"}) {
    for (const char* probe : {"dram", "l2hot"}) {
      for (const char* who : {"busy", "quiet", "quietA", "quietB"}) {
        for (const int slots : {0, 1, 2, 3, 4, 6, 8, 16}) {
          out.push_back({{"probe", fmt::format("{}_{}{}", probe, set, who)},
                         {"slots", s(slots)},
                         {"rep", "all"}});
        }
      }
    }
  }
  return out;
}

// Three runs (reps) per point, as the hardware's three launches, each from a cold L2 (the
// .cu flushes it), probe=l2 after a full-chip read of the probe's 1 MiB; the probe's samples of
// the three runs pooled, every CTA's as the hardware's (thirty-second session; until then
// CTA 0's alone).
MicroRow loaded_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& name = key_str(key, "probe");
  // --quiet rows: PROBE_quiet (the CTAs that do not stream) or PROBE_stream (the others).
  const size_t cut = name.rfind('_');
  const std::string kind = cut == std::string::npos ? "" : name.substr(cut + 1);
  // --hit-stream rows: PROBE_hitstream; with --quiet too PROBE_hitquiet / PROBE_hitbusy.
  // next_batch.sh gpcquiet's rows: PROBE_SETbusy / PROBE_SETquiet (the hit stream from SET's SMs).
  // PROBE_SETquietA / PROBE_SETquietB: the quiet SMs of one half of the slices that serve hits
  // (the H100's micro_l2_halfmap.csv: A GPCs 0, 4, 5, 6 and the side unit, B GPCs 1, 2, 3, 7).
  std::string stream_set;
  std::string who;
  for (const char* w : {"busy", "quiet", "quietA", "quietB"}) {
    const std::string x(w);
    if (kind.size() > x.size() && kind.ends_with(x) &&
        !stream_set_condition(c, kind.substr(0, kind.size() - x.size())).empty()) {
      stream_set = kind.substr(0, kind.size() - x.size());
      who = x;
    }
  }
  const bool set_quiet = !stream_set.empty() && who != "busy";
  const bool quiet_cta = kind == "quiet" || kind == "hitquiet" || set_quiet;
  const bool quiet = quiet_cta || kind == "stream" || kind == "hitbusy" || !stream_set.empty();
  const bool hit_stream =
      kind == "hitstream" || kind == "hitquiet" || kind == "hitbusy" || !stream_set.empty();
  const std::string probe = quiet || hit_stream ? name.substr(0, cut) : name;
  if (quiet || hit_stream
          ? probe != "dram" && probe != "l2hot"
          : probe != "dram" && probe != "l2" && probe != "tma_dram" && probe != "l2hot") {
    throw_input_error(
        "micro loaded_latency",
        "probe: expected dram, l2, tma_dram, l2hot, dram_quiet, dram_stream, "
        "l2hot_quiet, l2hot_stream or dram / l2hot with _hitstream, _hitquiet, "
        "_hitbusy or _SETbusy / _SETquiet / _SETquietA / _SETquietB (SET gpc1234, tpceven, "
        "gpc1even, gpc12, gpc14, gpc0 ... gpc7), got '{}'",
        name);
  }
  // probe=l2hot: the l2 probe over the region's first 32 KB, which the stream cannot evict.
  const bool dram = probe != "l2" && probe != "l2hot";
  const int64_t l2_lines = probe == "l2hot" ? 32 * kKiB / 128 : kL2ProbeLines;
  const bool bulk = probe == "tma_dram";
  const auto slots = static_cast<int>(key_int(key, "slots"));
  if (slots < 0 || slots > 16) {
    throw_input_error("micro loaded_latency", "slots: expected 0..16, got {}", slots);
  }
  const int samples = dram ? 192 : 256;
  // The hardware's 600 copies per CTA (650 MB), fewer under a smaller --max-bytes.
  int copies = kCopies;
  if (o.max_bytes > 0) {
    const auto fit = static_cast<int64_t>(o.max_bytes) / (int64_t{c.sm.count} * kCopyBytes);
    copies = static_cast<int>(std::clamp<int64_t>(fit, std::max(1, slots), kCopies));
  }
  std::vector<int64_t> pooled;
  std::vector<double> gbps;
  double inside = 1.0;
  const program::Kernel touch = touch_kernel(c, kL2ProbeBase, kMiB);  // probe=l2 only
  const program::Kernel warm = touch_kernel(c, kStreamBase, kHitStreamUnits * kCopyBytes);
  for (int rep = 0; rep < 3; ++rep) {
    const program::Kernel k = loaded_kernel(c, dram, bulk, l2_lines, slots, samples, rep, copies,
                                            quiet && stream_set.empty(), hit_stream, stream_set);
    std::vector<IssueMark> trace;
    RunOptions ro;
    ro.issue_trace = &trace;
    ro.trace_every_role = true;
    ro.trace_every_cta = true;
    ro.record_ctas = who == "quietA" || who == "quietB";
    std::vector<const program::Kernel*> seq;
    if (!dram) {
      seq.push_back(&touch);
    }
    if (hit_stream) {
      seq.push_back(&warm);
    }
    seq.push_back(&k);
    const std::vector<SimResult> runs = micro_sequence(seq, c, ro);
    std::vector<bool> pooled_ctas;  // quietA / quietB: the CTAs on that half's SMs
    if (ro.record_ctas) {
      pooled_ctas.assign(static_cast<size_t>(c.sm.count), false);
      for (const CtaRecord& r : runs.back().cta_records) {
        const int g = gpc_of_sm(c.sm, r.sm);
        const bool a = g == 0 || g == 4 || g == 5 || g == 6;
        pooled_ctas[static_cast<size_t>(r.cta)] = a == (who == "quietA");
      }
    }
    // With no stream (slots = 0) a stream set's rows hold every CTA's samples, as the .cu's.
    const Pool pool = !quiet || (slots == 0 && !stream_set.empty()) ? Pool::kAll
                      : quiet_cta                                   ? Pool::kQuiet
                                                                    : Pool::kStreaming;
    pool_samples(trace, c, pool, bulk ? program::Op::kMbArriveExpectTx : program::Op::kLdGlobal,
                 slots, copies, pooled, gbps, inside, !stream_set.empty(), pooled_ctas);
  }
  std::sort(gbps.begin(), gbps.end());
  MicroRow row = key;
  row["stream_gbps"] = fmt::format("{:.1f}", gbps.empty() ? 0.0 : gbps[gbps.size() / 2]);
  row["sm_mhz"] = fmt::format("{:.0f}", c.sm.clock_mhz);
  row["inside"] = fmt::format("{:.2f}", inside);
  if (pooled.empty()) {
    pooled.push_back(0);
  }
  std::sort(pooled.begin(), pooled.end());
  double sum = 0;
  for (const int64_t x : pooled) {
    sum += static_cast<double>(x);
  }
  row["samples"] = s(static_cast<int64_t>(pooled.size()));
  row["min"] = s(pooled.front());
  row["p10"] = s(pct_of_sorted(pooled, 0.1));
  row["p25"] = s(pct_of_sorted(pooled, 0.25));
  row["median"] = s(pooled[pooled.size() / 2]);
  row["p75"] = s(pct_of_sorted(pooled, 0.75));
  row["p90"] = s(pct_of_sorted(pooled, 0.9));
  row["mean"] = fmt::format("{:.1f}", sum / static_cast<double>(pooled.size()));
  row["p95"] = s(pct_of_sorted(pooled, 0.95));
  row["p99"] = s(pct_of_sorted(pooled, 0.99));
  row["max"] = s(pooled.back());
  return row;
}

}  // namespace asyncsim::cli::micro_detail
