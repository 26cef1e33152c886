// asyncsim micro NAME: runs a microbenchmark that mirrors one of validation/hw/micro/ and prints
// the columns of its hardware CSV; with --compare, runs the points of a measured CSV and prints
// measured vs simulated per point and a summary.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/micro.h"
#include "cli/micro_detail.h"
#include "cli/output.h"
#include "cli/validate.h"
#include "util/error.h"

namespace asyncsim::cli {
namespace {

struct MicroCmd {
  std::string name;
  std::string gpu = "h200";
  std::vector<std::string> sets;
  std::optional<double> sm_clock_mhz;  // unset: keep the config's
  std::string compare;
  std::string metric;  // --metric COLUMN: the column compared instead of the micro's own
  std::vector<std::string> where;
  MicroOptions options;
  int jobs = 1;
  double tolerance_pct = 10;
  std::string emit;   // --emit DIR: write each point's kernels as .asim programs
  std::string stats;  // --stats FILE: every simulated kernel's counters, by point
};

// The file stem and the description of one point (or run of points) for --emit.
std::pair<std::string, std::string> point_name(const std::string& bench, const MicroRow& key) {
  std::string stem = bench;
  std::string what = "asyncsim micro " + bench + " point";
  for (const auto& [k, v] : key) {
    if (v.empty()) {
      continue;
    }
    std::string safe;
    for (const char ch : v) {
      safe += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '_';
    }
    stem += "_" + safe;
    what += fmt::format(" {}={}", k, v);
  }
  return {stem, what};
}

// Simulates one point (or run of points) with its kernels written under --emit and their
// results kept in `*results` (for --stats; nullptr: not kept).
template <typename F>
auto with_capture(const MicroCmd& o, const std::string& bench, const MicroRow& key,
                  std::vector<SimResult>* results, const F& f) {
  if (!o.emit.empty()) {
    const auto [stem, what] = point_name(bench, key);
    micro_detail::set_emit_target(o.emit, stem, what);
  }
  micro_detail::set_stats_sink(results);
  struct Reset {
    ~Reset() {
      micro_detail::set_emit_target("", "", "");
      micro_detail::set_stats_sink(nullptr);
    }
  } reset;
  return f();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep)) {
    out.push_back(item);
  }
  return out;
}

// --where COLUMN=V1,V2: keeps the points whose COLUMN is one of the values.
bool selected(const MicroRow& row, const std::vector<std::string>& where) {
  for (const std::string& w : where) {
    const size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw_input_error("--where " + w, "expected COLUMN=VALUE[,VALUE...]");
    }
    const std::string col = w.substr(0, eq);
    const auto it = row.find(col);
    if (it == row.end()) {
      throw_input_error("--where " + w, "the benchmark has no column '{}'", col);
    }
    bool any = false;
    for (const std::string& v : split(w.substr(eq + 1), ',')) {
      any = any || v == it->second;
    }
    if (!any) {
      return false;
    }
  }
  return true;
}

