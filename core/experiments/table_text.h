#pragma once
// Small text helpers for the experiment tables and reports (no Qt): CSV cells and numbers in
// the shortest form that reads back to the same double, so equal results give equal files.
#include <string>

#include "core/common/number_text.h"

namespace dplda {

// Shortest round-trip text of x (std::to_chars); "nan", "inf", "-inf" for non-finite values.
std::string csvNumberText(double x);
// As csvNumberText, but an empty cell for NaN (a value that does not apply).
std::string csvOptional(double x);
// Quotes a CSV cell when it holds a comma, quote or line break (RFC 4180).
std::string csvCell(const std::string& text);
// shortNumber (core/common/number_text.h) gives the compact form for reports.

}  // namespace dplda
