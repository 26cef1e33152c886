#include "cli/output.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "program/writer.h"
#include "stats/timeline.h"
#include "util/error.h"

namespace asyncsim::cli {

void write_file(const std::string& path, const std::string& text, const std::string& flag) {
  std::ofstream f(path);
  if (!f) {
    throw_input_error(flag + " " + path, "cannot open the file for writing");
  }
  f << text;
}

void add_common_options(CLI::App& cmd, CommonOptions& o) {
  cmd.add_option("--gpu", o.gpu, "GPU config: a built-in name (h200, h100, h800) or a YAML file")
      ->capture_default_str();
  cmd.add_option("--sm-clock-mhz", o.sm_clock_mhz,
                 "SM clock for this run (other clock domains keep their rates)");
  cmd.add_option("--set", o.sets, "override a config parameter: key=value (repeatable)");
  cmd.add_flag("--json", o.json, "print one JSON object instead of the summary");
  cmd.add_option("--stats", o.stats_file, "write every counter, by component path, as JSON");
  cmd.add_option("--emit", o.emit_file,
                 "write the simulated program as .asim text (docs/program-format.md) to this file");
  cmd.add_option("--timeline", o.timeline_file,
                 "write a Chrome-trace timeline (opens in Perfetto)");
  cmd.add_option("--cta-log", o.cta_log_file,
                 "write where and when each CTA ran (CSV: cta, sm, start and end cycle)");
  cmd.add_option("--timeline-max-events", o.timeline_max_events,
                 "cap on timeline slices (later ones are dropped with a warning)")
      ->check(non_negative())
      ->capture_default_str();
  cmd.add_option("--timeline-sample-ns", o.timeline_sample_ns,
                 "interval of the timeline's DRAM and L2 GB/s counter tracks")
      ->capture_default_str();
  cmd.add_option("--max-cycles", o.max_cycles, "stop with an error past this many cycles")
      ->capture_default_str();
}

GpuConfig load_config(const CommonOptions& o) {
  GpuConfig c = load_gpu_config(o.gpu, o.sets);
  if (o.sm_clock_mhz) {
    apply_override(c, "sm.clock_mhz", fmt::format("{}", *o.sm_clock_mhz), "--sm-clock-mhz");
  }
  return c;
}

namespace {

std::string human_bytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000 && u < 4) {
    b /= 1000;
    ++u;
  }
  return fmt::format("{:.2f} {}", b, units[u]);
}

// A counter of the result (0 when the run did not produce it).
double counter(const SimResult& r, const std::string& key) {
  const auto it = r.counters.find(key);
  return it == r.counters.end() ? 0.0 : it->second;
}

// l2.slice[i].<field> summed over the slices.
double slice_sum(const SimResult& r, const std::string& field) {
  double sum = 0;
  const std::string pre = "l2.slice[";
  const std::string suf = "]." + field;
  for (auto it = r.counters.lower_bound(pre); it != r.counters.end(); ++it) {
    const std::string& key = it->first;
    if (key.rfind(pre, 0) != 0) {
      break;
    }
    if (key.size() > suf.size() && key.compare(key.size() - suf.size(), suf.size(), suf) == 0) {
      sum += it->second;
    }
  }
  return sum;
}