// Runs task(i) for i in [0, n) on `jobs` threads; rethrows the first error as an InputError.
template <typename Task>
void parallel_for(size_t n, int jobs, const Task& task) {
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  const auto work = [&]() {
    for (size_t i = next++; i < n; i = next++) {
      try {
        task(i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, jobs); ++j) {
    pool.emplace_back(work);
  }
  for (auto& t : pool) {
    t.join();
  }
  for (const std::string& e : errors) {
    if (!e.empty()) {
      throw InputError("", e);
    }
  }
}

MicroRow project(const MicroRow& row, const std::vector<std::string>& cols) {
  MicroRow out;
  for (const std::string& c : cols) {
    const auto it = row.find(c);
    if (it == row.end()) {
      throw_input_error("micro", "the point has no column '{}'", c);
    }
    out[c] = it->second;
  }
  return out;
}

// What --stats writes: each point (or run of points) simulated, with every kernel's results in
// the order they ran.
struct Captured {
  std::vector<MicroRow> points;
  std::vector<std::vector<SimResult>> kernels;
};

// Simulates every key in parallel (each point, or each run of points, is an independent,
// deterministic simulation).
std::vector<MicroRow> run_points(const MicroBench& b, const std::vector<MicroRow>& keys,
                                 const GpuConfig& c, const MicroCmd& o, Captured& cap) {
  std::vector<MicroRow> out(keys.size());
  const auto sink = [&](size_t i) { return o.stats.empty() ? nullptr : &cap.kernels[i]; };
  if (b.simulate_run == nullptr) {
    cap.points = keys;
    cap.kernels.resize(keys.size());
    parallel_for(keys.size(), o.jobs, [&](size_t i) {
      out[i] = with_capture(o, b.name, keys[i], sink(i),
                            [&] { return b.simulate(keys[i], c, o.options); });
    });
    return out;
  }
  std::vector<MicroRow> runs;
  std::vector<size_t> run_of(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const MicroRow r = project(keys[i], b.run_keys);
    run_of[i] = static_cast<size_t>(std::find(runs.begin(), runs.end(), r) - runs.begin());
    if (run_of[i] == runs.size()) {
      runs.push_back(r);
    }
  }
  std::vector<std::vector<MicroRow>> rows(runs.size());
  cap.points = runs;
  cap.kernels.resize(runs.size());
  parallel_for(runs.size(), o.jobs, [&](size_t i) {
    rows[i] = with_capture(o, b.name, runs[i], sink(i),
                           [&] { return b.simulate_run(runs[i], c, o.options); });
  });
  for (size_t i = 0; i < keys.size(); ++i) {
    const MicroRow want = project(keys[i], b.keys);
    const std::vector<MicroRow>& got = rows[run_of[i]];
    const auto it = std::find_if(got.begin(), got.end(),
                                 [&](const MicroRow& r) { return project(r, b.keys) == want; });
    if (it == got.end()) {
      std::string id;
      for (const auto& [k, v] : want) {
        id += fmt::format("{}{}={}", id.empty() ? "" : " ", k, v);
      }
      throw_input_error("micro " + b.name, "no such point: {}", id);
    }
    out[i] = *it;
  }
  return out;
}

// --stats FILE: {"micro", "gpu", "points": [{"point": {column: value}, "kernels": [each
// kernel's --stats object, in the order simulated]}]}, the resolved config beside it.
void write_stats(const MicroCmd& o, const MicroBench& b, const GpuConfig& c, const Captured& cap) {
  nlohmann::json j;
  j["micro"] = b.name;
  j["gpu"] = c.name;
  j["points"] = nlohmann::json::array();
  for (size_t i = 0; i < cap.points.size(); ++i) {
    nlohmann::json point;
    point["point"] = cap.points[i];
    point["kernels"] = nlohmann::json::array();
    for (const SimResult& r : cap.kernels[i]) {
      point["kernels"].push_back(r.to_stats_json());
    }
    j["points"].push_back(std::move(point));
  }
  write_file(o.stats, j.dump(1) + "\n", "--stats");
  write_file(o.stats + ".config.yaml", resolved_config_yaml(c), "--stats");
}

void print_row(const std::vector<std::string>& cols, const MicroRow& r) {
  std::string line;
  for (const std::string& c : cols) {
    const auto it = r.find(c);
    line += (line.empty() ? "" : ",") + (it == r.end() ? std::string() : it->second);
  }
  std::printf("%s\n", line.c_str());
}

int run_micro(const MicroCmd& o) {
  MicroBench b = find_micro(o.name, "micro");
  if (!o.metric.empty()) {
    if (o.compare.empty()) {
      throw_input_error("--metric " + o.metric, "needs --compare (it names the column compared)");
    }
    const bool key = std::find(b.keys.begin(), b.keys.end(), o.metric) != b.keys.end();
    if (key || std::find(b.columns.begin(), b.columns.end(), o.metric) == b.columns.end()) {
      std::vector<std::string> allowed;
      for (const std::string& col : b.columns) {
        if (std::find(b.keys.begin(), b.keys.end(), col) == b.keys.end()) {
          allowed.push_back(col);
        }
      }
      throw_input_error("--metric " + o.metric, "{} has no measured column '{}' (one of: {})",
                        b.name, o.metric, fmt::join(allowed, ", "));
    }
    b.metric = o.metric;
  }
  GpuConfig c = load_gpu_config(o.gpu, o.sets);
  if (o.sm_clock_mhz) {
    apply_override(c, "sm.clock_mhz", fmt::format("{}", *o.sm_clock_mhz), "--sm-clock-mhz");
  }
  if (!o.emit.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.emit, ec);
    if (ec || !std::filesystem::is_directory(o.emit)) {
      throw_input_error("--emit " + o.emit, "cannot create the directory: {}", ec.message());
    }
  }
  std::vector<MicroRow> keys;
  std::vector<MicroRow> measured;
  if (!o.compare.empty()) {
    for (const MeasuredRow& m : read_measured_csv(o.compare)) {
      bool other_table = false;
      for (const auto& [col, value] : b.only) {
        other_table = other_table || !m.has(col) || m.get(col) != value;
      }
      if (other_table) {
        continue;
      }
      MicroRow key;
      for (const std::string& k : b.keys) {
        if (!m.has(k)) {
          throw_input_error(format_location(m.file, m.line), "no column '{}' ({} expects {})", k,
                            b.name, fmt::join(b.keys, ", "));
        }
        key[k] = m.get(k);
      }
      for (const std::string& col : {b.metric, b.error_scale}) {
        if (!col.empty() && !m.has(col)) {
          throw_input_error(format_location(m.file, m.line), "no column '{}'", col);
        }
      }
      if (selected(m.fields, o.where)) {
        keys.push_back(key);
        measured.push_back(m.fields);
      }
    }
  } else {
    for (const MicroRow& k : b.points()) {
      if (selected(k, o.where)) {
        keys.push_back(k);
      }
    }
  }
  if (keys.empty()) {
    throw_input_error("--where", "no point of {} is selected", b.name);
  }
  Captured cap;
  const std::vector<MicroRow> sim = run_points(b, keys, c, o, cap);
  if (!o.stats.empty()) {
    write_stats(o, b, c, cap);
  }
  std::printf("# asyncsim micro %s on %s (SM clock %.0f MHz)\n", b.name.c_str(), c.name.c_str(),
              c.sm.clock_mhz);
  std::printf("# method: %s\n", b.method.c_str());
  if (o.compare.empty()) {
    std::printf("%s\n", fmt::format("{}", fmt::join(b.columns, ",")).c_str());
    for (const MicroRow& r : sim) {
      print_row(b.columns, r);
    }
    return 0;
  }
  std::printf("# compared with %s on %s; error = (simulated - measured) / %s\n", o.compare.c_str(),
              b.metric.c_str(), b.error_scale.empty() ? "measured" : b.error_scale.c_str());
  std::printf("%s,measured_%s,simulated_%s,error_pct,within_%g_pct\n",
              fmt::format("{}", fmt::join(b.keys, ",")).c_str(), b.metric.c_str(), b.metric.c_str(),
              o.tolerance_pct);
  double sum_abs = 0;
  double max_abs = 0;
  int within = 0;
  for (size_t i = 0; i < sim.size(); ++i) {
    const double m = std::stod(measured[i].at(b.metric));
    const double s = std::stod(sim[i].at(b.metric));
    const double scale = b.error_scale.empty() ? m : std::stod(measured[i].at(b.error_scale));
    const double err = scale != 0 ? 100 * (s - m) / scale : 0;
    sum_abs += std::fabs(err);
    max_abs = std::max(max_abs, std::fabs(err));
    const bool ok = std::fabs(err) <= o.tolerance_pct;
    within += ok ? 1 : 0;
    std::string line;
    for (const std::string& k : b.keys) {
      line += keys[i].at(k) + ",";
    }
    std::printf("%s%s,%s,%+.1f,%s\n", line.c_str(), measured[i].at(b.metric).c_str(),
                sim[i].at(b.metric).c_str(), err, ok ? "yes" : "no");
  }
  std::printf("# summary: %zu points, %d within %g %%, MAPE %.1f %%, max |error| %.1f %%\n",
              sim.size(), within, o.tolerance_pct, sum_abs / static_cast<double>(sim.size()),
              max_abs);
  return 0;
}

}  // namespace

