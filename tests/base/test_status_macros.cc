// NORMRT_RETURN_IF_ERROR and NORMRT_ASSIGN_OR_RETURN (base/status.h): they
// return early exactly when the expression failed, pass its message on
// unchanged, evaluate it once, and move the value into the target.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace normrt {
namespace {

Status fails(const std::string& message) { return Status::error(message); }
Expected<int> number(bool ok, int value) {
  if (!ok) return Status::error("no number " + std::to_string(value));
  return value;
}

// Records how often it ran, so a test sees both evaluation count and order.
struct Calls {
  std::vector<std::string> log;
  Status step(const std::string& name, bool ok) {
    log.push_back(name);
    return ok ? Status::ok() : Status::error(name + " failed");
  }
  Expected<int> value(const std::string& name, bool ok, int v) {
    log.push_back(name);
    if (!ok) return Status::error(name + " failed");
    return v;
  }
};

Status two_steps(Calls& calls, bool first_ok, bool second_ok) {
  NORMRT_RETURN_IF_ERROR(calls.step("first", first_ok));
  NORMRT_RETURN_IF_ERROR(calls.step("second", second_ok));
  calls.log.push_back("end");
  return Status::ok();
}

TEST_CASE("NORMRT_RETURN_IF_ERROR returns the failed Status unchanged and skips the rest") {
  Calls calls;
  Status status = two_steps(calls, true, false);
  REQUIRE_FALSE(status);
  CHECK(status.message() == "second failed");
  CHECK(calls.log == std::vector<std::string>{"first", "second"});

  Calls failing_first;
  status = two_steps(failing_first, false, true);
  REQUIRE_FALSE(status);
  CHECK(status.message() == "first failed");
  CHECK(failing_first.log == std::vector<std::string>{"first"});
}

TEST_CASE("NORMRT_RETURN_IF_ERROR falls through on success, evaluating the expression once") {
  Calls calls;
  CHECK(two_steps(calls, true, true));
  CHECK(calls.log == std::vector<std::string>{"first", "second", "end"});
}

Expected<std::string> checked_number(Calls& calls, bool ok) {
  // An Expected<T> inside a function that returns another Expected<U>.
  NORMRT_RETURN_IF_ERROR(calls.value("number", ok, 7));
  return std::string("fine");
}

TEST_CASE("NORMRT_RETURN_IF_ERROR takes an Expected and returns into an Expected of another type") {
  Calls calls;
  Expected<std::string> failed = checked_number(calls, false);
  REQUIRE_FALSE(failed);
  CHECK(failed.status().message() == "number failed");
  Expected<std::string> passed = checked_number(calls, true);
  REQUIRE(passed);
  CHECK(*passed == "fine");
  CHECK(calls.log == std::vector<std::string>{"number", "number"});
}

Status named_status(const Status& kept) {
  NORMRT_RETURN_IF_ERROR(kept);
  return fails("not reached");
}

TEST_CASE("NORMRT_RETURN_IF_ERROR on a named Status copies it and leaves it intact") {
  const Status kept = Status::error("kept message");
  Status returned = named_status(kept);
  CHECK(returned.message() == "kept message");
  CHECK(kept.message() == "kept message");
  CHECK(named_status(Status::ok()).message() == "not reached");
}

Status unbraced(bool take_branch, bool ok, std::string& trace) {
  // A single statement: the else binds to the outer if, not to the macro's.
  if (take_branch)
    NORMRT_RETURN_IF_ERROR(ok ? Status::ok() : fails("inside"));
  else
    trace += "else;";
  trace += "after;";
  return Status::ok();
}

TEST_CASE("NORMRT_RETURN_IF_ERROR is one statement under an unbraced if/else") {
  std::string trace;
  CHECK(unbraced(false, false, trace));
  CHECK(trace == "else;after;");
  trace.clear();
  CHECK(unbraced(true, true, trace));
  CHECK(trace == "after;");
  trace.clear();
  CHECK(unbraced(true, false, trace).message() == "inside");
  CHECK(trace.empty());
}

Expected<int> sum_of_two(Calls& calls, bool first_ok, bool second_ok) {
  // Two in one line (one macro expansion): the temporaries must not collide.
  // clang-format off
  NORMRT_ASSIGN_OR_RETURN(int a, calls.value("a", first_ok, 2)); NORMRT_ASSIGN_OR_RETURN(const int b, calls.value("b", second_ok, 40));
  // clang-format on
  return a + b;
}

TEST_CASE("NORMRT_ASSIGN_OR_RETURN declares the value or returns the error unchanged") {
  Calls calls;
  Expected<int> sum = sum_of_two(calls, true, true);
  REQUIRE(sum);
  CHECK(*sum == 42);
  CHECK(calls.log == std::vector<std::string>{"a", "b"});

  Calls failing;
  Expected<int> failed = sum_of_two(failing, false, true);
  REQUIRE_FALSE(failed);
  CHECK(failed.status().message() == "a failed");
  CHECK(failing.log == std::vector<std::string>{"a"});  // the second is not evaluated
}

Status assign_existing(int& target, bool ok) {
  NORMRT_ASSIGN_OR_RETURN(target, number(ok, 5));
  return Status::ok();
}

TEST_CASE("NORMRT_ASSIGN_OR_RETURN assigns an existing variable only on success") {
  int target = -1;
  Status failed = assign_existing(target, false);
  CHECK(failed.message() == "no number 5");
  CHECK(target == -1);
  CHECK(assign_existing(target, true));
  CHECK(target == 5);
}

Expected<std::unique_ptr<int>> boxed(int value) { return std::make_unique<int>(value); }

Expected<int> unbox(int value) {
  // A move-only value is moved out of the temporary Expected.
  NORMRT_ASSIGN_OR_RETURN(std::unique_ptr<int> box, boxed(value));
  return *box + 1;
}

TEST_CASE("NORMRT_ASSIGN_OR_RETURN moves a move-only value into place") {
  Expected<int> unboxed = unbox(9);
  REQUIRE(unboxed);
  CHECK(*unboxed == 10);
}

template <class A, class B>
Expected<std::pair<A, B>> make_pair_of(A a, B b) {
  return std::make_pair(a, b);
}

Expected<int> pair_sum() {
  // Top-level commas in the expression (template arguments) are allowed.
  NORMRT_ASSIGN_OR_RETURN(auto pair, make_pair_of<int, long>(3, 4L));
  NORMRT_RETURN_IF_ERROR(make_pair_of<int, int>(1, 2));
  return pair.first + static_cast<int>(pair.second);
}

TEST_CASE("the macros accept expressions with top-level commas") {
  Expected<int> sum = pair_sum();
  REQUIRE(sum);
  CHECK(*sum == 7);
}

}  // namespace
}  // namespace normrt