double percent(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

// A count as printed: in millions from 10^5 on.
std::string count(double n) {
  return n >= 1e5 ? fmt::format("{:.2f} M", n * 1e-6) : fmt::format("{:.0f}", n);
}

// What the L2's reads met (docs/memory.md, "What a run reports"): the request coalescer, the near
// copies, hits and misses by sector, fills in flight and MSHRs, the far partition.
void print_l2_breakdown(const SimResult& r) {
  const double reads = counter(r, "mem.read_requests");
  const double merged = counter(r, "mem.coalescer_merges");
  const double reached = counter(r, "mem.requests") - merged;  // reads and writes at a slice
  const double hits = slice_sum(r, "read_hits");
  const double misses = slice_sum(r, "read_misses");
  if (reads > 0) {
    std::printf(
        "    read requests      %s: %.1f %% merged in the request coalescer, %.1f %% "
        "served by a near copy\n",
        count(reads).c_str(), percent(merged, reads), percent(slice_sum(r, "copy_hits"), reads));
    std::printf(
        "    read sectors       %.1f %% hit, %.1f %% missed to DRAM; line reads waiting "
        "on a fill in flight %s, on an MSHR %s\n",
        percent(hits, hits + misses), percent(misses, hits + misses),
        count(slice_sum(r, "mshr_merges")).c_str(), count(slice_sum(r, "mshr_stalls")).c_str());
  }
  if (reached > 0) {
    std::printf("    far partition      %.1f %% of the requests that reached a slice\n",
                percent(slice_sum(r, "far_accesses"), reached));
  }
  // Where a read's time went (mem.read_latency.*, ReadLatency): the mean per read that reached
  // a slice, by part, and the mean wait of a read merged in a request coalescer.
  const double at_slice = counter(r, "mem.read_latency.reads");
  if (at_slice > 0) {
    const auto mean = [&](const char* part) {
      return counter(r, fmt::format("mem.read_latency.{}_cycles", part)) / at_slice;
    };
    std::printf(
        "    read latency       %.0f cycles a read at a slice: path %.0f, slice queue %.0f, "
        "MSHR %.0f, DRAM %.0f, fill in flight %.0f, ports %.0f / %.0f / %.0f (slice / GPC / "
        "SM)\n",
        mean("fixed") + mean("slice_queue") + mean("mshr") + mean("dram") + mean("fill") +
            mean("slice_port") + mean("gpc_port") + mean("sm_port"),
        mean("fixed"), mean("slice_queue"), mean("mshr"), mean("dram"), mean("fill"),
        mean("slice_port"), mean("gpc_port"), mean("sm_port"));
  }
  if (merged > 0) {
    std::printf("    merged reads       wait %.0f cycles for their leader's data\n",
                counter(r, "mem.read_latency.merged_wait_cycles") / merged);
  }
}

// The DRAM's row buffers (dram.model=hbm only).
void print_dram_rows(const SimResult& r) {
  const double row_hits = counter(r, "dram.row_hits");
  const double row_opens = counter(r, "dram.row_misses") + counter(r, "dram.row_conflicts");
  if (row_hits + row_opens > 0) {
    std::printf("    row buffers        %.1f %% of accesses hit an open row, %s activates\n",
                percent(row_hits, row_hits + row_opens),
                count(counter(r, "dram.activates")).c_str());
  }
}

void print_summary(const SimResult& r, const GpuConfig& c, const std::string& title,
                   double host_seconds) {
  std::printf("asyncsim %s on %s (SM clock %.0f MHz)\n", title.c_str(), c.name.c_str(),
              r.sm_clock_mhz);
  std::printf("  simulated cycles     %lld\n", static_cast<long long>(r.cycles));
  std::printf("  time                 %.2f us\n", r.time_us);
  std::printf("  achieved             %.1f TFLOP/s (%.3g FLOP)\n", r.tflops, r.flops);
  std::printf("  CTAs                 %lld\n", static_cast<long long>(r.ctas));
  std::printf("  tensor cores active  %.1f %%\n", 100 * r.tensor_active_fraction);
  std::printf("  TMA generators busy  %.1f %%  (%s moved)\n", 100 * r.tma_utilization,
              human_bytes(static_cast<double>(r.tma_bytes)).c_str());
  if (r.lsu_bytes > 0) {
    std::printf("  load/store unit      %s moved (LD_GLOBAL / ST_GLOBAL)\n",
                human_bytes(static_cast<double>(r.lsu_bytes)).c_str());
  }
  std::printf("  DRAM                 read %s, write %s, %.1f %% of %.0f GB/s\n",
              human_bytes(static_cast<double>(r.dram_read_bytes)).c_str(),
              human_bytes(static_cast<double>(r.dram_write_bytes)).c_str(),
              100 * r.dram_utilization, c.mem.dram_bandwidth_gbs);
  print_dram_rows(r);
  // DRAM traffic by tensor (the kernel's tensor maps; "other": bulk copies outside them).
  for (const auto& [key, value] : r.counters) {
    const std::string pre = "dram.tensor[";
    const std::string suf = "].read_bytes";
    if (key.rfind(pre, 0) != 0 || key.size() < pre.size() + suf.size() ||
        key.compare(key.size() - suf.size(), suf.size(), suf) != 0) {
      continue;
    }
    const std::string name = key.substr(pre.size(), key.size() - pre.size() - suf.size());
    const double written = r.counters.at(pre + name + "].write_bytes");
    if (value > 0 || written > 0) {
      std::printf("    %-18s read %s, write %s\n", name.c_str(), human_bytes(value).c_str(),
                  human_bytes(written).c_str());
    }
  }
  std::printf("  L2                   read %s, write %s\n",
              human_bytes(static_cast<double>(r.l2_read_bytes)).c_str(),
              human_bytes(static_cast<double>(r.l2_write_bytes)).c_str());
  print_l2_breakdown(r);
  std::printf("\nwhere each role's warpgroup-cycles went (summed over its warpgroups):\n");
  for (const auto& [role, cats] : r.stall_cycles) {
    int64_t total = 0;
    for (const auto& [cat, v] : cats) {
      total += v;
    }
    std::printf("  %-10s %14lld wg-cycles\n", role.c_str(), static_cast<long long>(total));
    for (const auto& [cat, v] : cats) {
      if (v > 0) {
        std::printf("    %-20s %6.1f %%\n", cat.c_str(),
                    total > 0 ? 100.0 * static_cast<double>(v) / static_cast<double>(total) : 0.0);
      }
    }
  }
  if (host_seconds >= 0) {  // a sequence reports its host time once, after the last kernel
    std::printf("\nsimulated in %.2f s (%.2f M cycles/s, %.2f M events)\n", host_seconds,
                static_cast<double>(r.cycles) / std::max(host_seconds, 1e-9) * 1e-6,
                static_cast<double>(r.events) * 1e-6);
  }
}

}  // namespace

