// The asyncsim binary end to end: exit codes and messages for good and bad input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_cli.h"

namespace {

using asyncsim::testing::Outcome;
using asyncsim::testing::run;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(Cli, GemmJsonHasTheContractKeys) {
  const Outcome o = run("gemm --gpu h200 --m 512 --n 512 --k 256 --json");
  ASSERT_EQ(o.code, 0) << o.out;
  for (const char* key :
       {"\"cycles\"", "\"time_us\"", "\"sm_clock_mhz\"", "\"tflops\"", "\"ctas\"",
        "\"dram_read_bytes\"", "\"dram_write_bytes\"", "\"l2_read_bytes\"", "\"l2_write_bytes\"",
        "\"tensor_active_fraction\"", "\"tma_bytes\"", "\"stall_cycles\""}) {
    EXPECT_NE(o.out.find(key), std::string::npos) << key << " missing in " << o.out;
  }
}

TEST(Cli, SmClockChangesOnlyTheSmDomain) {
  const Outcome fast = run("gemm --m 512 --n 512 --k 256 --json --sm-clock-mhz 1980");
  const Outcome slow = run("gemm --m 512 --n 512 --k 256 --json --sm-clock-mhz 990");
  ASSERT_EQ(fast.code, 0);
  ASSERT_EQ(slow.code, 0);
  EXPECT_NE(slow.out.find("\"sm_clock_mhz\":990"), std::string::npos) << slow.out;
  // Memory latencies are fixed in nanoseconds, so at half the SM clock they cost fewer SM
  // cycles: the kernel takes fewer cycles but more time.
  const auto cycles = [](const std::string& s) {
    return std::stoll(s.substr(s.find("\"cycles\":") + 9));
  };
  EXPECT_LT(cycles(slow.out), cycles(fast.out));
}

TEST(Cli, UnknownConfigKeyIsExit2NamingTheFlag) {
  const Outcome o = run("gemm --m 256 --n 256 --k 256 --set l2.nonexistent=3");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("--set l2.nonexistent=3"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("unknown config key 'l2.nonexistent'"), std::string::npos) << o.out;
}

TEST(Cli, UnknownKeyInConfigFileNamesFileAndLine) {
  const std::string path =
      write_temp("bad_gpu.yaml", "name: bad\nbase: " ASYNCSIM_SOURCE_DIR
                                 "/configs/h200.yaml\nsm:\n  countt: {value: 3, source: x}\n");
  const Outcome o = run("gemm --gpu " + path + " --m 256 --n 256 --k 256");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find(path + ":4"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("unknown config key 'sm.countt'"), std::string::npos) << o.out;
}

TEST(Cli, BadFlagValueIsExit2) {
  EXPECT_EQ(run("gemm --tile 128x128").code, 2);
  EXPECT_EQ(run("gemm --m -5").code, 2);
  EXPECT_EQ(run("gemm --gpu no_such_gpu").code, 2);
  EXPECT_EQ(run("frobnicate").code, 2);
  // An explicit 0 MHz is a bad clock, not "keep the config's" (an unset flag is that).
  const Outcome zero = run("gemm --m 256 --n 256 --k 256 --sm-clock-mhz 0");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.out.find("--sm-clock-mhz: sm.clock_mhz must be in [1, 10000], got 0"),
            std::string::npos)
      << zero.out;
  EXPECT_EQ(run("micro tma_size --sm-clock-mhz 0").code, 2);
  // 100000 threads aborted the process; "-1" became 2^64 - 1 in unsigned options.
  EXPECT_EQ(run("micro tma_size --jobs 100000").code, 2);
  EXPECT_EQ(run("micro tma_size --max-bytes -1").code, 2);
  EXPECT_EQ(run("gemm --timeline-max-events -5").code, 2);
  // A split or kernel no row has is a typo, not an empty table.
  const Outcome split =
      run("validate " ASYNCSIM_SOURCE_DIR "/validation/data/h200/gemm.csv --split calibb");
  EXPECT_EQ(split.code, 2);
  EXPECT_NE(split.out.find("--split: no row of the files has split 'calibb' (they have: calib, "
                           "test)"),
            std::string::npos)
      << split.out;
}

