#include "analytic/measured.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analytic/attention_model.h"
#include "analytic/gemm_model.h"
#include "analytic/params.h"
#include "util/error.h"

namespace asyncsim::analytic {
namespace {

constexpr double kMB = 1e6;

std::vector<std::string_view> split_csv_line(std::string_view line) {
  // The ground-truth CSVs hold numbers and plain names only: no quoting to handle.
  std::vector<std::string_view> cells;
  size_t pos = 0;
  while (true) {
    const size_t comma = line.find(',', pos);
    cells.push_back(line.substr(pos, comma == std::string_view::npos ? comma : comma - pos));
    if (comma == std::string_view::npos) {
      return cells;
    }
    pos = comma + 1;
  }
}

class RowReader {
 public:
  RowReader(const std::vector<std::string_view>& header, const std::vector<std::string_view>& cells,
            std::string where)
      : m_header(header), m_cells(cells), m_where(std::move(where)) {}

  std::string_view text(std::string_view column) const {
    for (size_t i = 0; i < m_header.size(); ++i) {
      if (m_header[i] == column) {
        if (i >= m_cells.size()) {
          break;
        }
        return m_cells[i];
      }
    }
    throw_input_error(m_where, "missing column '{}'", column);
  }
  int64_t integer(std::string_view column) const {
    return parse_int(text(column), m_where, column);
  }
  int small(std::string_view column) const { return static_cast<int>(integer(column)); }
  const std::string& where() const { return m_where; }

