#pragma once
// normrt's failures as Python exceptions: normrt.Error and one subclass per
// status of the C API (normrt_status), each carrying normrt's own message.
// Like the C API, the kind follows from the call that failed: a load is a
// LoadError, a run a RunError, a bad argument an InvalidArgumentError.
#include <nanobind/nanobind.h>

#include <string>
#include <utility>

#include "normrt/status.h"

namespace normrt::python {

enum class ErrorKind { kInvalidArgument, kLoadFailed, kRunFailed, kOutOfMemory, kInternal };

[[noreturn]] void throw_error(ErrorKind kind, const std::string& message);

inline void check(const Status& status, ErrorKind kind) {
  if (!status) throw_error(kind, status.message());
}

template <class T>
T value_or_throw(Expected<T>&& expected, ErrorKind kind) {
  if (!expected) throw_error(kind, expected.status().message());
  return std::move(expected).value();
}

/// Creates normrt.Error and its subclasses in `m` and translates the C++
/// exceptions throw_error() raises (std::bad_alloc too) into them.
void bind_errors(nanobind::module_& m);

}  // namespace normrt::python
