#pragma once
// report.md for the online-tpm and dp-tpm experiments (same layout as report.h's: header,
// parameters, seeds, result tables with what they show, tables, timing, figures).
#include <string>

#include "core/experiments/dp_tpm.h"
#include "core/experiments/online_tpm.h"
#include "core/experiments/report.h"

namespace dplda {

std::string onlineTpmReportMarkdown(const OnlineTpmResult& result, const ReportContext& context);
std::string dpTpmReportMarkdown(const DpTpmResult& result, const ReportContext& context);

// The log-log slope of the recovery ε against μ0 over the cases of `group` with dimension d
// (least squares over the cases whose recovery ε is finite; NaN below two).
double dpTpmRecoverySlope(const DpTpmResult& result, const std::string& group, int d);

}  // namespace dplda
