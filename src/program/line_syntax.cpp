#include "program/line_syntax.h"

#include <cctype>

#include "util/error.h"

namespace asyncsim::program {
namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_open(char c) {
  return c == '(' || c == '[';
}
bool is_close(char c) {
  return c == ')' || c == ']';
}

void check_brackets(const std::string& text, const std::string& where) {
  std::string open;
  for (const char c : text) {
    if (is_open(c)) {
      if (static_cast<int>(open.size()) >= kMaxBracketDepth) {
        throw_input_error(where, "brackets nest deeper than {}", kMaxBracketDepth);
      }
      open.push_back(c);
    } else if (is_close(c)) {
      const char want = c == ')' ? '(' : '[';
      if (open.empty() || open.back() != want) {
        throw_input_error(where, "unbalanced '{}' (expected balanced ( ) and [ ])", c);
      }
      open.pop_back();
    }
  }
  if (!open.empty()) {
    throw_input_error(where, "'{}' is not closed (expected a matching '{}')", open.back(),
                      open.back() == '(' ? ')' : ']');
  }
}

// Index of the bracket that closes the one at `open_pos` (the text is balanced).
size_t matching_bracket(const std::string& s, size_t open_pos) {
  int depth = 0;
  for (size_t i = open_pos; i < s.size(); ++i) {
    depth += is_open(s[i]) ? 1 : is_close(s[i]) ? -1 : 0;
    if (depth == 0) {
      return i;
    }
  }
  return std::string::npos;
}

// A `key=` starts at `p` when it is at bracket depth 0, follows whitespace, is an identifier and
// is followed by '=' but not '=='. Returns the offset of the '=' or npos.
size_t key_at(const std::string& s, size_t p) {
  if (!is_ident_start(s[p]) || (p > 0 && !is_space(s[p - 1]))) {
    return std::string::npos;
  }
  size_t q = p;
  while (q < s.size() && is_ident_char(s[q])) {
    ++q;
  }
  if (q < s.size() && s[q] == '=' && (q + 1 >= s.size() || s[q + 1] != '=')) {
    return q;
  }
  return std::string::npos;
}

// Offsets of every key start at bracket depth 0.
std::vector<size_t> key_starts(const std::string& s) {
  std::vector<size_t> starts;
  int depth = 0;
  for (size_t p = 0; p < s.size(); ++p) {
    depth += is_open(s[p]) ? 1 : is_close(s[p]) ? -1 : 0;
    if (depth == 0 && key_at(s, p) != std::string::npos) {
      starts.push_back(p);
    }
  }
  return starts;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::string cur;
  int depth = 0;
  for (const char c : s) {
    depth += is_open(c) ? 1 : is_close(c) ? -1 : 0;
    if (depth == 0 && is_space(c)) {
      if (!cur.empty()) {
        words.push_back(cur);
      }
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) {
    words.push_back(cur);
  }
  return words;
}

}  // namespace

std::string trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && is_space(s[b])) {
    ++b;
  }
  while (e > b && is_space(s[e - 1])) {
    --e;
  }
  return s.substr(b, e - b);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !is_ident_start(s[0])) {
    return false;
  }
  for (const char c : s) {
    if (!is_ident_char(c)) {
      return false;
    }
  }
  return true;
}

std::string strip_outer_parens(const std::string& s) {
  std::string t = trim(s);
  while (t.size() >= 2 && t.front() == '(' && matching_bracket(t, 0) == t.size() - 1) {
    t = trim(t.substr(1, t.size() - 2));
  }
  return t;
}

bool split_source_line(const std::string& raw, const std::string& where, int number,
                       SourceLine& out) {
  if (raw.size() > kMaxLineLength) {
    throw_input_error(where, "line is longer than {} characters", kMaxLineLength);
  }
  const std::string text = trim(raw.substr(0, raw.find('#')));
  if (text.empty()) {
    return false;
  }
  check_brackets(text, where);
  size_t end = 0;
  while (end < text.size() && !is_space(text[end])) {
    ++end;
  }
  out = SourceLine{where, number, text.substr(0, end), trim(text.substr(end))};
  return true;
}

