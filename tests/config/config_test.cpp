// GPU configs: every parameter typed and sourced, unknown keys rejected with file:line,
// overrides recorded, inheritance, and the resolved config loads back to the same values.
#include <gtest/gtest.h>

#include <fstream>

#include "config/gpu_config.h"
#include "config/params.h"
#include "util/error.h"

namespace asyncsim {
namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Config, EveryBuiltInParameterHasAValueAndASource) {
  for (const char* gpu : {"h200", "h100", "h800"}) {
    const GpuConfig c = load_gpu_config(gpu);
    EXPECT_EQ(c.records.size(), param_specs().size()) << gpu;
    for (const auto& r : c.records) {
      EXPECT_FALSE(r.source.empty()) << gpu << " " << r.key;
      EXPECT_FALSE(r.unit.empty()) << gpu << " " << r.key;
      EXPECT_FALSE(r.doc.empty()) << gpu << " " << r.key;
    }
  }
}

TEST(Config, InheritanceKeepsTheBaseAndAppliesOverrides) {
  const GpuConfig h200 = load_gpu_config("h200");
  const GpuConfig h100 = load_gpu_config("h100");
  EXPECT_EQ(h100.name, "h100");
  EXPECT_EQ(h100.mem.l2_bytes, 52428800);
  EXPECT_EQ(h200.mem.l2_bytes, 62914560);
  EXPECT_EQ(h100.tma.issue_gap_cycles, h200.tma.issue_gap_cycles);
}