TEST(Cli, ImpossibleResourceRequestIsExit2) {
  const Outcome o = run("gemm --tile 256x256x64 --warps 8 --stages 6");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("shared memory"), std::string::npos) << o.out;
  // An SM with less shared memory than one CTA needs: the request, not a deadlock of a kernel
  // whose CTAs never started (exit 3).
  const Outcome small = run("gemm --m 256 --n 256 --k 256 --set sm.smem_bytes=1000");
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.out.find("a CTA needs 99328 bytes of shared memory (+ 1024 reserved, "
                           "sm.smem_reserved_per_cta); an SM has 1000 (sm.smem_bytes)"),
            std::string::npos)
      << small.out;
}

TEST(Cli, ParamsListsEveryParameterWithSource) {
  const Outcome o = run("params --gpu h200");
  ASSERT_EQ(o.code, 0);
  EXPECT_NE(o.out.find("tma.issue_gap_cycles"), std::string::npos);
  EXPECT_NE(o.out.find("FlashGPU-sim"), std::string::npos);
}

TEST(Cli, StatsAndTimelineFilesAreWritten) {
  const std::string stats = ::testing::TempDir() + "stats.json";
  const std::string tl = ::testing::TempDir() + "timeline.json";
  const Outcome o = run("gemm --m 256 --n 256 --k 256 --stats " + stats + " --timeline " + tl);
  ASSERT_EQ(o.code, 0) << o.out;
  std::ifstream s(stats);
  std::string text((std::istreambuf_iterator<char>(s)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("sm[0].tma.load_bytes"), std::string::npos);
  EXPECT_NE(text.find("l2.slice[0].read_hits"), std::string::npos);
  std::ifstream t(tl);
  std::string trace((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  EXPECT_NE(trace.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(trace.find("TMA load A"), std::string::npos);
  EXPECT_NE(trace.find("wgmma group"), std::string::npos);
  std::ifstream cfg(stats + ".config.yaml");
  EXPECT_TRUE(cfg.good()) << "resolved config not written next to the stats";
}

// The summary's L2 and DRAM breakdown is the run's counters (as --stats writes them), summed
// over the slices: a 256^3 GEMM on the H200 has 4096 line reads, some merged, about half far.
TEST(Cli, SummaryBreaksDownTheL2ReadsFromTheCounters) {
  const std::string stats = ::testing::TempDir() + "summary_stats.json";
  const Outcome o = run("gemm --gpu h200 --m 256 --n 256 --k 256 --stats " + stats);
  ASSERT_EQ(o.code, 0) << o.out;
  std::ifstream s(stats);
  const nlohmann::json j = nlohmann::json::parse(s);
  const nlohmann::json& c = j.at("counters");
  double hits = 0;
  double misses = 0;
  double far = 0;
  double copy_hits = 0;
  for (const auto& [key, value] : c.items()) {
    const auto ends = [&](const std::string& suf) {
      return key.rfind("l2.slice[", 0) == 0 && key.size() > suf.size() &&
             key.compare(key.size() - suf.size(), suf.size(), suf) == 0;
    };
    hits += ends(".read_hits") ? value.get<double>() : 0;
    misses += ends(".read_misses") ? value.get<double>() : 0;
    far += ends(".far_accesses") ? value.get<double>() : 0;
    copy_hits += ends(".copy_hits") ? value.get<double>() : 0;
  }
  const double reads = c.at("mem.read_requests").get<double>();
  const double merged = c.at("mem.coalescer_merges").get<double>();
  const double reached = c.at("mem.requests").get<double>() - merged;
  ASSERT_EQ(reads, 4096);  // (256 x 256 A + 256 x 256 B) fp16 = 256 KB, 128-B lines
  ASSERT_GT(merged, 0);
  ASSERT_GT(hits + misses, 0);
  const std::string want_reads = fmt::format(
      "    read requests      4096: {:.1f} % merged in the request coalescer, {:.1f} % "
      "served by a near copy\n",
      100 * merged / reads, 100 * copy_hits / reads);
  const std::string want_sectors =
      fmt::format("    read sectors       {:.1f} % hit, {:.1f} % missed",
                  100 * hits / (hits + misses), 100 * misses / (hits + misses));
  const std::string want_far =
      fmt::format("    far partition      {:.1f} % of the requests that reached a slice\n",
                  100 * far / reached);
  const double row_hits = c.at("dram.row_hits").get<double>();
  const double opens =
      c.at("dram.row_misses").get<double>() + c.at("dram.row_conflicts").get<double>();
  const std::string want_rows =
      fmt::format("    row buffers        {:.1f} % of accesses hit an open row, {:.0f} activates\n",
                  100 * row_hits / (row_hits + opens), c.at("dram.activates").get<double>());
  // Where a read's time went: the mean of each part over the reads that reached a slice; every
  // read either reached one or merged.
  const double at_slice = c.at("mem.read_latency.reads").get<double>();
  ASSERT_EQ(at_slice + merged, reads);
  const auto mean = [&](const std::string& part) {
    return c.at("mem.read_latency." + part + "_cycles").get<double>() / at_slice;
  };
  double sum = 0;
  for (const char* part :
       {"fixed", "slice_queue", "mshr", "dram", "fill", "slice_port", "gpc_port", "sm_port"}) {
    sum += mean(part);
  }
  ASSERT_GT(mean("dram"), 0);  // cold operands
  const std::string want_latency = fmt::format(
      "    read latency       {:.0f} cycles a read at a slice: path {:.0f}, slice queue {:.0f}, "
      "MSHR {:.0f}, DRAM {:.0f}, fill in flight {:.0f}, ports {:.0f} / {:.0f} / {:.0f} (slice / "
      "GPC / SM)\n",
      sum, mean("fixed"), mean("slice_queue"), mean("mshr"), mean("dram"), mean("fill"),
      mean("slice_port"), mean("gpc_port"), mean("sm_port"));
  const std::string want_merged =
      fmt::format("    merged reads       wait {:.0f} cycles for their leader's data\n",
                  c.at("mem.read_latency.merged_wait_cycles").get<double>() / merged);
  for (const std::string& want :
       {want_reads, want_sectors, want_far, want_rows, want_latency, want_merged}) {
    EXPECT_NE(o.out.find(want), std::string::npos) << "missing: " << want << "in:\n" << o.out;
  }
}

// `run A B`: consecutive launches on one GPU. The same two CTAs' 4 KB copies twice: the first
// launch reads them from DRAM, the second finds them in L2 (no DRAM bytes, all sectors hit).
// --json and --stats give one element per kernel, --cta-log a kernel column; --emit takes one.
TEST(Cli, RunSeveralProgramsCarriesTheMemoryOver) {
  const std::string prog = write_temp("copy4k.asim",
                                      "kernel copy4k\ngrid 2\nmbarrier full[1] arrivals=1\n"
                                      "role main warpgroups=1\n"
                                      "  MB_ARRIVE_EXPECT_TX full[0] bytes=4096\n"
                                      "  BULK_LOAD addr=(1048576 + cta * 4096) bytes=4096 "
                                      "bar=full[0]\n"
                                      "  MB_WAIT full[0] parity=0\nend\n");
  const std::string stats = ::testing::TempDir() + "seq_stats.json";
  const std::string ctas = ::testing::TempDir() + "seq_ctas.csv";
  const Outcome o =
      run("run " + prog + " " + prog + " --json --stats " + stats + " --cta-log " + ctas);
  ASSERT_EQ(o.code, 0) << o.out;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  ASSERT_TRUE(j.is_array()) << o.out;
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0].at("dram_read_bytes").get<uint64_t>(), 8192u);
  EXPECT_EQ(j[1].at("dram_read_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(j[1].at("l2_read_bytes").get<uint64_t>(), 8192u);
  EXPECT_LT(j[1].at("cycles").get<int64_t>(), j[0].at("cycles").get<int64_t>());
  std::ifstream s(stats);
  const nlohmann::json st = nlohmann::json::parse(s);
  ASSERT_TRUE(st.is_array());
  ASSERT_EQ(st.size(), 2u);
  double misses = 0;
  for (const auto& [key, value] : st[1].at("counters").items()) {
    misses += key.find(".read_misses") != std::string::npos ? value.get<double>() : 0;
  }
  EXPECT_EQ(misses, 0) << "the second launch's reads all hit";
  std::ifstream c(ctas);
  const std::string log((std::istreambuf_iterator<char>(c)), std::istreambuf_iterator<char>());
  EXPECT_NE(log.find("\nkernel,cta,sm,start_cycle,end_cycle\n0,0,"), std::string::npos) << log;
  EXPECT_NE(log.find("\n1,1,"), std::string::npos) << log;
  const Outcome summary = run("run " + prog + " " + prog);
  ASSERT_EQ(summary.code, 0) << summary.out;
  EXPECT_NE(summary.out.find("(kernel 2 of 2, memory carried over)"), std::string::npos)
      << summary.out;
  EXPECT_NE(summary.out.find("simulated 2 kernels in"), std::string::npos) << summary.out;
  const Outcome emit = run("run " + prog + " " + prog + " --emit x.asim");
  EXPECT_EQ(emit.code, 2) << emit.out;
  EXPECT_NE(emit.out.find("--emit: writes one program; 2 were given"), std::string::npos)
      << emit.out;
  const Outcome missing = run("run " + prog + " /nonexistent/b.asim");
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/b.asim"), std::string::npos) << missing.out;
}

// --cta-log: a 256x512 GEMM of 128x128 tiles has 8 CTAs, one row each, in CTA order; a bad
// path is named.
TEST(Cli, CtaLogListsEveryCta) {
  const std::string log = ::testing::TempDir() + "ctas.csv";
  const Outcome o = run("gemm --m 256 --n 512 --k 256 --cta-log " + log);
  ASSERT_EQ(o.code, 0) << o.out;
  std::ifstream f(log);
  std::string line;
  std::vector<std::string> rows;
  while (std::getline(f, line)) {
    if (!line.empty() && line[0] != '#') {
      rows.push_back(line);
    }
  }
  ASSERT_EQ(rows.size(), 9u);
  EXPECT_EQ(rows[0], "cta,sm,start_cycle,end_cycle");
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(rows[static_cast<size_t>(i) + 1].rfind(std::to_string(i) + ",", 0), 0u)
        << rows[i + 1];
  }
  const Outcome bad = run("gemm --m 256 --n 256 --k 256 --cta-log /nonexistent/dir/ctas.csv");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.out.find("--cta-log /nonexistent/dir/ctas.csv"), std::string::npos) << bad.out;
}

// --emit writes the generated program; simulating that file gives the same cycles and bytes,
// so what a user reads (and edits) is what was simulated.
TEST(Cli, EmittedProgramSimulatesLikeTheGenerator) {
  for (const std::string gen : {"gemm --m 512 --n 384 --k 256 --tile 128x256x64 --warps 8",
                                "attention --batch 1 --heads 2 --seq 256 --head-dim 64 --causal"}) {
    const std::string file = ::testing::TempDir() + "emitted.asim";
    const Outcome a = run(gen + " --json --emit " + file);
    ASSERT_EQ(a.code, 0) << a.out;
    const Outcome b = run("run " + file + " --json");
    ASSERT_EQ(b.code, 0) << b.out;
    const auto field = [](const std::string& s, const std::string& key) {
      const size_t at = s.find("\"" + key + "\":");
      return at == std::string::npos ? std::string("missing") : s.substr(at, s.find(',', at) - at);
    };
    for (const char* key : {"cycles", "dram_read_bytes", "l2_read_bytes", "tma_bytes"}) {
      EXPECT_EQ(field(a.out, key), field(b.out, key)) << gen;
    }
  }
}

}  // namespace
