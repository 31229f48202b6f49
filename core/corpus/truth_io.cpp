#include "core/corpus/truth_io.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <vector>

#include "core/common/memory_budget.h"
#include "core/common/safe_file.h"
#include "core/common/text_escape.h"

namespace dplda {

namespace {

constexpr double kSimplexTolerance = 1e-6;
constexpr std::size_t kMaxDepth = 256;
constexpr long long kMaxJsonBytes = 1LL << 30;
// Parsed values other than the numbers of number arrays (which are packed, 8 bytes each): a
// truth holds k + 3 of them (k <= d <= kMaxVocabularySize). Without a cap a file of
// "[],[],..." would cost far more than its size in bookkeeping.
constexpr long long kMaxJsonValues = 2 * static_cast<long long>(kMaxVocabularySize) + 16;

std::string num(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

// ---------------------------------------------------------------- JSON through nlohmann-json
//
// The syntax is nlohmann-json's (strict RFC 8259, a leading UTF-8 BOM skipped), driven as a SAX
// parser so that only alpha and the topic arrays are kept, packed as doubles (a DOM would take
// ~16 bytes and an allocation per number). What nlohmann does not do is done here: duplicate
// keys (an error), a nesting limit, a cap on values, and messages in the tool's words with the
// file, line, column and key.

enum class JType { Null, Bool, Number, String, Array, Object };

const char* typeName(JType t) {
  switch (t) {
    case JType::Null: return "null";
    case JType::Bool: return "a boolean";
    case JType::Number: return "a number";
    case JType::String: return "a string";
    case JType::Array: return "an array";
    case JType::Object: return "an object";
  }
  return "?";
}

// A char iterator that publishes how far the parser has read: SAX callbacks carry no position.
struct TrackingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* p = nullptr;
  const char** cursor = nullptr;
  reference operator*() const { return *p; }
  TrackingIterator& operator++() {
    *cursor = ++p;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator t = *this;
    ++*this;
    return t;
  }
  bool operator==(const TrackingIterator& o) const { return p == o.p; }
  bool operator!=(const TrackingIterator& o) const { return p != o.p; }
};

// A value of interest: alpha, topics, or topics[i].
struct Capture {
  bool present = false;
  JType type = JType::Null;
  std::size_t offset = 0;
  std::vector<double> numbers;  // an array's leading run of numbers
  bool mixed = false;           // an element that is not a number follows: the first one is
  std::size_t badIndex = 0;
  JType badType = JType::Null;
  std::size_t badOffset = 0;
};

enum class Role { Root, Alpha, Topics, Row, Other };

class TruthSax {
 public:
  TruthSax(std::string_view text, const char* const* cursor, std::string source, const TruthShape& shape)
      : m_s(text), m_cursor(cursor), m_source(std::move(source)), m_shape(shape) {}

  Status status;
  JType rootType = JType::Null;
  std::size_t rootOffset = 0;
  Capture alpha, topics;
  bool topicsLeadingNumber = false;
  std::vector<Capture> rows;

