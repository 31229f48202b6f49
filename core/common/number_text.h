#pragma once
// Numbers in messages and reports: four significant digits ("0.0004388", "1e+05"), and
// "nan" / "inf" / "-inf" for the non-finite.
#include <string>

namespace dplda {

std::string shortNumber(double x);

}  // namespace dplda
