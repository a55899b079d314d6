#pragma once
// Status and Expected<T> for normrt's own code. The types are public API and
// defined once, in include/normrt/status.h (installed with the library); this
// header is what every layer includes, and adds the early-return macros that
// are for normrt's own code only (not installed):
//
//   NORMRT_RETURN_IF_ERROR(expr);
//     expr is a Status or an Expected<T>. If it failed, the enclosing function
//     returns its Status (so the function returns Status or some Expected<U>).
//     The message is passed on unchanged; code that adds context to it keeps
//     its own `if`.
//
//   NORMRT_ASSIGN_OR_RETURN(lhs, expr);
//     expr is an Expected<T>. If it failed, the enclosing function returns its
//     Status; otherwise its value is moved into lhs, a new variable
//     (`Graph graph`, `auto plan`, `const size_t n`) or an existing one
//     (`packed`, `config.hidden`). A declaration is made in the enclosing
//     scope, so the macro is a statement of a block, not the body of an
//     unbraced if/for. lhs must not contain a top-level comma (use an alias
//     for such types); expr may.
//
// Both evaluate expr exactly once, into a temporary whose name is made unique
// with __COUNTER__, so they nest and repeat on one line without shadowing
// each other or the caller's names.
#include <utility>

#include "normrt/status.h"

namespace normrt::detail {

/// The Status an early return hands back: a Status itself, or an Expected's
/// error. Copies rather than moves: expr may name an object that outlives the
/// return (a member, a reference parameter), which must stay as it was.
inline const Status& status_to_return(const Status& status) { return status; }
template <class T>
Status status_to_return(const Expected<T>& expected) {
  return expected.status();
}

}  // namespace normrt::detail

#define NORMRT_STATUS_CONCAT_INNER_(a, b) a##b
#define NORMRT_STATUS_CONCAT_(a, b) NORMRT_STATUS_CONCAT_INNER_(a, b)
#define NORMRT_STATUS_UNIQUE_(prefix) NORMRT_STATUS_CONCAT_(prefix, __COUNTER__)

// do { } while (0): one statement, safe as the body of an unbraced if/else.
// auto&&: binds to a returned temporary or to a named Status / Expected
// without copying it.
#define NORMRT_RETURN_IF_ERROR(...) \
  NORMRT_RETURN_IF_ERROR_IMPL_(NORMRT_STATUS_UNIQUE_(normrt_status_or_), __VA_ARGS__)
#define NORMRT_RETURN_IF_ERROR_IMPL_(tmp, ...)                \
  do {                                                        \
    auto&& tmp = (__VA_ARGS__);                               \
    if (!tmp) return ::normrt::detail::status_to_return(tmp); \
  } while (false)

// The temporary is a plain `auto`: it owns the Expected (copied if expr names
// one), whose value is then moved into lhs.
#define NORMRT_ASSIGN_OR_RETURN(lhs, ...) \
  NORMRT_ASSIGN_OR_RETURN_IMPL_(NORMRT_STATUS_UNIQUE_(normrt_expected_), lhs, __VA_ARGS__)
#define NORMRT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, ...) \
  auto tmp = (__VA_ARGS__);                          \
  if (!tmp) return tmp.status();                     \
  lhs = std::move(tmp).value()
