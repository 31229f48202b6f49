#include "core/experiments/table_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace dplda {

std::string csvNumberText(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string csvOptional(double x) { return std::isnan(x) ? std::string() : csvNumberText(x); }

std::string csvCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace dplda
