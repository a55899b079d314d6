// The shared test helpers themselves: a comparison that cannot fail, or a
// hex decoder that truncates, would let every test built on them pass; a
// scratch directory that is never removed fills the build tree.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tests/support/compare.h"
#include "tests/support/hex.h"
#include "tests/support/scratch_dir.h"

namespace normrt::test {

TEST_CASE("decode_hex gives the bytes and refuses odd lengths and non-hex digits") {
  CHECK(decode_hex("") == "");
  CHECK(decode_hex("48690a") == "Hi\n");
  CHECK(decode_hex("C3A9ff00") == std::string("\xc3\xa9\xff\x00", 4));
  CHECK_THROWS_AS(decode_hex("486"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(decode_hex("48zz"), doctest::Contains("'zz' at 2"), std::invalid_argument);
  CHECK_THROWS_AS(decode_hex("4 "), std::invalid_argument);
  CHECK(!decode_hex_or_none("-").has_value());
  CHECK(decode_hex_or_none("41").value() == "A");
}

TEST_CASE("compare: atol + rtol·|want| per element, the first failure named, NaN out of bounds") {
  const std::vector<double> want = {1.0, -2.0, 4.0};
  Comparison c = compare(std::vector<float>{1.0f, -2.0f, 4.0f}, want, 0, 0);
  CHECK(c.ok());
  CHECK(c.worst == 0);
  c = compare(std::vector<float>{1.0f, -2.1f, 4.0f}, want, 0.01, 0.01);  // bound 0.03
  CHECK(!c.ok());
  CHECK(c.first_failure.find("index 1") == 0);
  CHECK(c.worst == doctest::Approx(0.1).epsilon(1e-6));
  CHECK(c.relative == doctest::Approx(0.1 / 4).epsilon(1e-6));
  CHECK(compare(std::vector<float>{1.0f, -2.1f, 4.0f}, want, 0.01, 0.05).ok());  // bound 0.11
  c = compare(std::vector<float>{1.0f, NAN, 4.0f}, want, 1, 1);
  CHECK(!c.ok());
  CHECK(std::isnan(c.worst));  // the worst error reported is the NaN, not the finite rest
  CHECK(!compare(std::vector<float>{1.0f}, want, 1, 1).ok());  // sizes differ
}

TEST_CASE("compare_rows bounds each row by its own largest value; an all-zero row fails") {
  const float want[] = {100, 0, 1, -1};  // rows {100, 0} and {1, -1}
  const float close[] = {100.5f, 0.5f, 1.004f, -1};
  CHECK(compare_rows(close, want, 2, 2, 5e-3).ok());  // 0.5 ≤ 0.5, 0.004 ≤ 0.005
  const float off[] = {100, 0, 1.01f, -1};            // fine for row 0's scale, not row 1's
  const Comparison c = compare_rows(off, want, 2, 2, 5e-3);
  CHECK(c.first_failure.find("row 1 column 0") == 0);
  CHECK(c.relative == doctest::Approx(0.01).epsilon(1e-4));
  const float zeros[] = {0, 0};
  CHECK(compare_rows(zeros, zeros, 1, 2, 1).first_failure.find("all zero") != std::string::npos);
  const float nan_row[] = {NAN, 1};
  const float ones[] = {1, 1};
  const Comparison n = compare_rows(nan_row, ones, 1, 2, 1);
  CHECK(!n.ok());
  CHECK(std::isnan(n.worst));
  CHECK(std::isnan(n.relative));
}

TEST_CASE("worst_of is the maximum, and NaN once either side is NaN") {
  CHECK(worst_of(0, 2) == 2);
  CHECK(worst_of(3, 2) == 3);
  CHECK(worst_of(0, INFINITY) == INFINITY);
  CHECK(std::isnan(worst_of(1, NAN)));
  CHECK(std::isnan(worst_of(NAN, 1)));
  CHECK(std::isnan(worst_of(NAN, NAN)));
  CHECK(std::isnan(worst_of(0, INFINITY - INFINITY)));
  double worst = 0;  // as the tests use it: a NaN anywhere in a run survives the later values
  for (double error : {0.5, double(NAN), 2.0, 0.0}) worst = worst_of(worst, error);
  CHECK(std::isnan(worst));
  CHECK(!(worst <= 1e9));
}

namespace {

namespace fs = std::filesystem;

// Forks a child that makes a scratch directory under `root` with a file in
// it, writes the directory's path to `report`, and leaves through exit(0)
// (static destructors run). `keep` sets NORMRT_KEEP_SCRATCH in the child only.
// Returns the directory the child reported.
fs::path scratch_of_child(const fs::path& root, const fs::path& report, bool keep) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (keep) {
      ::setenv("NORMRT_KEEP_SCRATCH", "1", 1);
    } else {
      ::unsetenv("NORMRT_KEEP_SCRATCH");
    }
    const std::string dir = scratch_dir(root.string(), "child");
    std::ofstream(dir + "/model.nrmt") << "contents";
    std::ofstream(report) << dir;
    std::exit(fs::exists(dir + "/model.nrmt") ? 0 : 3);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream in(report);
  std::string dir;
  std::getline(in, dir);
  CHECK(dir == (root / ("child-" + std::to_string(pid))).string());
  return dir;
}

}  // namespace

TEST_CASE("scratch_dir: one directory per process, removed at exit unless NORMRT_KEEP_SCRATCH") {
  const fs::path root = scratch_dir(fs::temp_directory_path().string(), "scratch-test");
  CHECK(fs::is_directory(root));
  CHECK(root.filename() == "scratch-test-" + std::to_string(::getpid()));
  CHECK(scratch_dir(root.parent_path().string(), "scratch-test") == root.string());  // same one
  const fs::path report = root / "child-dir.txt";

  const fs::path removed = scratch_of_child(root, report, false);
  CHECK(!fs::exists(removed));
  CHECK(fs::is_directory(root));  // the child did not remove its parent's directory

  const fs::path kept = scratch_of_child(root, report, true);
  CHECK(fs::exists(kept / "model.nrmt"));
  fs::remove_all(kept);
}

}  // namespace normrt::test
