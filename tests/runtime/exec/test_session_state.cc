// The session state API: reading and writing a state tensor, and copying one
// session's state and position into another (what beam search does).
#include <doctest/doctest.h>

#include <string>

#include "normrt/normrt.hpp"
#include "runtime/exec/compiled_model.h"
#include "runtime_test_graphs.h"

namespace normrt {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// out = x + h; h ← out after each run: h is the running sum of the inputs.
std::shared_ptr<const Model> running_sum_model() {
  auto model = compile_model(test::running_sum(3), {});
  REQUIRE_MESSAGE(model.is_ok(), model.status().message());
  return model.value();
}

void feed(Session& session, float value) {
  const float x[3] = {value, 2 * value, -value};
  REQUIRE(session.set_input("x", x, sizeof x).is_ok());
  REQUIRE(session.run().is_ok());
}

}  // namespace

TEST_SUITE("session state") {
  TEST_CASE("the model lists its states; state() reads what the runs left") {
    auto model = running_sum_model();
    REQUIRE(model->states().size() == 1);
    CHECK(model->states()[0].name == "h");
    CHECK(model->states()[0].shape == std::vector<int64_t>{1, 3});
    auto session = Session::create(model);
    REQUIRE(session.is_ok());
    feed(*session.value(), 1.5f);
    feed(*session.value(), 2.0f);
    auto h = session.value()->state("h");
    REQUIRE(h.is_ok());
    CHECK(h->elements() == 3);
    CHECK(h->f32()[0] == 3.5f);
    CHECK(h->f32()[1] == 7.0f);
    CHECK(h->f32()[2] == -3.5f);
  }

  TEST_CASE("set_state seeds the next run") {
    auto session = Session::create(running_sum_model());
    REQUIRE(session.is_ok());
    const float seed[3] = {10, 20, 30};
    REQUIRE(session.value()->set_state("h", seed, sizeof seed).is_ok());
    feed(*session.value(), 1.0f);
    const float* out = session.value()->output("out")->f32();
    CHECK(out[0] == 11.0f);
    CHECK(out[1] == 22.0f);
    CHECK(out[2] == 29.0f);
  }

  TEST_CASE("copy_state_from copies state and position, and the copies then diverge") {
    auto model = running_sum_model();
    auto a = Session::create(model);
    auto b = Session::create(model);
    REQUIRE((a.is_ok() && b.is_ok()));
    feed(*a.value(), 1.0f);
    feed(*a.value(), 4.0f);
    feed(*b.value(), -7.0f);
    REQUIRE(b.value()->copy_state_from(*a.value()).is_ok());
    CHECK(b.value()->position() == 2);
    CHECK(b.value()->state("h")->f32()[0] == 5.0f);
    feed(*b.value(), 1.0f);
    CHECK(b.value()->state("h")->f32()[0] == 6.0f);
    CHECK(a.value()->state("h")->f32()[0] == 5.0f);           // the source is untouched
    REQUIRE(a.value()->copy_state_from(*a.value()).is_ok());  // self-copy: a no-op
    CHECK(a.value()->state("h")->f32()[1] == 10.0f);
  }

  TEST_CASE("bad names, sizes and models are errors that say what is wrong") {
    auto session = Session::create(running_sum_model());
    auto other = Session::create(running_sum_model());  // the same graph, another Model
    REQUIRE((session.is_ok() && other.is_ok()));
    Session& s = *session.value();
    const float values[4] = {};
    CHECK(contains(s.state("c").status().message(), "no state 'c' (states: h)"));
    CHECK(contains(s.set_state("c", values, 12).message(), "no state 'c' (states: h)"));
    CHECK(contains(s.set_state("h", values, 16).message(),
                   "'h' [1, 3] f32: expected 12 bytes, got 16"));
    CHECK(contains(s.set_state("h", nullptr, 12).message(), "data is null"));
    CHECK(contains(s.copy_state_from(*other.value()).message(), "different Model"));
  }
}

}  // namespace normrt
