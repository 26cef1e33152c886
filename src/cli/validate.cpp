#include "cli/validate.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "sim/simulator.h"
#include "util/error.h"

namespace asyncsim::cli {

const std::string& MeasuredRow::get(const std::string& key) const {
  auto it = fields.find(key);
  if (it == fields.end()) {
    throw_input_error(format_location(file, line), "missing column '{}'", key);
  }
  return it->second;
}

int64_t MeasuredRow::integer(const std::string& key) const {
  const std::string& v = get(key);
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size() && d == std::floor(d)) {
      return static_cast<int64_t>(d);
    }
  } catch (const std::exception&) {
  }
  throw_input_error(format_location(file, line), "column '{}' should be an integer, got '{}'", key,
                    v);
}

double MeasuredRow::number(const std::string& key) const {
  const std::string& v = get(key);
  try {
    size_t used = 0;
    const double d = std::stod(v, &used);
    if (used == v.size() && std::isfinite(d)) {
      return d;
    }
  } catch (const std::exception&) {
  }
  throw_input_error(format_location(file, line), "column '{}' should be a number, got '{}'", key,
                    v);
}

static std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::vector<MeasuredRow> read_measured_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    throw_input_error(path, "cannot read the measurement CSV");
  }
  std::vector<std::string> header;
  std::vector<MeasuredRow> rows;
  std::string text;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.empty() || text[0] == '#') {
      continue;
    }
    const auto cells = split_csv(text);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      throw_input_error(format_location(path, line), "row has {} fields, the header names {}",
                        cells.size(), header.size());
    }
    MeasuredRow r;
    r.file = path;
    r.line = line;
    for (size_t i = 0; i < cells.size(); ++i) {
      r.fields[header[i]] = cells[i];
    }
    rows.push_back(std::move(r));
  }
  if (header.empty()) {
    throw_input_error(path, "no header line (expected the CSV's column names)");
  }
  return rows;
}

double RowResult::cycle_error_pct() const {
  return 100.0 * static_cast<double>(simulated_cycles - measured_cycles) /
         static_cast<double>(measured_cycles);
}

double RowResult::dram_error_pct() const {
  if (measured_dram_read <= 0) {
    return 0;
  }
  return 100.0 * (simulated_dram_read - measured_dram_read) / measured_dram_read;
}

Summary summarize(const std::vector<const RowResult*>& rows) {
  Summary s;
  for (const RowResult* r : rows) {
    if (!r->error.empty()) {
      continue;
    }
    ++s.rows;
    const double e = r->cycle_error_pct();
    const double d = r->dram_error_pct();
    s.mape += std::abs(e);
    s.bias += e;
    s.max_abs = std::max(s.max_abs, std::abs(e));
    s.within10 += std::abs(e) <= 10 ? 1 : 0;
    s.dram_mape += std::abs(d);
    s.dram_max_abs = std::max(s.dram_max_abs, std::abs(d));
    s.dram_within10 += std::abs(d) <= 10 ? 1 : 0;
  }
  if (s.rows > 0) {
    const auto n = static_cast<double>(s.rows);
    s.mape /= n;
    s.bias /= n;
    s.within10 /= n;
    s.dram_mape /= n;
    s.dram_within10 /= n;
  }
  return s;
}

static bool selected(const std::vector<std::string>& allowed, const std::string& v) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

// A value asked for by --split / --kernel that no row has is a typo, not an empty selection.
static void check_selected(const std::vector<MeasuredRow>& rows,
                           const std::vector<std::string>& wanted, const std::string& column,
                           const std::string& flag) {
  std::set<std::string> have;
  for (const auto& r : rows) {
    have.insert(r.get(column));
  }
  for (const auto& w : wanted) {
    if (have.count(w) == 0) {
      std::string list;
      for (const auto& h : have) {
        list += (list.empty() ? "" : ", ") + h;
      }
      throw_input_error(flag, "no row of the files has {} '{}' (they have: {})", column, w, list);
    }
  }
}

std::vector<RowResult> validate_rows(const std::vector<MeasuredRow>& rows,
                                     const ValidateOptions& options, const RowBuilder& build) {
  check_selected(rows, options.splits, "split", "--split");
  check_selected(rows, options.kernels, "kernel", "--kernel");
  std::vector<const MeasuredRow*> todo;
  for (const auto& r : rows) {
    if (selected(options.splits, r.get("split")) && selected(options.kernels, r.get("kernel"))) {
      todo.push_back(&r);
    }
  }
  const GpuConfig base = load_gpu_config(options.gpu, options.sets);
  std::vector<RowResult> results(todo.size());
  std::atomic<size_t> next{0};
  auto work = [&]() {
    for (size_t i = next++; i < todo.size(); i = next++) {
      const MeasuredRow& row = *todo[i];
      RowResult& out = results[i];
      out.family = row.get("kernel");
      out.variant = row.get("variant");
      out.split = row.get("split");
      out.measured_cycles = row.integer("cycles");
      out.sm_clock_mhz = row.number("sm_clock_mhz");
      out.measured_dram_read = row.number("dram_read_bytes");
      try {
        GpuConfig cfg = base;
        apply_override(cfg, "sm.clock_mhz", fmt::format("{}", out.sm_clock_mhz),
                       format_location(row.file, row.line));
        program::Kernel kernel;
        std::string why;
        if (!build(row, cfg, kernel, out.shape, why)) {
          out.error = why;
          continue;
        }
        const SimResult r = simulate(kernel, cfg);
        out.simulated_cycles = r.cycles;
        out.simulated_dram_read = static_cast<double>(r.dram_read_bytes);
      } catch (const std::exception& e) {
        out.error = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  const int jobs = std::max(1, options.jobs);
  for (int j = 0; j < jobs; ++j) {
    pool.emplace_back(work);
  }
  for (auto& t : pool) {
    t.join();
  }
  return results;
}

}  // namespace asyncsim::cli
