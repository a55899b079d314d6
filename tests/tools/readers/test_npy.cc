// .npy round trips: numpy's header dict in its variants, every dtype.
#include <doctest/doctest.h>

#include <cstring>

#include "reader_test_support.h"
#include "tools/convert/readers/npy_array.h"

namespace normrt::test {
namespace {

SourceTensor parse_ok(const Bytes& image, const std::string& name = "x") {
  auto tensor = parse_npy(image.data(), image.size(), name);
  REQUIRE_MESSAGE(tensor.is_ok(), tensor.status().message());
  return std::move(tensor).value();
}

struct DescrCase {
  const char* descr;
  const char* dtype;
  size_t size;
};

TEST_SUITE("npy") {
  TEST_CASE("every supported descr maps onto its safetensors dtype") {
    const DescrCase cases[] = {
        {"<f8", "F64", 8}, {"<f4", "F32", 4}, {"<f2", "F16", 2}, {"<i8", "I64", 8},
        {"<i4", "I32", 4}, {"<i2", "I16", 2}, {"|i1", "I8", 1},  {"<u8", "U64", 8},
        {"<u4", "U32", 4}, {"<u2", "U16", 2}, {"|u1", "U8", 1},  {"|b1", "BOOL", 1},
    };
    for (const DescrCase& c : cases) {
      CAPTURE(c.descr);
      Bytes data(3 * c.size);
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7 + 1);
      const Bytes image = npy_image(npy_dict(c.descr, "(3,)"), data);  // t points into it
      const SourceTensor t = parse_ok(image, "w");
      CHECK(t.name == "w");
      CHECK(t.dtype == c.dtype);
      CHECK(t.shape == std::vector<int64_t>{3});
      REQUIRE(t.size == data.size());
      CHECK(std::memcmp(t.data, data.data(), data.size()) == 0);
    }
  }

  TEST_CASE("versions 1.0, 2.0 and 3.0 carry the same array") {
    const std::vector<float> values = {1.0f, -2.5f, 3.0f, 0.5f, 8.0f, -1.0f};
    for (const int major : {1, 2, 3}) {
      CAPTURE(major);
      const Bytes image = npy_image(npy_dict("<f4", "(2, 3)"), bytes_of(values), major);
      const SourceTensor t = parse_ok(image);
      CHECK(t.shape == std::vector<int64_t>{2, 3});
      REQUIRE(t.size == 24);
      for (size_t i = 0; i < values.size(); ++i) {
        float value;
        std::memcpy(&value, t.data + 4 * i, 4);
        CHECK_MESSAGE(value == values[i], "index " << i);
      }
    }
  }

  TEST_CASE("shapes: scalar, empty, odd spacing, Python 2 longs, key order") {
    const std::vector<double> one = {2.0};
    CHECK(parse_ok(npy_image(npy_dict("<f8", "()"), bytes_of(one))).shape.empty());
    CHECK(parse_ok(npy_image(npy_dict("<f8", "(0, 5)"), {})).shape == std::vector<int64_t>{0, 5});
    const Bytes six(24);
    CHECK(parse_ok(npy_image(npy_dict("<f4", "( 2 ,3 , )"), six)).shape ==
          std::vector<int64_t>{2, 3});
    CHECK(parse_ok(npy_image(npy_dict("<f4", "(2L, 3L)"), six)).shape ==
          std::vector<int64_t>{2, 3});
    const std::string reordered = "{\"shape\": (6,), \"fortran_order\": False, \"descr\": \"<f4\"}";
    CHECK(parse_ok(npy_image(reordered, six)).shape == std::vector<int64_t>{6});
  }
}

}  // namespace
}  // namespace normrt::test
