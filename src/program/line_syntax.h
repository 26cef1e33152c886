// Lexical rules of one line of a .asim program (docs/program-format.md, "Lines and operands"):
// a head word, then positional operands separated by whitespace outside brackets, then key=value
// operands whose values run to the next ` key=` or the end of the line. Every error names the
// line's file:line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace asyncsim::program {

inline constexpr size_t kMaxLineLength = 4096;
inline constexpr int kMaxBracketDepth = 64;

// One non-empty source line with its comment removed.
struct SourceLine {
  std::string where;  // file:line
  int number = 0;
  std::string head;  // first word
  std::string rest;  // everything after it, trimmed
};

// Strips a `#` comment and surrounding whitespace; checks length and bracket balance.
// Returns false for a blank line.
bool split_source_line(const std::string& raw, const std::string& where, int number,
                       SourceLine& out);

// The operands of one line. Handlers consume what they expect; done() rejects what is left.
class Operands {
 public:
  explicit Operands(const SourceLine& line);

  bool has_word() const { return m_next < m_words.size(); }
  bool flag(const char* word);                       // consumes a positional word equal to `word`
  std::string word(const char* what);                // consumes the next positional word
  std::string rest(const char* what);                // consumes all remaining positional words
  std::optional<std::string> key(const char* name);  // consumes `name=`
  std::string required_key(const char* name, const char* what);  // consumes `name=` or throws
  void done() const;  // throws on positional words or keys nobody consumed

 private:
  struct KeyValue {
    std::string key;
    std::string value;
    bool used = false;
  };
  void split_keys(const std::string& text, size_t first_key);

  std::string m_where;
  std::string m_head;
  std::vector<std::string> m_words;
  size_t m_next = 0;
  std::vector<KeyValue> m_keys;
  std::vector<std::string> m_asked;
};

// "[a, b, c]" -> {"a", "b", "c"}; splits on commas outside brackets.
std::vector<std::string> split_list(const std::string& text, const std::string& where,
                                    const char* what);
// Splits on commas outside brackets without requiring surrounding brackets.
std::vector<std::string> split_commas(const std::string& text);

// "name[index]" or "name" (index empty).
struct Subscript {
  std::string name;
  std::string index;
};
Subscript split_subscript(const std::string& text, const std::string& where, const char* what);

bool is_identifier(const std::string& s);
std::string trim(const std::string& s);
// Removes parentheses that enclose the whole text: "((a + b))" -> "a + b".
std::string strip_outer_parens(const std::string& s);

}  // namespace asyncsim::program