 private:
  const std::vector<std::string_view>& m_header;
  const std::vector<std::string_view>& m_cells;
  std::string m_where;
};

void read_shape(const RowReader& r, MeasuredRow& row) {
  if (row.is_gemm) {
    row.gemm.m = r.integer("M");
    row.gemm.n = r.integer("N");
    row.gemm.k = r.integer("K");
    row.gemm.block_m = r.small("BM");
    row.gemm.block_n = r.small("BN");
    row.gemm.block_k = r.small("BK");
    row.gemm.stages = r.small("stages");
    row.gemm.warps = r.small("warps");
    return;
  }
  AttentionShape& a = row.attention;
  a.batch = r.integer("B");
  a.heads = r.integer("H");
  a.kv_heads = r.integer("HKV");
  a.seq = r.integer("S");
  a.seq_kv = r.integer("SKV");
  a.head_dim = r.integer("D");
  a.block_m = r.small("BM");
  a.block_n = r.small("BN");
  a.stages = r.small("stages");
  a.warps = r.small("warps");
  a.causal = r.integer("causal") != 0;
}

double error_pct(double model, double measured) {
  return measured > 0 ? 100.0 * (model - measured) / measured : 0.0;
}

// A signed error cell; "n/a" where nothing was measured (small outputs stay dirty in L2 and
// never reach DRAM while Nsight Compute counts).
std::string error_cell(double model, double measured) {
  return measured > 0 ? fmt::format("{:+.1f}", error_pct(model, measured)) : std::string("n/a");
}

// Sums of |error| per (family, split, quantity) for the MAPE summary.
struct ErrorSums {
  std::map<std::string, std::pair<double, int>> sums;
  void add(const std::string& key, double err) {
    auto& [sum, count] = sums[key];
    sum += std::fabs(err);
    ++count;
  }
};

std::string shape_label(const MeasuredRow& r) {
  if (r.is_gemm) {
    return fmt::format("{}x{}x{}", r.gemm.m, r.gemm.n, r.gemm.k);
  }
  const AttentionShape& a = r.attention;
  return fmt::format("B{} H{} S{} D{}{}", a.batch, a.heads, a.seq, a.head_dim,
                     a.causal ? " causal" : "");
}

std::string sim_cells(const MeasuredRow& r, double wave) {
  if (r.sim_dram_read_bytes < 0) {
    return " - | - | - |";
  }
  const double sim = static_cast<double>(r.sim_dram_read_bytes);
  return fmt::format(" {:.2f} | {:+.1f} | {:+.1f} |", sim / kMB,
                     error_pct(sim, static_cast<double>(r.dram_read_bytes)), error_pct(sim, wave));
}

}  // namespace

std::vector<MeasuredRow> parse_measured_csv(std::string_view text, const std::string& file,
                                            int& skipped) {
  std::vector<MeasuredRow> rows;
  std::vector<std::string_view> header;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (line.empty() || line.front() == '#') {
      continue;
    }
    if (header.empty()) {
      header = split_csv_line(line);
      continue;
    }
    const std::vector<std::string_view> cells = split_csv_line(line);
    const RowReader r(header, cells, fmt::format("{}:{}", file, line_no));
    MeasuredRow row;
    row.kernel = std::string(r.text("kernel"));
    row.is_gemm = row.kernel == "gemm" || row.kernel == "gemm_ws";
    if (!row.is_gemm && row.kernel != "attention" && row.kernel != "attention_ws") {
      ++skipped;
      continue;
    }
    row.variant = std::string(r.text("variant"));
    row.split = std::string(r.text("split"));
    read_shape(r, row);
    row.dram_read_bytes = r.integer("dram_read_bytes");
    row.dram_write_bytes = r.integer("dram_write_bytes");
    row.l2_bytes = r.integer("l2_bytes");
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string measured_table(const std::vector<MeasuredRow>& rows, const GpuConfig& gpu) {
  const bool any_sim = std::any_of(rows.begin(), rows.end(),
                                   [](const MeasuredRow& r) { return r.sim_dram_read_bytes >= 0; });
  std::string out =
      "| kernel | variant | split | shape | DRAM rd meas MB | ideal MB | err % | wave MB | err % | "
      "DRAM wr meas MB | model MB | err % | L2 meas MB | model MB | err % | boxes err % |";
  out += any_sim ? " sim rd MB | sim err % | sim vs wave % |\n" : "\n";
  out += "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|";
  out += any_sim ? "--:|--:|--:|\n" : "\n";
  ErrorSums sums;
  for (const MeasuredRow& r : rows) {
    const Estimate e =
        r.is_gemm ? estimate_gemm(r.gemm, gpu) : estimate_attention(r.attention, gpu);
    const double rd = static_cast<double>(r.dram_read_bytes);
    const double wr = static_cast<double>(r.dram_write_bytes);
    const double l2 = static_cast<double>(r.l2_bytes);
    const double ideal = static_cast<double>(e.dram_read_bytes_ideal);
    const double wave = static_cast<double>(e.dram_read_bytes_wave);
    const double write = static_cast<double>(e.dram_write_bytes);
    const double l2m = static_cast<double>(e.l2_bytes());
    const double boxes = static_cast<double>(e.l2_bytes_boxes);
    out += fmt::format(
        "| {} | {} | {} | {}{} | {:.2f} | {:.2f} | {:+.1f} | {:.2f} | {:+.1f} | {:.2f} | {:.2f} | "
        "{} | {:.2f} | {:.2f} | {:+.1f} | {:+.1f} |",
        r.kernel, r.variant, r.split, shape_label(r), e.reuse_fits ? "" : " (wave)", rd / kMB,
        ideal / kMB, error_pct(ideal, rd), wave / kMB, error_pct(wave, rd), wr / kMB, write / kMB,
        error_cell(write, wr), l2 / kMB, l2m / kMB, error_pct(l2m, l2), error_pct(boxes, l2));
    out += any_sim ? sim_cells(r, wave) : "";
    out += "\n";
    const std::string family = r.is_gemm ? "gemm" : "attention";
    const std::string regime = family + (e.reuse_fits ? " fits L2 (Eq. 4)" : " exceeds L2 (Eq. 4)");
    for (const std::string& group : {family + " all", family + " " + r.split, regime}) {
      sums.add(group + "|dram read, ideal", error_pct(ideal, rd));
      sums.add(group + "|dram read, wave", error_pct(wave, rd));
      // Writes only where the output exceeds the L2: smaller outputs can stay dirty in L2 past
      // the end of the profiled kernel and are not counted as DRAM writes.
      if (e.dram_write_bytes >= gpu.mem.l2_bytes) {
        sums.add(group + "|dram total, ideal (GenZ-style), output > L2",
                 error_pct(ideal + write, rd + wr));
        sums.add(group + "|dram total, wave, output > L2", error_pct(wave + write, rd + wr));
        sums.add(group + "|dram write, output > L2", error_pct(write, wr));
      }
      sums.add(group + "|l2", error_pct(l2m, l2));
      if (r.sim_dram_read_bytes >= 0) {
        sums.add(group + "|dram read, simulator",
                 error_pct(static_cast<double>(r.sim_dram_read_bytes), rd));
      }
    }
  }
  out += "\n| rows | quantity | MAPE % | n |\n|---|---|--:|--:|\n";
  for (const auto& [key, value] : sums.sums) {
    const size_t bar = key.find('|');
    out += fmt::format("| {} | {} | {:.1f} | {} |\n", key.substr(0, bar), key.substr(bar + 1),
                       value.first / value.second, value.second);
  }
  return out;
}

}  // namespace asyncsim::analytic
