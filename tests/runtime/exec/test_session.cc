// Sessions: binding inputs, S chosen per run, state carried between runs,
// clear errors, no allocation per run, and one model shared by many threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime_test_graphs.h"
#include "tests/support/affinity.h"
#include "tests/support/allocation_counter.h"

namespace normrt {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::shared_ptr<const Model> mixed_model(size_t d, uint32_t seed,
                                         const ModelOptions& options = {}) {
  auto model =
      compile_model(test::mixed_blocks(test::mixed_blocks_weights(d, seed), 16, false), options);
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

// out = x + h; h ← out after each run: h accumulates the inputs.
std::shared_ptr<const Model> accumulator_model() {
  auto model = compile_model(test::running_sum(5), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

}  // namespace

TEST_SUITE("session") {
  TEST_CASE("S is chosen per run from the inputs and every run matches the reference") {
    const size_t d = 24;
    auto weights = test::mixed_blocks_weights(d, 11);
    auto model = mixed_model(d, 11);
    auto session = Session::create(model);
    REQUIRE(session.is_ok());
    for (size_t s : {1, 7, 16, 2, 1}) {
      CAPTURE(s);
      std::vector<float> x = test::random_values(s * d, 1.0f, static_cast<uint32_t>(s));
      REQUIRE(session.value()->set_input("x", x.data(), x.size() * 4).is_ok());
      Status ran = session.value()->run();
      REQUIRE_MESSAGE(ran.is_ok(), ran.message());
      auto out = session.value()->output("out");
      REQUIRE(out.is_ok());
      CHECK(std::vector<size_t>(out->shape.begin(), out->shape.end()) == std::vector<size_t>{s, d});
      std::vector<double> reference = test::mixed_blocks_reference(weights, false, x, s);
      for (size_t i = 0; i < reference.size(); ++i) {
        INFO("i = ", i, ": ", out->f32()[i], " vs ", reference[i]);
        CHECK(std::abs(out->f32()[i] - reference[i]) <= 2e-5 * (1 + std::abs(reference[i])));
      }
    }
    CHECK(session.value()->position() == 0);  // stateless: every run starts at position 0
  }

  TEST_CASE("state tensors carry over between runs; reset zeroes them") {
    auto session = Session::create(accumulator_model());
    REQUIRE(session.is_ok());
    const float x[5] = {1, -2, 0.5f, 3, 1e-3f};
    for (int run = 1; run <= 4; ++run) {
      REQUIRE(session.value()->set_input("x", x, sizeof x).is_ok());
      REQUIRE(session.value()->run().is_ok());
      auto out = session.value()->output("out");
      for (int i = 0; i < 5; ++i) CHECK(out->f32()[i] == doctest::Approx(x[i] * run));
    }
    CHECK(session.value()->position() == 4);  // stateful: the position counts the runs' tokens
    session.value()->reset();
    CHECK(session.value()->position() == 0);
    REQUIRE(session.value()->set_input("x", x, sizeof x).is_ok());
    REQUIRE(session.value()->run().is_ok());
    CHECK(session.value()->output("out")->f32()[1] == -2.0f);
  }

  TEST_CASE("bad inputs and names are errors that say what is wrong") {
    auto session = Session::create(mixed_model(8, 3));
    REQUIRE(session.is_ok());
    Session& s = *session.value();
    std::vector<float> x(17 * 8, 0.5f);

    Status unset = s.run();
    CHECK(contains(unset.message(), "input 'x' is not set"));
    Status unknown = s.set_input("y", x.data(), 32);
    CHECK(contains(unknown.message(), "no input 'y' (inputs: x)"));
    Status ragged = s.set_input("x", x.data(), 33);
    CHECK(contains(ragged.message(),
                   "'x' [S, 8] f32: expected S × 32 bytes with 1 ≤ S ≤ 16, got 33 bytes"));
    Status too_long = s.set_input("x", x.data(), 17 * 32);
    CHECK_FALSE(too_long.is_ok());
    Status null_data = s.set_input("x", nullptr, 32);
    CHECK(contains(null_data.message(), "data is null"));
    auto missing = s.output("logits");
    CHECK(contains(missing.status().message(), "no output 'logits' (outputs: out)"));
  }

  TEST_CASE("threads beyond max_session_threads() are refused by name; 0, 1 and 2 are accepted") {
    auto model = mixed_model(64, 5);
    CHECK(max_session_threads() == 1024);
    for (size_t threads : {max_session_threads() + 1, size_t{20000}, ~size_t{0}}) {
      CAPTURE(threads);
      SessionOptions options;
      options.threads = threads;
      auto session = Session::create(model, options);
      REQUIRE_FALSE(session.is_ok());
      CHECK(contains(session.status().message(),
                     "threads = " + std::to_string(threads) + " exceeds the limit of 1024"));
    }
    for (size_t threads : {0, 1, 2}) {
      SessionOptions options;
      options.threads = threads;
      CHECK(Session::create(model, options).is_ok());
    }
  }

  TEST_CASE("threads = 0 resolves to the CPUs of the process's affinity mask") {
    auto model = mixed_model(64, 5);
    auto threads_for = [&](size_t requested) -> size_t {
      SessionOptions options;
      options.threads = requested;
      auto session = Session::create(model, options);
      REQUIRE(session.is_ok());
      return session.value()->threads();
    };
    // The mask as the kernel lists it, counted independently of the library.
    const size_t listed = testing::cpus_allowed_in_proc_status();
    REQUIRE(listed >= 1);
    CHECK(available_cpus() == std::min<size_t>(listed, max_session_threads()));
    CHECK(threads_for(0) == available_cpus());
    CHECK(threads_for(1) == 1);
    CHECK(threads_for(3) == 3);  // not capped by the CPUs: only by max_session_threads()
    // With the mask cut to one CPU, 0 means one thread: no pool.
    const testing::AffinityScope one_cpu(1);
    if (one_cpu.applied()) {
      CHECK(testing::cpus_allowed_in_proc_status() == 1);
      CHECK(available_cpus() == 1);
      CHECK(threads_for(0) == 1);
    }
  }

  TEST_CASE("the allocation counter sees an allocation") {  // so that 0 below means something
    static std::vector<float>* volatile probe =
        nullptr;  // volatile: the allocation cannot be elided
    testing::start_counting_allocations();
    probe = new std::vector<float>(100);
    size_t seen = testing::stop_counting_allocations();
    delete probe;
    CHECK(seen >= 2);  // the vector object and its buffer
  }

  TEST_CASE("no heap allocation per run after the first") {
    auto model = mixed_model(64, 5);
    for (size_t threads : {1, 2}) {
      CAPTURE(threads);
      SessionOptions options;
      options.threads = threads;
      options.profile = threads == 2;
      auto session = Session::create(model, options);
      REQUIRE(session.is_ok());
      std::vector<float> x = test::random_values(3 * 64, 1.0f, 8);
      REQUIRE(session.value()->set_input("x", x.data(), x.size() * 4).is_ok());
      REQUIRE(session.value()->run().is_ok());  // warm-up
      testing::start_counting_allocations();
      for (int run = 0; run < 20; ++run) {
        Status bound = session.value()->set_input("x", x.data(), x.size() * 4);
        Status ran = session.value()->run();
        Expected<TensorRef> out = session.value()->output("out");  // reading it allocates nothing
        CHECK(bound.is_ok());
        CHECK(ran.is_ok());
        CHECK(out.is_ok());
      }
      CHECK(testing::stop_counting_allocations() == 0);
    }
  }

  TEST_CASE("8 threads with their own sessions on one model match a single thread bit for bit") {
    auto model = mixed_model(96, 21);
    const int kInputs = 6, kIterations = 150;
    std::vector<std::vector<float>> inputs, expected;
    {
      auto session = Session::create(model);
      REQUIRE(session.is_ok());
      for (int i = 0; i < kInputs; ++i) {
        inputs.push_back(test::random_values((1 + i % 4) * 96, 1.0f, 300 + i));
        REQUIRE(session.value()->set_input("x", inputs[i].data(), inputs[i].size() * 4).is_ok());
        REQUIRE(session.value()->run().is_ok());
        auto out = session.value()->output("out");
        expected.emplace_back(out->f32(), out->f32() + out->elements());
      }
    }
    std::atomic<int> mismatches{0}, failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        auto session = Session::create(model);
        if (!session) {
          ++failures;
          return;
        }
        for (int iteration = 0; iteration < kIterations; ++iteration) {
          int i = (iteration + t) % kInputs;
          bool ok =
              session.value()->set_input("x", inputs[i].data(), inputs[i].size() * 4).is_ok() &&
              session.value()->run().is_ok();
          if (!ok) {
            ++failures;
            continue;
          }
          auto out = session.value()->output("out");
          if (std::memcmp(out->data, expected[i].data(), expected[i].size() * 4) != 0) ++mismatches;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    CHECK(failures == 0);
    CHECK(mismatches == 0);
  }

  TEST_CASE("the profile counts every node's runs and names the norm kinds") {
    SessionOptions options;
    options.profile = true;
    auto session = Session::create(mixed_model(16, 4, ModelOptions{"", false, false}), options);
    REQUIRE(session.is_ok());
    std::vector<float> x = test::random_values(16, 1.0f, 1);
    for (int run = 0; run < 3; ++run) {
      REQUIRE(session.value()->set_input("x", x.data(), 64).is_ok());
      REQUIRE(session.value()->run().is_ok());
    }
    const auto& profile = session.value()->profile();
    REQUIRE(profile.size() == 11);
    size_t norms = 0;
    for (const NodeProfile& node : profile) {
      CHECK(node.runs == 3);
      if (!node.norm.empty()) ++norms;
      if (node.name == "ln1") CHECK(node.norm == "layer_norm");
    }
    CHECK(norms == 3);
    session.value()->profile_reset();
    CHECK(session.value()->profile()[0].runs == 0);
  }
}

}  // namespace normrt