  // "source line L column C" for a byte offset (column counted in bytes, 1-based).
  std::string where(std::size_t offset) const {
    long long line = 1;
    std::size_t lineStart = 0;
    for (std::size_t i = 0; i < offset && i < m_s.size(); ++i) {
      if (m_s[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    }
    return m_source + " line " + std::to_string(line) + " column " + std::to_string(offset - lineStart + 1);
  }

  bool null() { return scalar(JType::Null, here() - 4); }
  bool boolean(bool v) { return scalar(JType::Bool, here() - (v ? 4 : 5)); }
  bool number_integer(std::int64_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(std::uint64_t v) { return number(static_cast<double>(v)); }
  bool number_float(double v, const std::string&) { return number(v); }
  bool string(std::string&) { return scalar(JType::String, stringStart()); }
  bool binary(nlohmann::json::binary_t&) { return scalar(JType::Null, here()); }  // not produced by JSON text
  bool start_object(std::size_t) { return open(JType::Object); }
  bool start_array(std::size_t) { return open(JType::Array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(std::string& k) {
    Frame& f = m_frames.back();
    if (!f.keys.insert(k).second) return fail(badInput(where(stringStart()) + ": duplicate key " + quoteText(k)));
    f.pendingKey = k;
    return true;
  }

  bool parse_error(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& ex) {
    status = badInput(where(position ? position - 1 : 0) + ": " + describe(position, lastToken, ex));
    return false;
  }

 private:
  struct Frame {
    bool object;
    Role role;
    Capture* capture;  // for Alpha and Row arrays
    std::unordered_set<std::string> keys;
    std::string pendingKey;
    std::size_t count = 0;
  };

  std::size_t here() const { return static_cast<std::size_t>(*m_cursor - m_s.data()); }

  // The opening quote of the string that ends just before the cursor.
  std::size_t stringStart() const {
    for (std::size_t i = here() - 1; i-- > 0;) {
      if (m_s[i] != '"') continue;
      std::size_t slashes = 0;
      while (i >= slashes + 1 && m_s[i - slashes - 1] == '\\') ++slashes;
      if (slashes % 2 == 0) return i;
    }
    return 0;
  }

  bool fail(Status s) {
    status = std::move(s);
    return false;
  }

  bool countValue() {
    if (++m_values <= kMaxJsonValues) return true;
    return fail(Status(StatusCode::ResourceLimit, where(here()) + ": more than " + std::to_string(kMaxJsonValues) +
                                                      " JSON values that are not numbers in arrays; a truth file "
                                                      "holds one array per topic"));
  }

  // Where a new value goes, and what it is (alpha, topics, a topic, or nothing we keep).
  Role roleOfNext() {
    if (m_frames.empty()) return Role::Root;
    Frame& f = m_frames.back();
    if (f.object) {
      if (f.role != Role::Root) return Role::Other;
      return f.pendingKey == "alpha" ? Role::Alpha : f.pendingKey == "topics" ? Role::Topics : Role::Other;
    }
    return f.role == Role::Topics ? Role::Row : Role::Other;
  }

  Capture* captureFor(Role role, JType type, std::size_t offset) {
    Capture* c = nullptr;
    if (role == Role::Alpha) c = &alpha;
    if (role == Role::Topics) c = &topics;
    if (role == Role::Row) {
      if (m_frames.back().count == 0 && type == JType::Number) topicsLeadingNumber = true;
      c = &rows.emplace_back();
    }
    if (role == Role::Root) {
      rootType = type;
      rootOffset = offset;
    }
    if (c) {
      *c = Capture();
      c->present = true;
      c->type = type;
      c->offset = offset;
    }
    return c;
  }

  // An element of an alpha or topic array.
  void element(JType type, double value, std::size_t offset) {
    Frame& f = m_frames.back();
    if (!f.object && f.capture && !f.capture->mixed) {
      if (type == JType::Number) {
        f.capture->numbers.push_back(value);
      } else {
        f.capture->mixed = true;
        f.capture->badIndex = f.count;
        f.capture->badType = type;
        f.capture->badOffset = offset;
      }
    }
  }

  // The first character of the number just read (the lexer reads one character past it).
  std::size_t numberStart() const {
    const auto inNumber = [](char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; };
    std::size_t i = here();
    if (i > 0 && !inNumber(m_s[i - 1])) --i;
    while (i > 0 && inNumber(m_s[i - 1])) --i;
    return i;
  }

  bool number(double v) {
    const std::size_t start = numberStart();
    if (!m_frames.empty() && !m_frames.back().object) {  // packed: not counted
      // A topic longer than the vocabulary is refused as it is read, not after it filled memory.
      const Frame& f = m_frames.back();
      const std::size_t d = m_shape.vocabSize > 0 ? static_cast<std::size_t>(m_shape.vocabSize)
                                                  : static_cast<std::size_t>(kMaxVocabularySize);
      if (f.role == Role::Row && f.count >= d) {
        return fail(badInput(where(start) + ": topics[" + std::to_string(rows.size() - 1) + "] has more than " +
                             std::to_string(d) + " numbers, " +
                             (m_shape.vocabSize > 0 ? "the size of the corpus vocabulary"
                                                    : "the largest vocabulary the tool accepts")));
      }
      element(JType::Number, v, start);
      if (m_frames.back().role == Role::Topics) captureFor(Role::Row, JType::Number, start);
      ++m_frames.back().count;
      return true;
    }
    return scalar(JType::Number, start);
  }

  bool scalar(JType type, std::size_t offset) {
    if (!countValue()) return false;
    const Role role = roleOfNext();
    if (!m_frames.empty()) element(type, 0.0, offset);
    captureFor(role, type, offset);
    if (!m_frames.empty()) ++m_frames.back().count;
    return true;
  }

  bool open(JType type) {
    const std::size_t offset = here() - 1;
    if (!countValue()) return false;
    const Role role = roleOfNext();
    if (role == Role::Row && m_shape.maxTopics > 0 && rows.size() >= static_cast<std::size_t>(m_shape.maxTopics)) {
      return fail(badInput(where(offset) + ": more than " + std::to_string(m_shape.maxTopics) +
                           " topics, the number of topics fitted (--topics); errors need at least as many "
                           "fitted topics"));
    }
    if (!m_frames.empty()) element(type, 0.0, offset);
    Capture* c = captureFor(role, type, offset);
    // Every topic has as many numbers as the first: no doubling of its storage as it grows.
    if (role == Role::Row && rows.size() > 1) c->numbers.reserve(rows.front().numbers.size());
    if (!m_frames.empty()) ++m_frames.back().count;
    m_frames.push_back(Frame{type == JType::Object, role, (role == Role::Alpha || role == Role::Row) ? c : nullptr,
                             {}, {}, 0});
    if (m_frames.size() > kMaxDepth + 1) return fail(badInput(where(offset) + ": nesting deeper than " +
                                                              std::to_string(kMaxDepth) + " levels"));
    return true;
  }

  bool close() {
    m_frames.pop_back();
    return true;
  }

  std::string describeChar(std::size_t offset) const {
    if (offset >= m_s.size()) return "end of file";
    const unsigned char c = static_cast<unsigned char>(m_s[offset]);
    if (c >= 0x20 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof(buf), "byte 0x%02X", c);
    return buf;
  }

  // nlohmann's message ("syntax error while parsing CONTEXT - DETAIL; expected X") in the
  // tool's words; `position` is the number of bytes read, the offending one last.
  std::string describe(std::size_t position, const std::string& lastToken, const nlohmann::detail::exception& ex) const {
    const std::string what = ex.what();
    const std::size_t last = position ? position - 1 : 0;
    if (ex.id == 406) return "number " + lastToken.substr(0, 40) + " is too large for a double";
    std::string context;
    if (const auto at = what.find("while parsing "); at != std::string::npos)
      context = what.substr(at + 14, what.find(" - ", at) - at - 14);
    const std::string expected = context == "object key"        ? "a string key"
                                 : context == "object separator" ? "':'"
                                 : context == "object"           ? "',' or '}'"
                                 : context == "array"            ? "',' or ']'"
                                                                 : "a value";
    const auto has = [&](const char* s) { return what.find(s) != std::string::npos; };
    if (has("; last read: ")) {  // the lexer refused a token
      if (has("missing closing quote")) return "unterminated string";
      if (has("forbidden character after backslash"))
        return "invalid escape sequence " + quoteText(std::string("\\") + (last < m_s.size() ? m_s[last] : ' '));
      if (has("must be followed by 4 hex digits")) return "\\u must be followed by four hex digits";
      if (has("must be followed by U+DC00")) return "high surrogate in \\u escape not followed by a low surrogate";
      if (has("must follow U+D800")) return "unpaired low surrogate in \\u escape";
      if (has("control character")) {
        const auto at = what.find("U+");
        return "control character " + what.substr(at, what.find(')', at) + 1 - at) + " in a string (escape it)";
      }
      if (has("ill-formed UTF-8")) return "invalid UTF-8 in a string";
      if (has("expected digit after '-'")) return "a number needs digits after '-'";
      if (has("expected digit after '.'")) return "a number needs digits after '.'";
      if (has("exponent")) return "a number needs digits in its exponent";
      if (has("invalid literal")) {  // the token starts at the run of letters that ends here
        std::size_t i = std::min(last, m_s.size());
        while (i > 0 && std::isalpha(static_cast<unsigned char>(m_s[i - 1]))) --i;
        if (i < m_s.size() && i < last && (m_s[i] == 't' || m_s[i] == 'f' || m_s[i] == 'n'))
          return "invalid literal, expected true, false or null";
      }
      return "unexpected " + describeChar(last) + ", expected " + expected;
    }
    // A valid token in the wrong place.
    const std::size_t tokenStart = position >= lastToken.size() ? position - lastToken.size() : 0;
    std::string token = has("unexpected end of input") ? "end of file" : describeChar(tokenStart);
    if (has("unexpected number literal")) {
      if (tokenStart > 0 && m_s[tokenStart - 1] >= '0' && m_s[tokenStart - 1] <= '9')
        return "numbers may not have leading zeros";
      token = "number " + lastToken.substr(0, 40);
    } else if (has("unexpected string literal")) {
      token = "string";
    }
    if (context == "value" && has("expected end of input")) return "unexpected " + token + " after the JSON value";
    return "unexpected " + token + ", expected " + expected;
  }

  std::string_view m_s;
  const char* const* m_cursor;
  std::string m_source;
  TruthShape m_shape;
  std::vector<Frame> m_frames;
  long long m_values = 0;
};

// ---------------------------------------------------------------- truth.json shape

Status readNumberArray(const TruthSax& sax, const Capture& array, const std::string& name, std::vector<double>& out) {
  if (array.type != JType::Array) {
    return badInput(sax.where(array.offset) + ": \"" + name + "\" must be an array of numbers, got " +
                    typeName(array.type));
  }
  if (array.mixed) {
    return badInput(sax.where(array.badOffset) + ": " + name + "[" + std::to_string(array.badIndex) +
                    "] must be a number, got " + typeName(array.badType));
  }
  out = array.numbers;
  return Status::ok();
}

}  // namespace

Status validateLdaModel(const LdaModel& m) {
  const long long k = m.alpha.size();
  const long long d = m.topics.rows();
  if (k < 1) return badInput("alpha must have at least one entry, got none");
  if (m.topics.cols() != k) {
    return badInput("alpha has " + std::to_string(k) + " entries but there are " +
                    std::to_string(m.topics.cols()) + " topics");
  }
  if (d < 1) return badInput("topics must have at least one word, got 0");
  if (k > d) {
    return badInput("there are more topics (" + std::to_string(k) + ") than words (" + std::to_string(d) +
                    ")");
  }
  for (long long i = 0; i < k; ++i) {
    const double a = m.alpha[i];
    if (!std::isfinite(a) || a <= 0.0) {
      return badInput("alpha[" + std::to_string(i) + "] must be a finite number > 0, got " + num(a));
    }
  }
  // alpha0 = sum alpha_i, in the range every other part of the tool accepts (core/corpus/corpus.h);
  // the margin covers the rounding of a generator's alpha0 * Dirichlet shares at the limit.
  if (m.alpha.sum() > kMaxAlpha0 * (1.0 + 1e-12)) {
    return badInput("alpha sums to alpha0 = " + num(m.alpha.sum()) + ", above the limit of " +
                    std::to_string(static_cast<long long>(kMaxAlpha0)));
  }
  for (long long i = 0; i < k; ++i) {
    double sum = 0.0;
    for (long long w = 0; w < d; ++w) {
      const double x = m.topics(w, i);
      if (!std::isfinite(x) || x < 0.0) {
        return badInput("topics[" + std::to_string(i) + "][" + std::to_string(w) +
                        "] must be a finite number >= 0, got " + num(x));
      }
      sum += x;
    }
    if (std::abs(sum - 1.0) > kSimplexTolerance) {
      return badInput("topics[" + std::to_string(i) + "] sums to " + num(sum) + ", not 1 (tolerance 1e-6)");
    }
  }
  return Status::ok();
}

std::string truthToJson(const LdaModel& m) {
  std::string out = "{\n  \"alpha\": [";
  for (Eigen::Index i = 0; i < m.alpha.size(); ++i) {
    if (i) out += ", ";
    out += num(m.alpha[i]);
  }
  out += "],\n  \"topics\": [\n";
  for (Eigen::Index i = 0; i < m.topics.cols(); ++i) {
    out += "    [";
    for (Eigen::Index w = 0; w < m.topics.rows(); ++w) {
      if (w) out += ", ";
      out += num(m.topics(w, i));
    }
    out += i + 1 < m.topics.cols() ? "],\n" : "]\n";
  }
  out += "  ]\n}\n";
  return out;
}

Status writeTruthJson(const LdaModel& model, const std::string& pathText, const OutputRules& rules) {
  if (pathText.empty()) return invalidArgument("the truth.json path is empty");
  const std::string path = escapeText(pathText);
  const Status valid = validateLdaModel(model);
  if (!valid.isOk()) return Status(valid.code(), "cannot write " + path + ": " + valid.message());
  const std::string text = truthToJson(model);
  if (text.size() > static_cast<std::size_t>(kMaxJsonBytes)) {  // never a file the readers refuse
    return Status(StatusCode::ResourceLimit, "cannot write " + path + ": its " + std::to_string(model.vocabSize()) +
                                                 " x " + std::to_string(model.topicCount()) + " topics take " +
                                                 std::to_string(text.size()) + " bytes, more than the 1 GiB truth.json readers accept");
  }
  return writeFileAtomically(pathText, text, rules);
}

Result<LdaModel> parseTruthJson(std::string_view text, const std::string& sourceNameText, const TruthShape& shape) {
  const std::string sourceName = escapeText(sourceNameText);
  const char* cursor = text.data();
  TruthSax sax(text, &cursor, sourceName, shape);
  std::size_t start = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;  // UTF-8 BOM
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t' || text[start] == '\n' || text[start] == '\r'))
    ++start;
  if (start >= text.size()) return badInput(sax.where(start) + ": the file is empty, expected a JSON value");
  const TrackingIterator first{text.data(), &cursor}, end{text.data() + text.size(), &cursor};
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(first, end, &sax);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::ResourceLimit, sourceName + ": not enough memory to read it");
  }
  if (!parsed) return sax.status.isOk() ? badInput(sourceName + ": not valid JSON") : sax.status;
  if (sax.rootType != JType::Object) {
    return badInput(sax.where(sax.rootOffset) + ": expected an object {\"alpha\": [...], \"topics\": [...]}, got " +
                    typeName(sax.rootType));
  }
  if (!sax.alpha.present) return badInput(sourceName + ": the key \"alpha\" is missing");
  if (!sax.topics.present) return badInput(sourceName + ": the key \"topics\" is missing");

  std::vector<double> alpha;
  DPLDA_RETURN_IF_ERROR(readNumberArray(sax, sax.alpha, "alpha", alpha));
  if (sax.topics.type != JType::Array) {
    return badInput(sax.where(sax.topics.offset) + ": \"topics\" must be an array of arrays, got " +
                    typeName(sax.topics.type));
  }
  if (sax.topicsLeadingNumber) {
    return badInput(sax.where(sax.topics.offset) + ": \"topics\" must be an array of arrays, but topics[0]" +
                    " is a number");
  }
  const std::size_t k = sax.rows.size();
  if (alpha.size() != k) {
    return badInput(sourceName + ": alpha has " + std::to_string(alpha.size()) + " entries but topics has " +
                    std::to_string(k) + " arrays");
  }
  if (k == 0) return badInput(sourceName + ": alpha and topics are empty, need at least one topic");
  std::vector<double> column;
  LdaModel model;
  model.alpha = Eigen::Map<const Eigen::VectorXd>(alpha.data(), static_cast<Eigen::Index>(k));
  for (std::size_t i = 0; i < k; ++i) {
    const std::string name = "topics[" + std::to_string(i) + "]";
    DPLDA_RETURN_IF_ERROR(readNumberArray(sax, sax.rows[i], name, column));
    if (i == 0) {
      if (column.empty()) return badInput(sax.where(sax.rows[0].offset) + ": topics[0] is empty");
      model.topics.resize(static_cast<Eigen::Index>(column.size()), static_cast<Eigen::Index>(k));
    } else if (static_cast<Eigen::Index>(column.size()) != model.topics.rows()) {
      return badInput(sax.where(sax.rows[i].offset) + ": " + name + " has " + std::to_string(column.size()) +
                      " numbers but topics[0] has " + std::to_string(model.topics.rows()));
    }
    model.topics.col(static_cast<Eigen::Index>(i)) =
        Eigen::Map<const Eigen::VectorXd>(column.data(), static_cast<Eigen::Index>(column.size()));
    std::vector<double>().swap(sax.rows[i].numbers);  // copied: freed now, not with the whole parse
  }
  const Status valid = validateLdaModel(model);
  if (!valid.isOk()) return Status(valid.code(), sourceName + ": " + valid.message());
  return model;
}

Result<LdaModel> readTruthJson(const std::string& pathText, const TruthShape& shape) {
  namespace fs = std::filesystem;
  if (pathText.empty()) return invalidArgument("the truth.json path is empty");
  const std::string path = escapeText(pathText);
  std::error_code ec;
  DPLDA_RETURN_IF_ERROR(requireRegularFile(pathText));  // a FIFO or device is refused, not waited on
  const auto size = fs::file_size(pathText, ec);
  if (ec) return ioError("cannot read " + path + ": " + ec.message());
  if (size > static_cast<std::uintmax_t>(kMaxJsonBytes)) {
    return Status(StatusCode::ResourceLimit, path + " is larger than 1 GiB");
  }
  // The text, the topics as read (8 bytes a number, at most d x k of them when the shape is
  // known, else up to one per 2 bytes of text) and the model they are copied into.
  const double numbers = shape.vocabSize > 0 && shape.maxTopics > 0
                             ? std::min(static_cast<double>(size) / 2.0, static_cast<double>(shape.vocabSize) * shape.maxTopics)
                             : static_cast<double>(size) / 2.0;
  DPLDA_RETURN_IF_ERROR(checkMemory(static_cast<double>(size) + 2.0 * 8.0 * numbers, "reading " + path,
                                    "its text and the topics it holds"));
  auto text = readFileText(pathText, size);
  if (!text.ok()) return text.status();
  return parseTruthJson(text.value(), pathText, shape);
}

}  // namespace dplda
