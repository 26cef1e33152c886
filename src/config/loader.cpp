#include <yaml-cpp/yaml.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/gpu_config.h"
#include "config/params.h"
#include "util/error.h"

namespace asyncsim {
namespace {

namespace fs = std::filesystem;

struct RawValue {
  std::string text;
  std::string source;
  std::string where;
};

std::string where_of(const std::string& file, const YAML::Node& node) {
  return format_location(file, node.Mark().line + 1);
}

void collect_leaves(const YAML::Node& node, const std::string& prefix, const std::string& file,
                    std::map<std::string, RawValue>& out) {
  for (const auto& item : node) {
    const auto key = item.first.as<std::string>();
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    const YAML::Node& child = item.second;
    if (prefix.empty() && (key == "name" || key == "base" || key == "description")) {
      continue;
    }
    if (child.IsMap() && child["value"]) {
      for (const auto& field : child) {
        const auto f = field.first.as<std::string>();
        if (f != "value" && f != "source") {
          throw_input_error(where_of(file, field.first),
                            "parameter '{}' has unknown field '{}' (expected value, source)", path,
                            f);
        }
      }
      if (!child["source"] || child["source"].as<std::string>().empty()) {
        throw_input_error(where_of(file, child), "parameter '{}' has no source", path);
      }
      if (!find_param(path)) {
        throw_input_error(where_of(file, item.first), "unknown config key '{}'", path);
      }
      out[path] = RawValue{child["value"].as<std::string>(), child["source"].as<std::string>(),
                           where_of(file, child["value"])};
    } else if (child.IsMap()) {
      collect_leaves(child, path, file, out);
    } else {
      if (find_param(path)) {
        throw_input_error(where_of(file, child),
                          "parameter '{}' must be written as {{value: ..., source: \"...\"}}",
                          path);
      }
      throw_input_error(where_of(file, item.first), "unknown config key '{}'", path);
    }
  }
}

std::string resolve_path(const std::string& name_or_path, const fs::path& relative_to) {
  if (name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".yaml")) {
    fs::path p(name_or_path);
    if (p.is_relative() && !relative_to.empty()) {
      p = relative_to / p;
    }
    return p.string();
  }
  return (fs::path(config_directory()) / (name_or_path + ".yaml")).string();
}

void load_file(const std::string& path, std::map<std::string, RawValue>& values, std::string& name,
               int depth) {
  if (depth > 8) {
    throw_input_error(path, "config 'base:' chain is deeper than 8 (a cycle?)");
  }
  if (!fs::exists(path)) {
    throw_input_error(path, "no such GPU config (built-in names are the files in {})",
                      config_directory());
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw_input_error(format_location(path, e.mark.line + 1), "malformed YAML: {}", e.msg);
  }
  if (!root.IsMap()) {
    throw_input_error(path, "expected a mapping at the top level");
  }
  if (root["base"]) {
    load_file(resolve_path(root["base"].as<std::string>(), fs::path(path).parent_path()), values,
              name, depth + 1);
  }
  if (root["name"]) {
    name = root["name"].as<std::string>();
  }
  std::map<std::string, RawValue> mine;
  collect_leaves(root, "", path, mine);
  for (auto& [k, v] : mine) {
    values[k] = std::move(v);
  }
}

}  // namespace

std::string config_directory() {
  if (const char* env = std::getenv("ASYNCSIM_CONFIG_DIR")) {
    return env;
  }
  return ASYNCSIM_CONFIG_DIR;
}

int GpuConfig::l2_sets() const {
  const int64_t lines_per_slice = mem.l2_bytes / mem.line_bytes / mem.l2_slices;
  return static_cast<int>(std::max<int64_t>(1, lines_per_slice / mem.l2_ways));
}

void apply_override(GpuConfig& config, const std::string& key, const std::string& value,
                    const std::string& flag) {
  const ParamSpec* spec = find_param(key);
  if (!spec) {
    throw_input_error(flag, "unknown config key '{}' (asyncsim params --gpu NAME lists them)", key);
  }
  spec->set(config, value, flag);
  for (auto& rec : config.records) {
    if (rec.key == key) {
      rec.value = value;
      rec.source = "override: " + flag;
    }
  }
}