int simulate_and_report(const program::Kernel& kernel, const GpuConfig& config,
                        const CommonOptions& o, const std::string& title) {
  return simulate_and_report(std::vector<const program::Kernel*>{&kernel}, config, o, {title});
}

int simulate_and_report(const std::vector<const program::Kernel*>& kernels, const GpuConfig& config,
                        const CommonOptions& o, const std::vector<std::string>& titles) {
  const bool one = kernels.size() == 1;
  if (!o.emit_file.empty()) {
    if (!one) {
      throw_input_error("--emit", "writes one program; {} were given", kernels.size());
    }
    write_file(o.emit_file, program::write_program(*kernels[0]), "--emit");
  }
  std::unique_ptr<Timeline> timeline;
  if (!o.timeline_file.empty()) {
    timeline = std::make_unique<Timeline>(ClockDomain::from_mhz(config.sm.clock_mhz).period_ps,
                                          o.timeline_max_events);
  }
  RunOptions ro;
  ro.max_cycles = o.max_cycles;
  ro.counter_sample_ns = o.timeline_sample_ns;
  ro.record_ctas = !o.cta_log_file.empty();
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<SimResult> rs =
      one ? std::vector<SimResult>{simulate(*kernels[0], config, ro, timeline.get())}
          : simulate_sequence(kernels, config, ro, timeline.get());
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!o.stats_file.empty()) {
    nlohmann::json stats = nlohmann::json::array();
    for (const SimResult& r : rs) {
      stats.push_back(r.to_stats_json());
    }
    write_file(o.stats_file, (one ? stats[0] : stats).dump(1) + "\n", "--stats");
    write_file(o.stats_file + ".config.yaml", resolved_config_yaml(config), "--stats");
  }
  if (ro.record_ctas) {
    // Several kernels: a kernel column (0, 1, ... in the order run); cycles from each launch.
    std::string csv = fmt::format(
        "# {}: cycles at {} MHz from the launch; start = first instruction may issue, end = last "
        "warpgroup exits\n{}cta,sm,start_cycle,end_cycle\n",
        fmt::join(titles, "; "), rs[0].sm_clock_mhz, one ? "" : "kernel,");
    for (size_t k = 0; k < rs.size(); ++k) {
      for (const CtaRecord& c : rs[k].cta_records) {
        csv += fmt::format("{}{},{},{:.1f},{:.1f}\n", one ? "" : fmt::format("{},", k), c.cta, c.sm,
                           c.start_cycle, c.end_cycle);
      }
    }
    write_file(o.cta_log_file, csv, "--cta-log");
  }
  if (timeline) {
    timeline->write(o.timeline_file);
    write_file(o.timeline_file + ".config.yaml", resolved_config_yaml(config), "--timeline");
    if (timeline->dropped() > 0) {
      std::fprintf(stderr,
                   "asyncsim: timeline kept the first %zu slices and dropped %zu "
                   "(raise --timeline-max-events)\n",
                   timeline->size(), timeline->dropped());
    }
  }
  if (o.json) {
    nlohmann::json all = nlohmann::json::array();
    for (const SimResult& r : rs) {
      all.push_back(r.to_json());
    }
    std::printf("%s\n", (one ? all[0] : all).dump().c_str());
    return 0;
  }
  if (one) {
    print_summary(rs[0], config, titles[0], host);
    return 0;
  }
  int64_t cycles = 0;
  uint64_t events = 0;
  for (size_t k = 0; k < rs.size(); ++k) {
    print_summary(
        rs[k], config,
        fmt::format("{} (kernel {} of {}, memory carried over)", titles[k], k + 1, rs.size()), -1);
    std::printf("\n");
    cycles += rs[k].cycles;
    events += rs[k].events;
  }
  std::printf("simulated %zu kernels in %.2f s (%.2f M cycles/s, %.2f M events)\n", rs.size(), host,
              static_cast<double>(cycles) / std::max(host, 1e-9) * 1e-6,
              static_cast<double>(events) * 1e-6);
  return 0;
}

}  // namespace asyncsim::cli
