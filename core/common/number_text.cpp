#include "core/common/number_text.h"

#include <cmath>
#include <cstdio>

namespace dplda {

std::string shortNumber(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

}  // namespace dplda
