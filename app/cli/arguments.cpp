#include "app/cli/arguments.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/common/text_escape.h"

namespace dplda::cli {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Digits only (at least one): no sign, no blanks, no "0x".
bool allDigits(const std::string& v) {
  if (v.empty()) return false;
  for (char c : v)
    if (!isDigit(c)) return false;
  return true;
}

// A decimal number as a person types it: [+-]digits[.digits][(e|E)[+-]digits] (or .5, 5.):
// no blanks, no hexadecimal, no "inf" or "nan" (strtod takes all of those).
bool isDecimalNumber(const std::string& v) {
  std::size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < v.size() && isDigit(v[i])) ++i, ++digits;
  if (i < v.size() && v[i] == '.') {
    ++i;
    while (i < v.size() && isDigit(v[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
    ++i;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
    std::size_t expDigits = 0;
    while (i < v.size() && isDigit(v[i])) ++i, ++expDigits;
    if (expDigits == 0) return false;
  }
  return i == v.size();
}

bool namesInfinityOrNan(std::string v) {
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.erase(0, 1);
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "inf" || v == "infinity" || v == "nan";
}

}  // namespace

bool parseDecimalNumber(const std::string& text, double& value) {
  if (!isDecimalNumber(text)) return false;
  const double x = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(x)) return false;
  value = x;
  return true;
}

bool parseDigits(const std::string& text, long long& value) {
  if (!allDigits(text) || text.size() > 18) return false;
  value = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument " + quoteText(a));
    std::string name = a.substr(2);
    std::optional<std::string> inlineValue;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flags.count(name)) {
      if (inlineValue) throw UsageError("option --" + escapeText(name) + " takes no value");
      m_flags.insert(name);
    } else if (valueOptions.count(name)) {
      std::string value;
      if (inlineValue) {
        value = *inlineValue;
      } else {
        if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
        value = args[++i];
      }
      // An empty value is a slip (an unset shell variable), never a choice: `--json ''` used to
      // reach Qt, which printed a warning line of its own.
      if (value.empty()) throw UsageError("option --" + name + " needs a value, got an empty string");
      if (m_values.count(name)) throw UsageError("option --" + name + " is given more than once");
      m_values[name] = value;
    } else {
      throw UsageError("unknown option --" + escapeText(name));
    }
  }
}

std::string Arguments::text(const std::string& name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) throw UsageError("missing required option --" + name);
  return it->second;
}

std::string Arguments::text(const std::string& name, const std::string& fallback) const {
  auto it = m_values.find(name);
  return it == m_values.end() ? fallback : it->second;
}

int Arguments::integer(const std::string& name) const {
  const std::string v = text(name);
  const bool negative = !v.empty() && v[0] == '-';
  const std::string digits = negative ? v.substr(1) : v;
  errno = 0;
  const long long x = allDigits(digits) ? std::strtoll(v.c_str(), nullptr, 10) : 0;
  if (!allDigits(digits) || errno == ERANGE || x < std::numeric_limits<int>::min() ||
      x > std::numeric_limits<int>::max()) {
    throw UsageError("option --" + name + " needs an integer, got " + quoteText(v));
  }
  return static_cast<int>(x);
}

int Arguments::integer(const std::string& name, int fallback) const {
  return m_values.count(name) ? integer(name) : fallback;
}

int Arguments::count(const std::string& name, int lo, int hi, int fallback) const {
  return m_values.count(name) ? count(name, lo, hi) : fallback;
}

int Arguments::count(const std::string& name, int lo, int hi) const {
  const std::string v = text(name);
  long long x = -1;
  if (!parseDigits(v, x) || x < lo || x > hi) {
    throw UsageError("option --" + name + " needs a whole number in " + std::to_string(lo) + ".." +
                     std::to_string(hi) + ", got " + quoteText(v));
  }
  return static_cast<int>(x);
}

std::uint64_t Arguments::seed(const std::string& name, std::uint64_t fallback) const {
  if (!m_values.count(name)) return fallback;
  const std::string v = text(name);
  errno = 0;
  const unsigned long long x = allDigits(v) ? std::strtoull(v.c_str(), nullptr, 10) : 0;
  if (!allDigits(v) || errno == ERANGE) {
    throw UsageError("option --" + name + " needs a non-negative integer seed, got " + quoteText(v));
  }
  return x;
}

double Arguments::number(const std::string& name) const {
  const std::string v = text(name);
  if (namesInfinityOrNan(v)) throw UsageError("option --" + name + " needs a finite number, got " + quoteText(v));
  if (!isDecimalNumber(v)) throw UsageError("option --" + name + " needs a number, got " + quoteText(v));
  const double x = std::strtod(v.c_str(), nullptr);
  if (!std::isfinite(x)) throw UsageError("option --" + name + " needs a finite number, got " + quoteText(v));
  return x;
}

double Arguments::number(const std::string& name, double fallback) const {
  return m_values.count(name) ? number(name) : fallback;
}

}  // namespace dplda::cli
