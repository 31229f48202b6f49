#include "core/common/status.h"

namespace dplda {

const char* statusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::Ok: return "ok";
    case StatusCode::InvalidArgument: return "invalid_argument";
    case StatusCode::BadInput: return "bad_input";
    case StatusCode::IoError: return "io_error";
    case StatusCode::NumericalFailure: return "numerical_failure";
    case StatusCode::NotConverged: return "not_converged";
    case StatusCode::Cancelled: return "cancelled";
    case StatusCode::ResourceLimit: return "resource_limit";
    case StatusCode::NothingReleased: return "nothing_released";
  }
  return "unknown";
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  return std::string(statusCodeName(m_code)) + ": " + m_message;
}

}  // namespace dplda
