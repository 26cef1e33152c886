// Random truncations and mutations of valid programs must parse or throw InputError naming the
// file — never crash, hang or throw anything else. Seeded, so failures reproduce.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "program/writer.h"
#include "test_support.h"

namespace asyncsim::program {
namespace {

constexpr const char kAlphabet[] = "[](),=#-+*/%<>!?:. \n\t0123456789aikxKMN_.fulbyts";

std::string read_example() {
  std::ifstream in(test::example_path("gemm_tiny.asim"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    lines.push_back(l);
  }
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) {
    s += l + "\n";
  }
  return s;
}

std::string mutate(const std::string& text, std::mt19937& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string t = text;
  std::vector<std::string> lines = lines_of(text);
  if (t.empty() || lines.empty()) {
    return t + kAlphabet[pick(sizeof(kAlphabet) - 1)];
  }
  switch (pick(6)) {
    case 0:
      return t.substr(0, pick(t.size()));
    case 1:
      t.erase(pick(t.size()), 1 + pick(4));
      return t;
    case 2:
      t.insert(pick(t.size()), 1, kAlphabet[pick(sizeof(kAlphabet) - 1)]);
      return t;
    case 3:
      t[pick(t.size())] = kAlphabet[pick(sizeof(kAlphabet) - 1)];
      return t;
    case 4:
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
      break;
    default:
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())),
                   lines[pick(lines.size())]);
  }
  return join_lines(lines);
}

// Parses `text`; a program that parses must also survive write -> parse -> write unchanged.
void check_one(const std::string& text, int& parsed) {
  try {
    const Kernel k = parse_program(text, "fuzz.asim");
    const std::string written = write_program(k);
    EXPECT_EQ(write_program(parse_program(written, "fuzz.asim")), written) << text;
    ++parsed;
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("fuzz.asim", 0), 0u) << e.what() << "\n" << text;
  }
}

TEST(ParserFuzz, MutationsParseOrFailWithALocatedInputError) {
  const std::string seed = read_example();
  ASSERT_FALSE(seed.empty());
  std::mt19937 rng(12345);
  int parsed = 0;
  const char* env = std::getenv("ASYNCSIM_FUZZ_ITERATIONS");  // longer runs on demand
  const int iterations = env != nullptr ? std::atoi(env) : 4000;
  for (int i = 0; i < iterations; ++i) {
    std::string text = seed;
    for (int n = 1 + i % 3; n > 0; --n) {
      text = mutate(text, rng);
    }
    check_one(text, parsed);
    if (HasFailure()) {
      break;
    }
  }
  EXPECT_GT(parsed, iterations / 20);  // many mutations survive: the round trip is exercised
}

TEST(ParserFuzz, EveryTruncationOfTheExample) {
  const std::string seed = read_example();
  int parsed = 0;
  for (size_t n = 0; n <= seed.size() && !HasFailure(); ++n) {
    check_one(seed.substr(0, n), parsed);
  }
  EXPECT_GE(parsed, 1);  // the whole file
}

}  // namespace
}  // namespace asyncsim::program