static void check_consistency(const GpuConfig& c, const std::string& where) {
  if (c.mem.line_bytes % c.mem.sector_bytes != 0 || c.mem.line_bytes / c.mem.sector_bytes > 8) {
    throw_input_error(where, "mem.line_bytes must be 1..8 sectors of mem.sector_bytes");
  }
  if (c.mem.l2_slices % 2 != 0) {
    throw_input_error(where, "l2.slices must be even (two partitions)");
  }
  if (c.mem.l2_rrip_read_insert >= c.mem.l2_rrip_levels ||
      c.mem.l2_rrip_write_insert >= c.mem.l2_rrip_levels ||
      c.mem.l2_rrip_hit_level >= c.mem.l2_rrip_levels) {
    throw_input_error(where,
                      "l2.rrip_read_insert, l2.rrip_write_insert and l2.rrip_hit_level "
                      "must be below l2.rrip_levels ({})",
                      c.mem.l2_rrip_levels);
  }
  if (c.mem.l2_bytes < int64_t{c.mem.line_bytes} * c.mem.l2_slices * c.mem.l2_ways) {
    throw_input_error(where,
                      "l2.bytes {} holds less than one set per slice (mem.line_bytes {} x "
                      "l2.slices {} x l2.ways {} = {} bytes)",
                      c.mem.l2_bytes, c.mem.line_bytes, c.mem.l2_slices, c.mem.l2_ways,
                      int64_t{c.mem.line_bytes} * c.mem.l2_slices * c.mem.l2_ways);
  }
  if (c.mem.l2_set_index == L2SetIndex::kXor &&
      std::popcount(static_cast<unsigned>(c.l2_sets())) != 1) {
    throw_input_error(where,
                      "l2.set_index=xor needs a power-of-two number of sets per slice; "
                      "l2.bytes / mem.line_bytes / l2.slices / l2.ways gives {}",
                      c.l2_sets());
  }
  if (c.sm.count % c.sm.gpcs != 0 && c.sm.count < c.sm.gpcs) {
    throw_input_error(where, "sm.count must be at least sm.gpcs");
  }
  // A GPC (or side-unit TPC) bitmask typed in an override may only name GPCs (TPCs) the chip
  // has. A file's mask is left alone: configs that shrink a chip (tests/data/simple_gpu.yaml)
  // inherit its partition map, and bits beyond their GPCs select nothing.
  const auto overridden = [&](const std::string& key) {
    for (const auto& r : c.records) {
      if (r.key == key) {
        return r.source.starts_with("override:");
      }
    }
    return false;
  };
  const auto check_mask = [&](const std::string& key, int mask, const std::string& count_key,
                              int count, const char* what) {
    if (mask <= 0 || count >= 31 || (mask >> count) == 0 || !overridden(key)) {
      return;
    }
    throw_input_error(where, "{} = {} names {} {}, but {} is {}{}", key, mask, what,
                      std::bit_width(static_cast<unsigned>(mask)) - 1, count_key, count,
                      count > 0 ? fmt::format(" ({} 0-{})", what, count - 1) : std::string());
  };
  check_mask("tensor.slow_gpcs", c.tensor.slow_gpcs, "sm.gpcs", c.sm.gpcs, "GPC");
  check_mask("l2.partition1_gpcs", c.mem.l2_partition1_gpcs, "sm.gpcs", c.sm.gpcs, "GPC");
  check_mask("l2.reader_half1_gpcs", c.mem.l2_reader_half1_gpcs, "sm.gpcs", c.sm.gpcs, "GPC");
  check_mask("l2.partition1_side_tpcs", c.mem.l2_partition1_side_tpcs, "sm.dispatch_side_tpcs",
             c.sm.dispatch_side_tpcs, "side-unit TPC");
  check_mask("l2.reader_half1_side_tpcs", c.mem.l2_reader_half1_side_tpcs, "sm.dispatch_side_tpcs",
             c.sm.dispatch_side_tpcs, "side-unit TPC");
  if (!c.sm.tpc_gpcs.empty()) {
    if (c.sm.tpc_gpcs.size() != static_cast<size_t>(c.sm.count / 2)) {
      throw_input_error(where,
                        "sm.tpc_gpcs lists {} TPCs; sm.count {} has {} (give one GPC per TPC, "
                        "or set it empty: TPC t in GPC t mod sm.gpcs)",
                        c.sm.tpc_gpcs.size(), c.sm.count, c.sm.count / 2);
    }
    for (size_t t = 0; t < c.sm.tpc_gpcs.size(); ++t) {
      if (c.sm.tpc_gpcs[t] >= c.sm.gpcs) {
        throw_input_error(where, "sm.tpc_gpcs: TPC {} in GPC {}, but sm.gpcs is {}", t,
                          c.sm.tpc_gpcs[t], c.sm.gpcs);
      }
    }
  }
}

GpuConfig load_gpu_config(const std::string& name_or_path,
                          const std::vector<std::string>& overrides) {
  const std::string path = resolve_path(name_or_path, {});
  std::map<std::string, RawValue> values;
  GpuConfig config;
  config.name = fs::path(path).stem().string();
  load_file(path, values, config.name, 0);
  for (const auto& spec : param_specs()) {
    auto it = values.find(spec.key);
    if (it == values.end()) {
      throw_input_error(path, "missing parameter '{}' ({}, {})", spec.key, spec.unit, spec.doc);
    }
    spec.set(config, it->second.text, it->second.where);
    config.records.push_back(
        ParamRecord{spec.key, it->second.text, spec.unit, spec.doc, it->second.source});
  }
  for (const auto& ov : overrides) {
    const auto eq = ov.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw_input_error("--set " + ov, "expected key=value");
    }
    apply_override(config, ov.substr(0, eq), ov.substr(eq + 1), "--set " + ov);
  }
  // A combination that only the overrides made inconsistent names them too.
  std::string where = path;
  for (const auto& ov : overrides) {
    where += " --set " + ov;
  }
  check_consistency(config, where);
  return config;
}

std::string resolved_config_yaml(const GpuConfig& config) {
  std::ostringstream os;
  os << "# resolved asyncsim GPU config (every parameter, with its source)\n";
  os << "name: " << config.name << "\n";
  for (const auto& r : config.records) {
    YAML::Emitter e;
    e << YAML::Flow << YAML::BeginMap << YAML::Key << "value" << YAML::Value << r.value << YAML::Key
      << "source" << YAML::Value << r.source << YAML::EndMap;
    os << r.key << ": " << e.c_str() << "  # " << r.unit << "\n";
  }
  return os.str();
}

}  // namespace asyncsim
