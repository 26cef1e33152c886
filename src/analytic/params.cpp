#include "analytic/params.h"

#include <algorithm>
#include <charconv>

#include "util/error.h"

namespace asyncsim::analytic {
namespace {

// Maximum sweep length; a longer range is almost surely a typo in STEP.
constexpr int64_t kMaxSweepPoints = 100000;

int parse_small(std::string_view text, const std::string& where, std::string_view what) {
  const int64_t v = parse_int(text, where, what);
  if (v > (int64_t{1} << 30)) {
    throw_input_error(where, "{} is too large: {}", what, v);
  }
  return static_cast<int>(v);
}

bool parse_bool(std::string_view text, const std::string& where, std::string_view what) {
  if (text == "1" || text == "true") {
    return true;
  }
  if (text == "0" || text == "false") {
    return false;
  }
  throw_input_error(where, "{} must be 0/1/true/false, got '{}'", what, text);
}

}  // namespace

int64_t parse_int(std::string_view text, const std::string& where, std::string_view what) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw_input_error(where, "{} must be an integer, got '{}'", what, text);
  }
  return v;
}

void set_tile(GemmShape& s, std::string_view text, const std::string& where) {
  const size_t x1 = text.find('x');
  const size_t x2 = x1 == std::string_view::npos ? x1 : text.find('x', x1 + 1);
  if (x2 == std::string_view::npos) {
    throw_input_error(where, "tile must look like BMxBNxBK (e.g. 128x128x64), got '{}'", text);
  }
  s.block_m = parse_small(text.substr(0, x1), where, "tile BM");
  s.block_n = parse_small(text.substr(x1 + 1, x2 - x1 - 1), where, "tile BN");
  s.block_k = parse_small(text.substr(x2 + 1), where, "tile BK");
}

void set_param(GemmShape& s, std::string_view name, std::string_view value,
               const std::string& where) {
  if (name == "m") {
    s.m = parse_int(value, where, name);
  } else if (name == "n") {
    s.n = parse_int(value, where, name);
  } else if (name == "k") {
    s.k = parse_int(value, where, name);
  } else if (name == "tile") {
    set_tile(s, value, where);
  } else if (name == "stages") {
    s.stages = parse_small(value, where, name);
  } else if (name == "warps") {
    s.warps = parse_small(value, where, name);
  } else if (name == "regs") {
    s.regs_per_thread = parse_small(value, where, name);
  } else {
    throw_input_error(where,
                      "unknown gemm parameter '{}' (expected m, n, k, tile, stages, "
                      "warps, regs or a config key)",
                      name);
  }
}

void set_param(AttentionShape& s, std::string_view name, std::string_view value,
               const std::string& where) {
  if (name == "batch") {
    s.batch = parse_int(value, where, name);
  } else if (name == "heads") {
    s.heads = parse_int(value, where, name);
  } else if (name == "kv-heads") {
    s.kv_heads = parse_int(value, where, name);
  } else if (name == "seq") {
    s.seq = parse_int(value, where, name);
  } else if (name == "seq-kv") {
    s.seq_kv = parse_int(value, where, name);
  } else if (name == "head-dim") {
    s.head_dim = parse_int(value, where, name);
  } else if (name == "block-m") {
    s.block_m = parse_small(value, where, name);
  } else if (name == "block-n") {
    s.block_n = parse_small(value, where, name);
  } else if (name == "stages") {
    s.stages = parse_small(value, where, name);
  } else if (name == "warps") {
    s.warps = parse_small(value, where, name);
  } else if (name == "regs") {
    s.regs_per_thread = parse_small(value, where, name);
  } else if (name == "causal") {
    s.causal = parse_bool(value, where, name);
  } else {
    throw_input_error(where,
                      "unknown attention parameter '{}' (expected batch, heads, kv-heads, "
                      "seq, seq-kv, head-dim, block-m, block-n, stages, warps, regs, causal or a "
                      "config key)",
                      name);
  }
}

SweepSpec parse_sweep(std::string_view text, const std::string& where) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    throw_input_error(where, "expected PARAM=START:STOP:STEP or PARAM=v1,v2,..., got '{}'", text);
  }
  SweepSpec sweep{std::string(text.substr(0, eq)), {}};
  const std::string_view rhs = text.substr(eq + 1);
  const size_t c1 = rhs.find(':');
  if (c1 != std::string_view::npos) {
    const size_t c2 = rhs.find(':', c1 + 1);
    if (c2 == std::string_view::npos) {
      throw_input_error(where, "range must be START:STOP:STEP, got '{}'", rhs);
    }
    const int64_t start = parse_int(rhs.substr(0, c1), where, "sweep START");
    const int64_t stop = parse_int(rhs.substr(c1 + 1, c2 - c1 - 1), where, "sweep STOP");
    const int64_t step = parse_int(rhs.substr(c2 + 1), where, "sweep STEP");
    if (step <= 0 || stop < start || (stop - start) / step >= kMaxSweepPoints) {
      throw_input_error(where, "range {}:{}:{} needs STEP > 0, STOP >= START and at most {} points",
                        start, stop, step, kMaxSweepPoints);
    }
    for (int64_t v = start; v <= stop; v += step) {
      sweep.values.push_back(std::to_string(v));
    }
    return sweep;
  }
  size_t pos = 0;
  while (pos <= rhs.size()) {
    const size_t comma = std::min(rhs.find(',', pos), rhs.size());
    if (comma == pos) {
      throw_input_error(where, "empty value in sweep list '{}'", rhs);
    }
    sweep.values.emplace_back(rhs.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return sweep;
}

}  // namespace asyncsim::analytic