TEST(Config, UnknownKeyNamesFileAndLine) {
  const std::string path = write_temp("unknown.yaml", "name: x\nbase: " ASYNCSIM_SOURCE_DIR
                                                      "/configs/h200.yaml\ntma:\n"
                                                      "  queue_dept: {value: 8, source: typo}\n");
  try {
    load_gpu_config(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unknown config key 'tma.queue_dept'"), std::string::npos);
  }
}

TEST(Config, ValueWithoutSourceIsRejected) {
  const std::string path = write_temp("nosource.yaml", "name: x\nbase: " ASYNCSIM_SOURCE_DIR
                                                       "/configs/h200.yaml\ntma:\n"
                                                       "  queue_depth: {value: 8}\n");
  try {
    load_gpu_config(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has no source"), std::string::npos) << e.what();
  }
}

TEST(Config, BadValuesAreRejectedWithTheirRange) {
  EXPECT_THROW(load_gpu_config("h200", {"tma.queue_depth=0"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"l2.hash=crc"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"tma.dedup=maybe"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"sm.clock_mhz=fast"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"novalue"}), InputError);
  // RRIP levels: insertion and hit values must be below the level count.
  EXPECT_THROW(load_gpu_config("h200", {"l2.rrip_levels=4", "l2.rrip_read_insert=4"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"l2.rrip_levels=2", "l2.rrip_write_insert=2"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"l2.rrip_hit_level=9"}), InputError);
  // l2.set_index=xor folds bits onto a power-of-two set count: 60 MiB / 128 B / 120 slices /
  // 20 ways = 204.8 -> 204 sets is refused, naming the count.
  try {
    load_gpu_config("h200", {"l2.set_index=xor", "l2.slices=120"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("power-of-two number of sets per slice"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("gives 204"), std::string::npos) << e.what();
    // A combination only the overrides made: the message names them, not just the file.
    EXPECT_NE(std::string(e.what()).find("--set l2.set_index=xor --set l2.slices=120"),
              std::string::npos)
        << e.what();
  }
  // sm.tpc_gpcs names one GPC per TPC: a count of SMs it does not cover, or a GPC beyond
  // sm.gpcs, is refused; an empty list falls back to TPC t in GPC t mod sm.gpcs.
  try {
    load_gpu_config("h200", {"sm.count=64"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sm.tpc_gpcs lists 66 TPCs; sm.count 64 has 32"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(load_gpu_config("h200", {"sm.count=4", "sm.gpcs=2", "sm.tpc_gpcs=0,8"}), InputError);
  EXPECT_THROW(load_gpu_config("h200", {"sm.count=4", "sm.gpcs=2", "sm.tpc_gpcs=0,x"}), InputError);
  const GpuConfig four = load_gpu_config("h200", {"sm.count=4", "sm.gpcs=2", "sm.tpc_gpcs="});
  EXPECT_TRUE(four.sm.tpc_gpcs.empty());
  EXPECT_EQ(gpc_of_sm(four.sm, 3), 1);
  EXPECT_EQ(gpc_of_sm(load_gpu_config("h200").sm, 64), 1);  // TPC 32: GPC 1, not 32 mod 8
  EXPECT_NO_THROW(load_gpu_config("h200", {"l2.set_index=linear", "l2.slices=120"}));
  EXPECT_NO_THROW(load_gpu_config("h200", {"l2.replacement=rrip", "l2.rrip_levels=8",
                                           "l2.rrip_read_insert=6", "l2.rrip_hit_level=7"}));
}

// A GPC bitmask typed with --set may only name the config's GPCs, a side-unit TPC mask its
// side TPCs: a bit beyond them would otherwise select nothing without a word.
TEST(Config, MasksNamingMissingGpcsOrSideTpcsAreRefused) {
  const auto message = [](const std::vector<std::string>& sets) {
    try {
      load_gpu_config("h200", sets);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message({"tensor.slow_gpcs=1024"})
                .find("tensor.slow_gpcs = 1024 names GPC 10, but sm.gpcs is 8 (GPC 0-7)"),
            std::string::npos)
      << message({"tensor.slow_gpcs=1024"});
  EXPECT_NE(message({"l2.partition1_gpcs=256"}).find("names GPC 8"), std::string::npos);
  EXPECT_NE(message({"l2.reader_half1_gpcs=300"}).find("names GPC 8"), std::string::npos);
  EXPECT_NE(message({"l2.partition1_side_tpcs=16"}).find("names side-unit TPC 4"),
            std::string::npos);
  EXPECT_NE(message({"sm.dispatch_side_tpcs=0", "l2.reader_half1_side_tpcs=1"})
                .find("names side-unit TPC 0, but sm.dispatch_side_tpcs is 0"),
            std::string::npos)
      << message({"sm.dispatch_side_tpcs=0", "l2.reader_half1_side_tpcs=1"});
  // A chip shrunk by an override keeps its file's masks; a mask typed beside it is checked.
  EXPECT_NO_THROW(load_gpu_config("h200", {"sm.count=4", "sm.gpcs=2", "sm.tpc_gpcs="}));
  EXPECT_NE(message({"sm.count=4", "sm.gpcs=2", "sm.tpc_gpcs=", "l2.partition1_gpcs=4"})
                .find("l2.partition1_gpcs = 4 names GPC 2, but sm.gpcs is 2 (GPC 0-1)"),
            std::string::npos);
  // The largest masks the chip has, and -1 (the partition map) for the reader halves, load.
  EXPECT_NO_THROW(
      load_gpu_config("h200", {"tensor.slow_gpcs=255", "l2.partition1_gpcs=255",
                               "l2.reader_half1_gpcs=-1", "l2.partition1_side_tpcs=15"}));
}

TEST(Config, OverrideIsAppliedAndRecorded) {
  const GpuConfig c = load_gpu_config("h200", {"tma.queue_depth=64", "l2.hash=modulo"});
  EXPECT_EQ(c.tma.queue_depth, 64);
  EXPECT_EQ(c.mem.l2_hash, SliceHash::kModulo);
  for (const auto& r : c.records) {
    if (r.key == "tma.queue_depth") {
      EXPECT_EQ(r.value, "64");
      EXPECT_NE(r.source.find("--set"), std::string::npos);
    }
  }
}

TEST(Config, ResolvedConfigLoadsBackIdentically) {
  const GpuConfig c = load_gpu_config("h200", {"tma.queue_depth=24"});
  const std::string path = write_temp("resolved.yaml", resolved_config_yaml(c));
  const GpuConfig back = load_gpu_config(path);
  ASSERT_EQ(back.records.size(), c.records.size());
  for (size_t i = 0; i < c.records.size(); ++i) {
    EXPECT_EQ(back.records[i].key, c.records[i].key);
    EXPECT_EQ(back.records[i].value, c.records[i].value);
  }
  EXPECT_EQ(back.tma.queue_depth, 24);
}

}  // namespace
}  // namespace asyncsim
