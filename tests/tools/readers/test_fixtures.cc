// Files written by PyTorch and numpy themselves (make_fixtures.py); expected
// values from the script's formulas: element i is 0.25 * (i - 5) (floating),
// 3 * i - 4 (integer), i % 2 == 0 (bool).
#include <doctest/doctest.h>

#include <cstring>

#include "reader_test_support.h"
#include "tools/convert/readers/npz_file.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/convert/readers/source_convert.h"

namespace normrt::test {
namespace {

const std::string kDir = NORMRT_READERS_FIXTURES;

void check_tensor(const WeightSource& source, const std::string& name, const std::string& dtype,
                  const std::vector<int64_t>& shape) {
  CAPTURE(name);
  const SourceTensor* t = source.find(name);
  REQUIRE(t != nullptr);
  CHECK(t->dtype == dtype);
  CHECK(t->shape == shape);
  size_t count = 1;
  for (const int64_t dim : shape) count *= static_cast<size_t>(dim);
  if (dtype == "F32" || dtype == "F16" || dtype == "BF16" || dtype == "F64") {
    auto values = to_f32(*t);
    REQUIRE_MESSAGE(values.is_ok(), values.status().message());
    REQUIRE(values->size() == count);
    for (size_t i = 0; i < count; ++i) {
      const float expected = 0.25f * (static_cast<float>(i) - 5.0f);
      CHECK_MESSAGE((*values)[i] == expected, name << "[" << i << "]");
    }
  } else if (dtype == "I64" || dtype == "I32") {
    const size_t width = dtype == "I64" ? 8 : 4;
    REQUIRE(t->size == count * width);
    for (size_t i = 0; i < count; ++i) {
      int64_t value = 0;
      if (width == 8) {
        std::memcpy(&value, t->data + 8 * i, 8);
      } else {
        int32_t narrow;
        std::memcpy(&narrow, t->data + 4 * i, 4);
        value = narrow;
      }
      CHECK_MESSAGE(value == 3 * static_cast<int64_t>(i) - 4, name << "[" << i << "]");
    }
  } else {
    REQUIRE(dtype == "BOOL");
    REQUIRE(t->size == count);
    for (size_t i = 0; i < count; ++i) {
      CHECK_MESSAGE(static_cast<uint8_t>(t->data[i]) == (i % 2 == 0 ? 1 : 0),
                    name << "[" << i << "]");
    }
  }
}

TEST_SUITE("fixtures") {
  TEST_CASE("a safetensors file saved by PyTorch") {
    auto file = SafetensorsFile::open(kDir + "/torch.safetensors");
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    const SafetensorsFile& source = **file;
    CHECK(source.names().size() == 6);
    CHECK(source.metadata().at("format") == "pt");
    check_tensor(source, "linear.weight", "F32", {3, 4});
    check_tensor(source, "linear.bias", "F32", {3});
    check_tensor(source, "emb", "F16", {2, 5});
    check_tensor(source, "bf", "BF16", {2, 3});
    check_tensor(source, "step", "I64", {});
    check_tensor(source, "mask", "BOOL", {5});
  }

  TEST_CASE("an .npz saved by np.savez (stored members)") {
    auto file = NpzFile::open(kDir + "/numpy.npz");
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    CHECK((*file)->names() == std::vector<std::string>{"W", "b", "ids", "mask"});
    check_tensor(**file, "W", "F32", {2, 3});
    check_tensor(**file, "b", "F64", {3});
    check_tensor(**file, "ids", "I32", {4});
    check_tensor(**file, "mask", "BOOL", {3});
  }

  TEST_CASE("an .npz saved by np.savez_compressed (deflated members)") {
    auto file = NpzFile::open(kDir + "/numpy_compressed.npz");
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    check_tensor(**file, "enc/W", "F32", {4, 5});
    check_tensor(**file, "h", "F16", {3});
  }

  TEST_CASE("numpy saves a transposed array in Fortran order, which is refused") {
    auto file = NpzFile::open(kDir + "/fortran.npz");
    check_error(file.status(), {"fortran.npz: member 'Wt.npy'", "'fortran_order'", "found True"});
  }
}

}  // namespace
}  // namespace normrt::test
