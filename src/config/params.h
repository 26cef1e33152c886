// The single declaration of every GPU parameter: key, type, unit, one-line doc, and how it is
// stored in GpuConfig. Loading, overriding, listing and writing configs all go through it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/gpu_config.h"

namespace asyncsim {

struct ParamSpec {
  std::string key;   // dotted path, mirrors the YAML tree
  std::string type;  // int, float, bool, or "a|b|c" for an enumeration
  std::string unit;
  std::string doc;
  // Parses `text` into the config; throws InputError naming `where` when it does not parse.
  std::function<void(GpuConfig&, const std::string& text, const std::string& where)> set;
};

const std::vector<ParamSpec>& param_specs();
const ParamSpec* find_param(const std::string& key);

}  // namespace asyncsim
