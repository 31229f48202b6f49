#pragma once
// A strict "--name value" / "--flag" parser for the dplda subcommands. Unknown options,
// missing values and unparsable numbers are usage errors (exit status 2) naming the option.
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
  std::uint64_t seed(const std::string& name, std::uint64_t fallback) const;
  double number(const std::string& name) const;  // required, finite
  double number(const std::string& name, double fallback) const;

 private:
  std::map<std::string, std::string> m_values;
  std::set<std::string> m_flags;
};

}  // namespace dplda::cli
