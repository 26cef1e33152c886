// l2_pairs: which SMs' reads of the same tiles merge before the L2 (validation/hw/micro/
// l2_pairs.cu). Groups are made of SMs, not CTA ids: every SM of a group reads the same 16 KB
// GEMM tiles in the same order through one issuing thread's ring (l2_hot's copy loop), so the
// structures that merge them (the TPC and GPC stages of the request coalescer) can be told apart.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cli/micro_detail.h"
#include "util/error.h"

namespace asyncsim::cli::micro_detail {

namespace {

// The default points' layouts, then those only L2PAIRS_POINTS asks for (micro_l2_ceiling.csv).
const char* const kLayouts[] = {"sm",       "tpc",   "tpc_d1", "tpc_d2", "tpc_d3", "tpc_d4",
                                "tpc_xgpc", "sm_d1", "tpc3",   "gpc",    "chip"};
const char* const kOtherLayouts[] = {"one", "one_tpc", "one_tpc_split", "even", "gpc0"};

// The GPC of every SM as l2_pairs.cu finds it (union-find over the SMs of cluster launches): the
// config's sm.tpc_gpcs, except that the side unit's TPCs (sm.dispatch_side_tpcs), which share no
// cluster with anyone, are GPCs of their own, numbered after the real ones (on the H200 the run
// printed 12 GPCs: 0-7, then 8-11 for SMs 124-131).
std::vector<int> cluster_gpcs(const GpuConfig& c) {
  const int sms = c.sm.count;
  const int tpcs = sms / 2;
  const int first_side = tpcs - c.sm.dispatch_side_tpcs;
  std::vector<int> gpc(sms);
  for (int i = 0; i < sms; ++i) {
    const int t = i / 2;
    gpc[i] = t >= first_side ? c.sm.gpcs + (t - first_side) : gpc_of_sm(c.sm, i);
  }
  return gpc;
}

// The group of every SM under `layout` (-1: left out), as l2_pairs.cu's make_groups; returns the
// number of groups.
int make_groups(const std::string& layout, const std::vector<int>& gpc, std::vector<int>& group) {
  const int sms = static_cast<int>(gpc.size());
  group.assign(sms, -1);
  std::map<int, std::vector<int>> tpcs;  // GPC -> its TPCs, ascending
  for (int t = 0; 2 * t + 1 < sms; ++t) {
    if (gpc[2 * t] == gpc[2 * t + 1]) {
      tpcs[gpc[2 * t]].push_back(t);
    }
  }
  int g = 0;
  const auto put_tpcs = [&](std::initializer_list<int> ts) {
    for (const int t : ts) {
      group[2 * t] = group[2 * t + 1] = g;
    }
    ++g;
  };
  if (layout == "sm") {
    for (int i = 0; i < sms; ++i) {
      group[i] = g++;
    }
  } else if (layout == "chip") {
    std::fill(group.begin(), group.end(), 0);
    g = 1;
  } else if (layout == "gpc") {
    group = gpc;
    g = *std::max_element(gpc.begin(), gpc.end()) + 1;
  } else if (layout == "tpc") {
    for (auto& [k, l] : tpcs) {
      for (const int t : l) {
        put_tpcs({t});
      }
    }
  } else if (layout.rfind("tpc_d", 0) == 0 && layout.size() == 6 && layout[5] >= '1' &&
             layout[5] <= '4') {
    const int d = layout[5] - '0';
    for (auto& [k, l] : tpcs) {
      for (int j = 0; j + d < static_cast<int>(l.size()); ++j) {
        if ((j / d) % 2 == 0) {
          put_tpcs({l[j], l[j + d]});
        }
      }
    }
  } else if (layout == "tpc_xgpc") {
    for (auto a = tpcs.begin(); a != tpcs.end(); ++a) {
      const auto b = std::next(a);
      if (b == tpcs.end()) {
        break;
      }
      for (size_t i = 0; i < std::min(a->second.size(), b->second.size()); ++i) {
        put_tpcs({a->second[i], b->second[i]});
      }
      a = b;
    }
  } else if (layout == "sm_d1") {
    for (auto& [k, l] : tpcs) {
      for (int j = 0; j + 1 < static_cast<int>(l.size()); j += 2) {
        for (int h = 0; h < 2; ++h) {
          group[2 * l[j] + h] = group[2 * l[j + 1] + h] = g;
          ++g;
        }
      }
    }
  } else if (layout == "one") {  // SM 0 alone
    group[0] = g++;
  } else if (layout == "one_tpc") {  // SMs 0 and 1 reading the same tiles
    group[0] = group[1] = g++;
  } else if (layout == "one_tpc_split") {  // SMs 0 and 1, each its own tiles
    group[0] = g++;
    group[1] = g++;
  } else if (layout == "even") {  // SM 2t of every TPC, all the same tiles
    for (int i = 0; i < sms; i += 2) {
      group[i] = 0;
    }
    g = 1;
  } else if (layout == "gpc0") {  // the SMs of SM 0's GPC, the same tiles
    for (int i = 0; i < sms; ++i) {
      group[i] = gpc[i] == gpc[0] ? 0 : -1;
    }
    g = 1;
  } else if (layout == "tpc3") {
    for (auto& [k, l] : tpcs) {
      for (int j = 0; j + 2 < static_cast<int>(l.size()); j += 3) {
        put_tpcs({l[j], l[j + 1], l[j + 2]});
      }
    }
  } else {
    std::string all;
    for (const char* n : kLayouts) {
      all += std::string(all.empty() ? "" : ", ") + n;
    }
    for (const char* n : kOtherLayouts) {
      all += std::string(", ") + n;
    }
    throw_input_error("micro l2_pairs", "layout: expected one of {}, got '{}'", all, layout);
  }
  return g;
}

// `v[sm]` for sm in [lo, hi) as an expression of `sm`: a balanced tree of selects (an expression's
// evaluation stack is shallow), a constant where the range holds one value.
std::string sm_table(const std::vector<int64_t>& v, size_t lo, size_t hi) {
  if (std::all_of(v.begin() + static_cast<std::ptrdiff_t>(lo),
                  v.begin() + static_cast<std::ptrdiff_t>(hi),
                  [&](int64_t x) { return x == v[lo]; })) {
    return s(v[lo]);
  }
  const size_t mid = lo + (hi - lo) / 2;
  return fmt::format("(sm < {} ? {} : {})", mid, sm_table(v, lo, mid), sm_table(v, mid, hi));
}

}  // namespace

std::vector<MicroRow> pairs_points() {
  std::vector<MicroRow> out;
  const auto add = [&](const char* layout, int ctas, int slots, int skew) {
    out.push_back({{"layout", layout},
                   {"ctas_per_sm", s(ctas)},
                   {"slots", s(slots)},
                   {"skew_copies", s(skew)}});
  };
  for (const int slots : {8, 1}) {
    for (const char* layout : kLayouts) {
      add(layout, 1, slots, 0);
    }
  }
  for (const char* layout : {"sm", "tpc", "chip"}) {
    add(layout, 2, 3, 0);
  }
  for (const char* layout : {"tpc", "gpc"}) {
    for (const int skew : {1, 2, 4, 8}) {
      add(layout, 1, 8, skew);
    }
  }
  return out;
}

MicroRow pairs_simulate(const MicroRow& key, const GpuConfig& c, const MicroOptions& o) {
  const std::string& layout = key_str(key, "layout");
  const int ctas_per_sm = static_cast<int>(key_int(key, "ctas_per_sm"));
  const int slots = static_cast<int>(key_int(key, "slots"));
  const int64_t skew = key_int(key, "skew_copies");
  if (ctas_per_sm < 1 || ctas_per_sm > 8 || slots < 1 || slots > 12 || skew < 0 || skew > 64) {
    throw_input_error("micro l2_pairs",
                      "unsupported point ctas_per_sm={} slots={} skew_copies={} (1-8, 1-12, "
                      "0-64)",
                      ctas_per_sm, slots, skew);
  }
  if (c.sm.count % 2 != 0) {
    throw_input_error("micro l2_pairs", "needs whole TPCs: sm.count {} is odd", c.sm.count);
  }
  std::vector<int> group;
  const int groups = make_groups(layout, cluster_gpcs(c), group);
  const int sms = c.sm.count;
  // Where each SM starts in its group's tile sequence: the member of rank r (by SM id) `skew`
  // copies after rank r - 1.
  std::vector<int64_t> start(sms, -1);
  std::vector<int64_t> rank(groups, 0);
  int64_t active = 0;
  for (int i = 0; i < sms; ++i) {
    if (group[i] >= 0) {
      start[i] = group[i] + rank[group[i]]++ * skew * groups;
      ++active;
    }
  }
  Stream st;
  st.kind = CopyKind::kTile;
  st.pitch = 4096;
  st.tile_rows = 128;
  st.bytes = 128 * st.tile_rows;
  st.buffer = 16 * kMiB;
  st.slots = slots;
  st.ctas_per_sm = ctas_per_sm;
  st.start_expr = sm_table(start, 0, start.size());
  st.start_stride = groups;
  // Shared memory that lets exactly ctas_per_sm CTAs onto an SM (the .cu: 1 KB reserved per CTA
  // and 1 KB of its own besides the dynamic part).
  st.smem = std::max<int64_t>(
      int64_t{slots} * st.bytes + 8 * slots,
      std::min<int64_t>(c.sm.smem_per_cta_max, c.sm.smem_bytes / ctas_per_sm - 2048));
  // ~4 GiB delivered per launch (up to --max-bytes), after a warm-up launch that reads every
  // tile (the .cu's warm-up runs the same kernel for max(copies, T) copies; here every CTA
  // reads its share of the tiles once, as l2_hot's).
  int64_t target = 4096 * kMiB;
  if (o.max_bytes > 0) {
    target = std::min(target, static_cast<int64_t>(o.max_bytes));
  }
  st.copies = std::max<int64_t>(1, target / (active * ctas_per_sm * st.bytes));
  GpuConfig cc = c;
  cc.sm.kernel_launch_cycles = 0;
  const int64_t ctas = int64_t{sms} * ctas_per_sm;
  Stream warm = st;
  warm.start_expr.clear();
  warm.group = 1;
  warm.copies = (stream_units(st) + ctas - 1) / ctas;
  const program::Kernel wk = stream_kernel(cc, warm, "warmup");
  const program::Kernel k = stream_kernel(cc, st, "l2_pairs");
  const SimResult r = micro_sequence({&wk, &k}, cc).back();
  const double moved = static_cast<double>(active * ctas_per_sm * st.copies * st.bytes);
  const double merged =
      r.l2_read_bytes > 0 ? static_cast<double>(r.tma_bytes) / static_cast<double>(r.l2_read_bytes)
                          : 0;
  return {{"layout", layout},
          {"ctas_per_sm", s(ctas_per_sm)},
          {"slots", s(slots)},
          {"skew_copies", s(skew)},
          {"groups", s(groups)},
          {"sms_per_group", fmt::format("{:.2f}", static_cast<double>(active) / groups)},
          {"active_sms", s(active)},
          {"copies_per_cta", s(st.copies)},
          {"bytes_delivered", fmt::format("{:.0f}", moved)},
          {"delivered_over_l2", fmt::format("{:.2f}", merged)},
          {"median_us", fmt::format("{:.2f}", r.time_us)},
          {"median_gbps", fmt::format("{:.1f}", moved / r.time_us * 1e-3)},
          {"best_gbps", fmt::format("{:.1f}", moved / r.time_us * 1e-3)}};
}

}  // namespace asyncsim::cli::micro_detail
