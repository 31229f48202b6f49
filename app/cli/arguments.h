#pragma once
// A strict "--name value" / "--flag" parser for the dplda subcommands. Unknown options,
// missing or empty values, options given twice and unparsable numbers are usage errors (exit
// status 2) naming the option; the value is quoted with its control bytes escaped. Numbers are
// decimal as typed (no blanks, hexadecimal, inf or nan); integers are digits with an optional '-'.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace dplda::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Bad input data (files, corpora, values out of the model's range): exit status 3.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The grammar of Arguments::number and Arguments::count, for list options ("1,2,5"): true and
// the value when `text` is a finite decimal number / digits only (at most 18).
bool parseDecimalNumber(const std::string& text, double& value);
bool parseDigits(const std::string& text, long long& value);

class Arguments {
 public:
  // valueOptions take a value, flags do not; anything else is a usage error.
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueOptions,
            const std::set<std::string>& flags);

  bool has(const std::string& name) const { return m_values.count(name) || m_flags.count(name); }
  bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
  std::string text(const std::string& name) const;  // required
  std::string text(const std::string& name, const std::string& fallback) const;
  int integer(const std::string& name) const;  // required
  int integer(const std::string& name, int fallback) const;
  // A count in lo..hi (lo >= 0) written as digits only: "-0", "+3" and " 3" are refused.
  int count(const std::string& name, int lo, int hi) const;  // required
  int count(const std::string& name, int lo, int hi, int fallback) const;
  std::uint64_t seed(const std::string& name, std::uint64_t fallback) const;
  double number(const std::string& name) const;  // required, finite
  double number(const std::string& name, double fallback) const;

 private:
  std::map<std::string, std::string> m_values;
  std::set<std::string> m_flags;
};

}  // namespace dplda::cli
