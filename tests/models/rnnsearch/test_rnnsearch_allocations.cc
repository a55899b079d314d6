// Running the converted encoder and decoder steps allocates nothing once the
// inputs are bound (the runtime's contract: no allocation inside run()).
#include <doctest/doctest.h>

#include "tests/models/rnnsearch/rnnsearch_fixture.h"
#include "tests/support/allocation_counter.h"

namespace normrt::test {
namespace {

TEST_CASE("rnnsearch encoder and decoder runs allocate nothing") {
  for (const RnnSearchCase& c : rnnsearch_cases()) {
    const RnnSearchModels m = convert_and_load(c, DataType::kF32, true, ".f");
    const std::vector<int32_t> src = {7, 3, 22, 15, 9, 0};
    auto encoder = Session::create(m.encoder);
    REQUIRE(encoder.is_ok());
    REQUIRE(encoder.value()->set_input("src_ids", src.data(), src.size() * 4).is_ok());
    REQUIRE(encoder.value()->run().is_ok());  // first run outside the count
    testing::start_counting_allocations();
    const bool encoded = encoder.value()->run().is_ok();
    CHECK_MESSAGE(testing::stop_counting_allocations() == 0, c.name << " encoder");
    REQUIRE(encoded);

    const Encoded source = encode(m.encoder, src);
    auto decoder = start_decoder(m.decoder, source);
    int32_t prev = -1;
    REQUIRE(decoder->set_input("prev_id", &prev, 4).is_ok());
    REQUIRE(decoder->run().is_ok());
    testing::start_counting_allocations();
    bool ok = true;
    for (prev = 1; prev < 6; ++prev) ok = ok && decoder->run().is_ok();
    CHECK_MESSAGE(testing::stop_counting_allocations() == 0, c.name << " decoder");
    CHECK(ok);
  }
}

}  // namespace
}  // namespace normrt::test