Operands::Operands(const SourceLine& line) : m_where(line.where), m_head(line.head) {
  const std::vector<size_t> keys = key_starts(line.rest);
  const size_t first_key = keys.empty() ? line.rest.size() : keys.front();
  m_words = split_words(line.rest.substr(0, first_key));
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t eq = key_at(line.rest, keys[i]);
    const size_t end = i + 1 < keys.size() ? keys[i + 1] : line.rest.size();
    KeyValue kv{line.rest.substr(keys[i], eq - keys[i]),
                trim(line.rest.substr(eq + 1, end - eq - 1))};
    if (kv.value.empty()) {
      throw_input_error(m_where, "{}: missing value after '{}='", m_head, kv.key);
    }
    for (const KeyValue& other : m_keys) {
      if (other.key == kv.key) {
        throw_input_error(m_where, "{}: operand '{}=' is given twice", m_head, kv.key);
      }
    }
    m_keys.push_back(std::move(kv));
  }
}

bool Operands::flag(const char* word) {
  for (size_t i = m_next; i < m_words.size(); ++i) {
    if (m_words[i] == word) {
      m_words.erase(m_words.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
  }
  return false;
}

std::string Operands::word(const char* what) {
  if (m_next >= m_words.size()) {
    throw_input_error(m_where, "{}: missing operand: expected {}", m_head, what);
  }
  return m_words[m_next++];
}

std::string Operands::rest(const char* what) {
  std::string joined = word(what);
  while (m_next < m_words.size()) {
    joined += " " + m_words[m_next++];
  }
  return joined;
}

std::optional<std::string> Operands::key(const char* name) {
  m_asked.emplace_back(name);
  for (KeyValue& kv : m_keys) {
    if (kv.key == name) {
      kv.used = true;
      return kv.value;
    }
  }
  return std::nullopt;
}

std::string Operands::required_key(const char* name, const char* what) {
  std::optional<std::string> v = key(name);
  if (!v) {
    throw_input_error(m_where, "{}: missing operand {}= ({})", m_head, name, what);
  }
  return *v;
}

void Operands::done() const {
  if (m_next < m_words.size()) {
    throw_input_error(m_where, "{}: unexpected operand '{}'", m_head, m_words[m_next]);
  }
  for (const KeyValue& kv : m_keys) {
    if (kv.used) {
      continue;
    }
    if (m_asked.empty()) {
      throw_input_error(m_where, "{}: unexpected operand '{}=' ({} takes no key=value operands)",
                        m_head, kv.key, m_head);
    }
    std::string expected;
    for (const std::string& k : m_asked) {
      expected += (expected.empty() ? "" : ", ") + k + "=";
    }
    throw_input_error(m_where, "{}: unknown operand '{}=' (expected {})", m_head, kv.key, expected);
  }
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (const char c : text) {
    depth += is_open(c) ? 1 : is_close(c) ? -1 : 0;
    if (depth == 0 && c == ',') {
      parts.push_back(trim(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  parts.push_back(trim(cur));
  return parts;
}

std::vector<std::string> split_list(const std::string& text, const std::string& where,
                                    const char* what) {
  if (text.size() < 2 || text.front() != '[' || matching_bracket(text, 0) != text.size() - 1) {
    throw_input_error(where, "expected a bracketed list such as [a, b] for {}, got '{}'", what,
                      text);
  }
  const std::string inner = trim(text.substr(1, text.size() - 2));
  if (inner.empty()) {
    return {};
  }
  std::vector<std::string> parts = split_commas(inner);
  for (const std::string& p : parts) {
    if (p.empty()) {
      throw_input_error(where, "empty element in the list {} of {}", text, what);
    }
  }
  return parts;
}

Subscript split_subscript(const std::string& text, const std::string& where, const char* what) {
  const size_t open = text.find('[');
  if (open == std::string::npos) {
    return Subscript{text, ""};
  }
  const std::string name = text.substr(0, open);
  if (name.empty() || matching_bracket(text, open) != text.size() - 1) {
    throw_input_error(where, "expected {} written NAME[INDEX], got '{}'", what, text);
  }
  Subscript s{name, trim(text.substr(open + 1, text.size() - open - 2))};
  if (s.index.empty()) {
    throw_input_error(where, "empty index in '{}' (expected {} written NAME[INDEX])", text, what);
  }
  return s;
}

}  // namespace asyncsim::program
