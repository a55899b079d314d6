#include "runtime/exec/thread_limit.h"

#include <string>

namespace normrt {
namespace {

// Fixed rather than a multiple of the CPUs: a program that runs on one
// machine runs on another, and the tests see the same bound everywhere.
constexpr size_t kMaxSessionThreads = 1024;

}  // namespace

size_t max_session_threads() { return kMaxSessionThreads; }

Status check_session_threads(size_t threads) {
  if (threads <= max_session_threads()) return Status::ok();
  return Status::error("SessionOptions: threads = " + std::to_string(threads) +
                       " exceeds the limit of " + std::to_string(max_session_threads()) +
                       " (max_session_threads())");
}

}  // namespace normrt
