#include "app/cli/arguments.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dplda::cli {

Arguments::Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
                     const std::set<std::string>& flags) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "'");
    std::string name = a.substr(2);
    std::optional<std::string> inlineValue;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (flags.count(name)) {
      if (inlineValue) throw UsageError("option --" + name + " takes no value");
      m_flags.insert(name);
    } else if (valueOptions.count(name)) {
      if (inlineValue) {
        m_values[name] = *inlineValue;
      } else {
        if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
        m_values[name] = args[++i];
      }
    } else {
      throw UsageError("unknown option --" + name);
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
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || x < std::numeric_limits<int>::min() ||
      x > std::numeric_limits<int>::max()) {
    throw UsageError("option --" + name + " needs an integer, got '" + v + "'");
  }
  return static_cast<int>(x);
}

int Arguments::integer(const std::string& name, int fallback) const {
  return m_values.count(name) ? integer(name) : fallback;
}

std::uint64_t Arguments::seed(const std::string& name, std::uint64_t fallback) const {
  if (!m_values.count(name)) return fallback;
  const std::string v = text(name);
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || *end != '\0' || errno == ERANGE) {
    throw UsageError("option --" + name + " needs a non-negative integer seed, got '" + v + "'");
  }
  return x;
}

double Arguments::number(const std::string& name) const {
  const std::string v = text(name);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0') throw UsageError("option --" + name + " needs a number, got '" + v + "'");
  if (!std::isfinite(x)) throw UsageError("option --" + name + " needs a finite number, got '" + v + "'");
  return x;
}

double Arguments::number(const std::string& name, double fallback) const {
  return m_values.count(name) ? number(name) : fallback;
}

}  // namespace dplda::cli
