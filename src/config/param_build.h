// Builders of the parameter table (params.cpp): parse a config value with the key and place
// named in errors, and wrap a member getter as a ParamSpec. Internal to src/config.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/params.h"
#include "util/error.h"

namespace asyncsim::param_build {

inline constexpr int64_t kBig = int64_t{1} << 40;

inline int64_t parse_int(const std::string& text, const std::string& where) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) {
    throw_input_error(where, "expected an integer, got '{}'", text);
  }
  return v;
}

inline double parse_float(const std::string& text, const std::string& where) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) {
      return v;
    }
  } catch (const std::exception&) {
  }
  throw_input_error(where, "expected a number, got '{}'", text);
}

inline bool parse_bool(const std::string& text, const std::string& where) {
  if (text == "true" || text == "on" || text == "1") {
    return true;
  }
  if (text == "false" || text == "off" || text == "0") {
    return false;
  }
  throw_input_error(where, "expected true/false (or on/off), got '{}'", text);
}

template <typename Get>
ParamSpec int_param(std::string key, std::string unit, std::string doc, Get get, int64_t lo,
                    int64_t hi) {
  return ParamSpec{key, "int", std::move(unit), std::move(doc),
                   [get, lo, hi, key](GpuConfig& c, const std::string& t, const std::string& w) {
                     const int64_t v = parse_int(t, w);
                     if (v < lo || v > hi) {
                       throw_input_error(w, "{} must be in [{}, {}], got {}", key, lo, hi, v);
                     }
                     using T = std::remove_reference_t<decltype(get(c))>;
                     get(c) = static_cast<T>(v);
                   }};
}

template <typename Get>
ParamSpec float_param(std::string key, std::string unit, std::string doc, Get get, double lo,
                      double hi) {
  return ParamSpec{key, "float", std::move(unit), std::move(doc),
                   [get, lo, hi, key](GpuConfig& c, const std::string& t, const std::string& w) {
                     const double v = parse_float(t, w);
                     if (v < lo || v > hi) {
                       throw_input_error(w, "{} must be in [{}, {}], got {}", key, lo, hi, v);
                     }
                     get(c) = v;
                   }};
}

template <typename Get>
ParamSpec bool_param(std::string key, std::string doc, Get get) {
  return ParamSpec{key, "bool", "-", std::move(doc),
                   [get](GpuConfig& c, const std::string& t, const std::string& w) {
                     get(c) = parse_bool(t, w);
                   }};
}

// An enumeration: `choices` maps each accepted word to its value; the type reads "a|b|c".
template <typename T, typename Get>
ParamSpec enum_param(std::string key, std::string doc, Get get,
                     std::vector<std::pair<std::string, T>> choices) {
  std::string type;
  std::string expected;
  for (size_t i = 0; i < choices.size(); ++i) {
    type += (i > 0 ? "|" : "") + choices[i].first;
    expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].first;
  }
  return ParamSpec{
      std::move(key), type, "-", std::move(doc),
      [get, choices, expected](GpuConfig& c, const std::string& t, const std::string& w) {
        for (const auto& [name, value] : choices) {
          if (t == name) {
            get(c) = value;
            return;
          }
        }
        throw_input_error(w, "expected {}, got '{}'", expected, t);
      }};
}

// The memory system's parameters (mem., l2., noc., dram.): params_memory.cpp.
void add_memory_params(std::vector<ParamSpec>& s);

}  // namespace asyncsim::param_build
