#include "core/corpus/truth_io.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <vector>

#include "core/common/text_escape.h"

#include "core/corpus/text_import.h"

namespace dplda {

namespace {

constexpr double kSimplexTolerance = 1e-6;
constexpr int kMaxDepth = 256;
constexpr long long kMaxJsonBytes = 1LL << 30;
// Parsed values other than the numbers of number arrays (which are packed, 8 bytes each): a
// truth holds k + 3 of them (k <= d <= kMaxVocabularySize). Each costs about 130 bytes, so
// without a cap a file of "[],[],..." would take 40 times its size.
constexpr long long kMaxJsonValues = 2 * static_cast<long long>(kMaxVocabularySize) + 16;

std::string num(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

// ---------------------------------------------------------------- a small JSON value parser

struct JsonValue {
  enum class Type { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  double number = 0.0;
  std::string text;               // String
  // Array: its leading run of numbers, packed (truth.json's arrays are all numbers or all arrays),
  // then the elements from the first non-number on. Element i is numbers[i] for i < numbers.size(),
  // else items[i - numbers.size()].
  std::vector<double> numbers;
  std::vector<JsonValue> items;   // Array elements after `numbers`, or Object values
  std::vector<std::string> keys;  // Object keys, parallel to items
  std::size_t offset = 0;         // where the value starts in the source

  std::size_t arraySize() const { return numbers.size() + items.size(); }

  const JsonValue* member(std::string_view key) const {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &items[i];
    }
    return nullptr;
  }
};

const char* typeName(JsonValue::Type t) {
  switch (t) {
    case JsonValue::Type::Null:
      return "null";
    case JsonValue::Type::Bool:
      return "a boolean";
    case JsonValue::Type::Number:
      return "a number";
    case JsonValue::Type::String:
      return "a string";
    case JsonValue::Type::Array:
      return "an array";
    case JsonValue::Type::Object:
      return "an object";
  }
  return "?";
}

class JsonParser {
 public:
  // `source` is the file name as shown in messages (escaped by the caller).
  JsonParser(std::string_view text, std::string source) : m_s(text), m_source(std::move(source)) {}

  Result<JsonValue> parseDocument() {
    if (m_s.size() >= 3 && m_s.substr(0, 3) == "\xEF\xBB\xBF") m_pos = 3;  // UTF-8 BOM
    skipSpace();
    if (m_pos >= m_s.size()) return fail("the file is empty, expected a JSON value");
    JsonValue v;
    DPLDA_RETURN_IF_ERROR(parseValue(v, 0));
    skipSpace();
    if (m_pos < m_s.size()) return fail("unexpected " + describeHere() + " after the JSON value");
    return v;
  }

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

 private:
  Status fail(const std::string& what) const { return badInput(where(m_pos) + ": " + what); }

  std::string describeHere() const {
    if (m_pos >= m_s.size()) return "end of file";
    const unsigned char c = static_cast<unsigned char>(m_s[m_pos]);
    if (c >= 0x20 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
    char buf[16];
    std::snprintf(buf, sizeof(buf), "byte 0x%02X", c);
    return buf;
  }

  void skipSpace() {
    while (m_pos < m_s.size()) {
      const char c = m_s[m_pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++m_pos;
    }
  }

  bool consumeLiteral(std::string_view word) {
    if (m_s.substr(m_pos, word.size()) != word) return false;
    m_pos += word.size();
    return true;
  }

  // Counts a value that is not a packed number against kMaxJsonValues.
  Status countValue() {
    if (++m_values > kMaxJsonValues) {
      return Status(StatusCode::ResourceLimit, where(m_pos) + ": more than " + std::to_string(kMaxJsonValues) +
                                                   " JSON values that are not numbers in arrays; a truth file holds " +
                                                   "one array per topic");
    }
    return Status::ok();
  }

  Status parseValue(JsonValue& v, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    DPLDA_RETURN_IF_ERROR(countValue());
    v.offset = m_pos;
    if (m_pos >= m_s.size()) return fail("unexpected end of file, expected a value");
    const char c = m_s[m_pos];
    switch (c) {
      case '{':
        return parseObject(v, depth);
      case '[':
        return parseArray(v, depth);
      case '"':
        v.type = JsonValue::Type::String;
        return parseString(v.text);
      case 't':
      case 'f':
      case 'n':
        if (consumeLiteral("true")) {
          v.type = JsonValue::Type::Bool;
          v.boolean = true;
        } else if (consumeLiteral("false")) {
          v.type = JsonValue::Type::Bool;
        } else if (consumeLiteral("null")) {
          v.type = JsonValue::Type::Null;
        } else {
          return fail("invalid literal, expected true, false or null");
        }
        return Status::ok();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parseNumber(v);
        return fail("unexpected " + describeHere() + ", expected a value");
    }
  }

  Status parseObject(JsonValue& v, int depth) {
    v.type = JsonValue::Type::Object;
    std::unordered_set<std::string> seen;  // duplicate keys in O(1) each, not O(keys)
    ++m_pos;  // '{'
    skipSpace();
    if (m_pos < m_s.size() && m_s[m_pos] == '}') {
      ++m_pos;
      return Status::ok();
    }
    for (;;) {
      skipSpace();
      if (m_pos >= m_s.size() || m_s[m_pos] != '"') {
        return fail("unexpected " + describeHere() + ", expected a string key");
      }
      const std::size_t keyPos = m_pos;
      std::string key;
      DPLDA_RETURN_IF_ERROR(parseString(key));
      if (!seen.insert(key).second) return badInput(where(keyPos) + ": duplicate key " + quoteText(key));
      skipSpace();
      if (m_pos >= m_s.size() || m_s[m_pos] != ':')
        return fail("unexpected " + describeHere() + ", expected ':'");
      ++m_pos;
      skipSpace();
      v.keys.push_back(std::move(key));
      v.items.emplace_back();
      DPLDA_RETURN_IF_ERROR(parseValue(v.items.back(), depth + 1));
      skipSpace();
      if (m_pos < m_s.size() && m_s[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_s.size() && m_s[m_pos] == '}') {
        ++m_pos;
        return Status::ok();
      }
      return fail("unexpected " + describeHere() + ", expected ',' or '}'");
    }
  }

  Status parseArray(JsonValue& v, int depth) {
    v.type = JsonValue::Type::Array;
    ++m_pos;  // '['
    skipSpace();
    if (m_pos < m_s.size() && m_s[m_pos] == ']') {
      ++m_pos;
      return Status::ok();
    }
    for (;;) {
      skipSpace();
      const char c = m_pos < m_s.size() ? m_s[m_pos] : '\0';
      if (v.items.empty() && (c == '-' || (c >= '0' && c <= '9'))) {
        JsonValue number;
        DPLDA_RETURN_IF_ERROR(parseNumber(number));
        v.numbers.push_back(number.number);
      } else {
        v.items.emplace_back();
        DPLDA_RETURN_IF_ERROR(parseValue(v.items.back(), depth + 1));
      }
      skipSpace();
      if (m_pos < m_s.size() && m_s[m_pos] == ',') {
        ++m_pos;
        continue;
      }
      if (m_pos < m_s.size() && m_s[m_pos] == ']') {
        ++m_pos;
        return Status::ok();
      }
      return fail("unexpected " + describeHere() + ", expected ',' or ']'");
    }
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool parseHex4(unsigned& out) {
    if (m_pos + 4 > m_s.size()) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hexValue(m_s[m_pos + i]);
      if (h < 0) return false;
      out = out * 16 + static_cast<unsigned>(h);
    }
    m_pos += 4;
    return true;
  }

  static void appendUtf8(unsigned cp, std::string& out) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  Status parseString(std::string& out) {
    ++m_pos;  // opening quote
    out.clear();
    for (;;) {
      if (m_pos >= m_s.size()) return fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(m_s[m_pos]);
      if (c == '"') {
        ++m_pos;
        return Status::ok();
      }
      if (c < 0x20) return fail("control character in a string (escape it)");
      if (c == '\\') {
        ++m_pos;
        if (m_pos >= m_s.size()) return fail("unterminated string");
        const char e = m_s[m_pos++];
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case '/':
            out += '/';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case 'n':
            out += '\n';
            break;
          case 'r':
            out += '\r';
            break;
          case 't':
            out += '\t';
            break;
          case 'u': {
            unsigned cp = 0;
            if (!parseHex4(cp)) return fail("\\u must be followed by four hex digits");
            if (cp >= 0xDC00 && cp <= 0xDFFF) return fail("unpaired low surrogate in \\u escape");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              unsigned low = 0;
              if (!(consumeLiteral("\\u") && parseHex4(low)) || low < 0xDC00 || low > 0xDFFF) {
                return fail("high surrogate in \\u escape not followed by a low surrogate");
              }
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            appendUtf8(cp, out);
            break;
          }
          default:
            --m_pos;
            return fail("invalid escape sequence " + quoteText(std::string("\\") + e));
        }
        continue;
      }
      if (c < 0x80) {
        out += static_cast<char>(c);
        ++m_pos;
        continue;
      }
      // A multi-byte UTF-8 sequence: validate it as a unit.
      const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      const std::string_view seq = m_s.substr(m_pos, len);
      if (seq.size() != len || findInvalidUtf8(seq) >= 0) return fail("invalid UTF-8 in a string");
      out.append(seq);
      m_pos += len;
    }
  }

  Status parseNumber(JsonValue& v) {
    const std::size_t start = m_pos;
    auto digits = [&]() {
      const std::size_t from = m_pos;
      while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9') ++m_pos;
      return m_pos - from;
    };
    if (m_s[m_pos] == '-') ++m_pos;
    const std::size_t intStart = m_pos;
    const std::size_t intDigits = digits();
    if (intDigits == 0) return fail("a number needs digits after '-'");
    if (intDigits > 1 && m_s[intStart] == '0') {
      m_pos = intStart;
      return fail("numbers may not have leading zeros");
    }
    bool negativeExponent = false;
    if (m_pos < m_s.size() && m_s[m_pos] == '.') {
      ++m_pos;
      if (digits() == 0) return fail("a number needs digits after '.'");
    }
    if (m_pos < m_s.size() && (m_s[m_pos] == 'e' || m_s[m_pos] == 'E')) {
      ++m_pos;
      if (m_pos < m_s.size() && (m_s[m_pos] == '+' || m_s[m_pos] == '-')) {
        negativeExponent = m_s[m_pos] == '-';
        ++m_pos;
      }
      if (digits() == 0) return fail("a number needs digits in its exponent");
    }
    const std::string_view token = m_s.substr(start, m_pos - start);
    double value = 0.0;
    const auto res = std::from_chars(token.data(), token.data() + token.size(), value);
    if (res.ec == std::errc::result_out_of_range) {
      // Underflow reads as (signed) zero; overflow is an error, JSON has no infinity.
      const bool tiny = negativeExponent || m_s[intStart] == '0';
      if (!tiny) {
        m_pos = start;
        return fail("number " + std::string(token.substr(0, 40)) + " is too large for a double");
      }
      value = token[0] == '-' ? -0.0 : 0.0;
    } else if (res.ec != std::errc() || res.ptr != token.data() + token.size()) {
      m_pos = start;
      return fail("cannot read the number " + std::string(token.substr(0, 40)));
    }
    v.type = JsonValue::Type::Number;
    v.number = value;
    return Status::ok();
  }

  std::string_view m_s;
  std::string m_source;
  std::size_t m_pos = 0;
  long long m_values = 0;
};

// ---------------------------------------------------------------- truth.json shape

Status readNumberArray(const JsonParser& parser, const JsonValue& array, const std::string& name,
                       std::vector<double>& out) {
  if (array.type != JsonValue::Type::Array) {
    return badInput(parser.where(array.offset) + ": \"" + name + "\" must be an array of numbers, got " +
                    typeName(array.type));
  }
  if (!array.items.empty()) {  // the first element that is not a number (see JsonValue)
    const JsonValue& e = array.items.front();
    return badInput(parser.where(e.offset) + ": " + name + "[" + std::to_string(array.numbers.size()) +
                    "] must be a number, got " + typeName(e.type));
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

Status writeTruthJson(const LdaModel& model, const std::string& pathText) {
  if (pathText.empty()) return invalidArgument("the truth.json path is empty");
  const std::string path = escapeText(pathText);
  const Status valid = validateLdaModel(model);
  if (!valid.isOk()) return Status(valid.code(), "cannot write " + path + ": " + valid.message());
  const std::string text = truthToJson(model);
  std::FILE* f = std::fopen(pathText.c_str(), "wb");
  if (!f) return ioError("cannot create " + path + ": " + std::strerror(errno));
  const bool wrote = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  if (!wrote || !closed) return ioError("cannot write " + path + ": " + std::strerror(errno));
  return Status::ok();
}

Result<LdaModel> parseTruthJson(std::string_view text, const std::string& sourceNameText) {
  const std::string sourceName = escapeText(sourceNameText);
  JsonParser parser(text, sourceName);
  auto doc = parser.parseDocument();
  if (!doc.ok()) return doc.status();
  const JsonValue& root = doc.value();
  if (root.type != JsonValue::Type::Object) {
    return badInput(parser.where(root.offset) +
                    ": expected an object {\"alpha\": [...], \"topics\": [...]}, got " + typeName(root.type));
  }
  const JsonValue* alphaValue = root.member("alpha");
  const JsonValue* topicsValue = root.member("topics");
  if (!alphaValue) return badInput(sourceName + ": the key \"alpha\" is missing");
  if (!topicsValue) return badInput(sourceName + ": the key \"topics\" is missing");

  std::vector<double> alpha;
  DPLDA_RETURN_IF_ERROR(readNumberArray(parser, *alphaValue, "alpha", alpha));
  if (topicsValue->type != JsonValue::Type::Array) {
    return badInput(parser.where(topicsValue->offset) + ": \"topics\" must be an array of arrays, got " +
                    typeName(topicsValue->type));
  }
  if (!topicsValue->numbers.empty()) {
    return badInput(parser.where(topicsValue->offset) + ": \"topics\" must be an array of arrays, but topics[0]" +
                    " is a number");
  }
  const std::size_t k = topicsValue->items.size();
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
    DPLDA_RETURN_IF_ERROR(readNumberArray(parser, topicsValue->items[i], name, column));
    if (i == 0) {
      if (column.empty())
        return badInput(parser.where(topicsValue->items[0].offset) + ": topics[0] is empty");
      model.topics.resize(static_cast<Eigen::Index>(column.size()), static_cast<Eigen::Index>(k));
    } else if (static_cast<Eigen::Index>(column.size()) != model.topics.rows()) {
      return badInput(parser.where(topicsValue->items[i].offset) + ": " + name + " has " +
                      std::to_string(column.size()) + " numbers but topics[0] has " +
                      std::to_string(model.topics.rows()));
    }
    model.topics.col(static_cast<Eigen::Index>(i)) =
        Eigen::Map<const Eigen::VectorXd>(column.data(), static_cast<Eigen::Index>(column.size()));
  }
  const Status valid = validateLdaModel(model);
  if (!valid.isOk()) return Status(valid.code(), sourceName + ": " + valid.message());
  return model;
}

Result<LdaModel> readTruthJson(const std::string& pathText) {
  namespace fs = std::filesystem;
  if (pathText.empty()) return invalidArgument("the truth.json path is empty");
  const std::string path = escapeText(pathText);
  std::error_code ec;
  if (!fs::exists(pathText, ec)) return ioError("file not found: " + path);
  if (fs::is_directory(pathText, ec)) return ioError("expected a file but found a folder: " + path);
  const auto size = fs::file_size(pathText, ec);
  if (ec) return ioError("cannot read " + path + ": " + ec.message());
  if (size > static_cast<std::uintmax_t>(kMaxJsonBytes)) {
    return Status(StatusCode::ResourceLimit, path + " is larger than 1 GiB");
  }
  std::ifstream in(pathText, std::ios::binary);
  if (!in) return ioError("cannot open " + path + ": " + std::strerror(errno));
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.bad()) return ioError("cannot read " + path + ": " + std::strerror(errno));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return parseTruthJson(text, pathText);
}

}  // namespace dplda