void add_micro_command(CLI::App& app) {
  auto o = std::make_shared<MicroCmd>();
  std::string names;
  for (const MicroBench& b : micro_benches()) {
    names += (names.empty() ? "" : ", ") + b.name;
  }
  CLI::App* cmd = app.add_subcommand(
      "micro", "run a microbenchmark mirroring validation/hw/micro/ (" + names +
                   ") and print the hardware CSV's columns, or compare with a measured CSV");
  cmd->add_option("name", o->name, "microbenchmark: " + names)->required();
  cmd->add_option("--gpu", o->gpu, "GPU config: a built-in name or a YAML file")
      ->capture_default_str();
  cmd->add_option("--set", o->sets, "override a config parameter: key=value (repeatable)");
  cmd->add_option("--sm-clock-mhz", o->sm_clock_mhz, "SM clock for this run");
  cmd->add_option("--compare", o->compare,
                  "a measured CSV (validation/data/h200/micro_NAME.csv): simulate its points and "
                  "print measured vs simulated with the error of each");
  cmd->add_option("--metric", o->metric,
                  "with --compare: the column compared (default: the micro's own, e.g. "
                  "median_cycles; mean_cycles, p10_cycles ... where both sides have it)");
  cmd->add_option("--where", o->where,
                  "only points with COLUMN=V1[,V2...] (repeatable; all must match)");
  cmd->add_option("--max-bytes", o->options.max_bytes,
                  "bytes a streaming point moves at most (0: the hardware's full amount)")
      ->check(non_negative())
      ->capture_default_str();
  cmd->add_option("--tolerance", o->tolerance_pct, "per-point error counted as a match, %")
      ->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "points simulated in parallel")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--emit", o->emit,
                  "also write each simulated point's kernels as .asim programs into this "
                  "directory (STEM.N.asim; select points with --where)");
  cmd->add_option("--stats", o->stats,
                  "write every simulated kernel's counters (as run --stats does), by point, as "
                  "JSON (select points with --where)");
  cmd->callback([o]() { set_exit_code(run_micro(*o)); });
}

}  // namespace asyncsim::cli
