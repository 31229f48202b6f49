#pragma once
// Status and Result: how core reports invalid input and numerical outcomes without
// exceptions crossing threads. Every message names the parameter (or file/line) and value.
#include <optional>
#include <string>
#include <utility>

namespace dplda {

enum class StatusCode {
  Ok,
  InvalidArgument,   // a parameter out of range (user input)
  BadInput,          // malformed or inconsistent data (files, corpora)
  IoError,           // a file that cannot be opened, read or written
  NumericalFailure,  // e.g. sigma_k <= 0, a bound whose precondition fails
  NotConverged,      // an iterative method stopped at its iteration limit
  Cancelled,         // the user cancelled through Feedback
  ResourceLimit,     // refused because it would need too much memory or time
  NothingReleased,   // a private release was refused (Procedure 1 failure path)
};

const char* statusCodeName(StatusCode code);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : m_code(code), m_message(std::move(message)) {}
  static Status ok() { return {}; }

  bool isOk() const { return m_code == StatusCode::Ok; }
  StatusCode code() const { return m_code; }
  const std::string& message() const { return m_message; }
  std::string toString() const;

 private:
  StatusCode m_code = StatusCode::Ok;
  std::string m_message;
};

inline Status invalidArgument(std::string msg) { return {StatusCode::InvalidArgument, std::move(msg)}; }
inline Status badInput(std::string msg) { return {StatusCode::BadInput, std::move(msg)}; }
inline Status ioError(std::string msg) { return {StatusCode::IoError, std::move(msg)}; }
inline Status numericalFailure(std::string msg) { return {StatusCode::NumericalFailure, std::move(msg)}; }
inline Status cancelled() { return {StatusCode::Cancelled, "cancelled by the user"}; }

// A value or the status explaining why there is none.
template <class T>
class Result {
 public:
  Result(T value) : m_value(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : m_status(std::move(status)) {}  // NOLINT
  bool ok() const { return m_status.isOk() && m_value.has_value(); }
  const Status& status() const { return m_status; }
  const T& value() const& { return *m_value; }
  T& value() & { return *m_value; }
  T&& value() && { return std::move(*m_value); }
  const T* operator->() const { return &*m_value; }
  T* operator->() { return &*m_value; }

 private:
  Status m_status;
  std::optional<T> m_value;
};

// Propagate a non-ok status from an expression returning Status.
#define DPLDA_RETURN_IF_ERROR(expr)          \
  do {                                       \
    ::dplda::Status dplda_status_ = (expr);  \
    if (!dplda_status_.isOk()) return dplda_status_; \
  } while (0)

}  // namespace dplda
