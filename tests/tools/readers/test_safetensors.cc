// safetensors round trips: what a valid file holds comes back unchanged.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "reader_test_support.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::test {
namespace {

std::unique_ptr<SafetensorsFile> parse_ok(const Bytes& image) {
  auto file = parse_safetensors(image.data(), image.size(), "mem.safetensors");
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  return std::move(file).value();
}

TEST_SUITE("safetensors") {
  TEST_CASE("every tensor comes back with its dtype, shape and bytes") {
    const std::vector<float> w = {1.5f, -2.0f, 3.25f, 0.0f, 1e-30f, -7.0f};
    const std::vector<uint16_t> h = {0x3c00, 0xc000, 0x7c00};  // F16 1, -2, inf
    const std::vector<int64_t> ids = {-1, 0, INT64_MAX};
    const std::vector<uint8_t> mask = {1, 0, 1, 1, 0};
    const std::vector<double> scalar = {0.125};
    const Bytes image = safetensors_file({{"w", "F32", "[2,3]", bytes_of(w)},
                                          {"h", "F16", "[3]", bytes_of(h)},
                                          {"ids", "I64", "[1,3]", bytes_of(ids)},
                                          {"mask", "BOOL", "[5]", bytes_of(mask)},
                                          {"empty", "BF16", "[0,4]", {}},
                                          {"s", "F64", "[]", bytes_of(scalar)}});
    const auto file = parse_ok(image);
    // File order: by data offset (the empty tensor [59, 59] sorts before s [59, 67]).
    CHECK(file->names() == std::vector<std::string>{"w", "h", "ids", "mask", "empty", "s"});
    CHECK(file->description() == "mem.safetensors");
    CHECK(file->find("nope") == nullptr);

    const SourceTensor* t = file->find("w");
    REQUIRE(t != nullptr);
    CHECK(t->dtype == "F32");
    CHECK(t->shape == std::vector<int64_t>{2, 3});
    REQUIRE(t->size == 24);
    for (size_t i = 0; i < w.size(); ++i) {
      float value;
      std::memcpy(&value, t->data + 4 * i, 4);
      CHECK_MESSAGE(value == w[i], "index " << i);
    }
    CHECK(std::memcmp(file->find("h")->data, h.data(), 6) == 0);
    CHECK(file->find("ids")->shape == std::vector<int64_t>{1, 3});
    CHECK(std::memcmp(file->find("ids")->data, ids.data(), 24) == 0);
    CHECK(file->find("mask")->dtype == "BOOL");
    CHECK(file->find("empty")->size == 0);
    CHECK(file->find("empty")->shape == std::vector<int64_t>{0, 4});
    CHECK(file->find("s")->shape.empty());
    CHECK(std::memcmp(file->find("s")->data, scalar.data(), 8) == 0);
    CHECK(file->metadata().empty());
  }

  TEST_CASE("__metadata__ is exposed and is not a tensor") {
    const std::vector<float> w = {1.0f};
    const Bytes image =
        safetensors_file({{"w", "F32", "[1]", bytes_of(w)}}, R"({"format":"pt","k":"v"})");
    const auto file = parse_ok(image);
    CHECK(file->names() == std::vector<std::string>{"w"});
    CHECK(file->metadata().size() == 2);
    CHECK(file->metadata().at("format") == "pt");
    CHECK(file->find("__metadata__") == nullptr);
  }

  TEST_CASE("header padding, escaped names and unknown entry fields are accepted") {
    const std::vector<float> w = {4.0f, 5.0f};
    const std::string header =
        R"({"a\u002eb":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"extra":1}}      )";
    const Bytes image = safetensors_image(header, bytes_of(w));  // the tensors point into it
    const auto file = parse_ok(image);
    REQUIRE(file->find("a.b") != nullptr);
    CHECK(file->find("a.b")->size == 8);
  }

  TEST_CASE("an empty header holds no tensors") {
    const auto file = parse_ok(safetensors_image("{}", {}));
    CHECK(file->names().empty());
  }

  TEST_CASE("open() maps a file and names it in messages") {
    const std::vector<float> w = {1.0f, 2.0f, 3.0f};
    const std::string path =
        write_temp_file(safetensors_file({{"w", "F32", "[3]", bytes_of(w)}}), ".safetensors");
    {
      auto file = SafetensorsFile::open(path);
      REQUIRE_MESSAGE(file.is_ok(), file.status().message());
      CHECK((*file)->description() == path);
      float last;
      std::memcpy(&last, (*file)->find("w")->data + 8, 4);
      CHECK(last == 3.0f);
    }
    std::remove(path.c_str());
    auto missing = SafetensorsFile::open(path);
    check_error(missing.status(), {path});
  }
}

}  // namespace
}  // namespace normrt::test
