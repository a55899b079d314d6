// .npz: zip archives of .npy members, stored and deflated, written by libzip.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "reader_test_support.h"
#include "tools/convert/readers/npz_file.h"

namespace normrt::test {
namespace {

std::vector<float> ramp(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = scale * static_cast<float>(i % 17) - 3.0f;
  return values;
}

void check_floats(const SourceTensor* t, const std::vector<float>& expected) {
  REQUIRE(t != nullptr);
  REQUIRE(t->size == expected.size() * 4);
  for (size_t i = 0; i < expected.size(); ++i) {
    float value;
    std::memcpy(&value, t->data + 4 * i, 4);
    if (value != expected[i]) {
      FAIL_CHECK(t->name << "[" << i << "]: found " << value << ", expected " << expected[i]);
      return;
    }
  }
}

Status parse_status(const Bytes& image) {
  return parse_npz(image.data(), image.size(), "bad.npz").status();
}

TEST_SUITE("npz") {
  TEST_CASE("stored and deflated members come back as named tensors") {
    const std::vector<float> a = ramp(6, 0.5f), b = ramp(1000, 0.25f);
    const std::vector<int32_t> c = {-1, 2, 7};
    const Bytes image = zip_image({
        {"enc/W.npy", npy_image(npy_dict("<f4", "(2, 3)"), bytes_of(a)), false},
        {"b.npy", npy_image(npy_dict("<f4", "(10, 100)"), bytes_of(b)), true},
        {"c.npy", npy_image(npy_dict("<i4", "(3,)"), bytes_of(c), 2), true},
    });
    auto file = parse_npz(image.data(), image.size(), "mem.npz");
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    CHECK((*file)->names() == std::vector<std::string>{"enc/W", "b", "c"});
    CHECK((*file)->find("enc/W")->shape == std::vector<int64_t>{2, 3});
    check_floats((*file)->find("enc/W"), a);
    CHECK((*file)->find("b")->shape == std::vector<int64_t>{10, 100});
    check_floats((*file)->find("b"), b);
    CHECK((*file)->find("c")->dtype == "I32");
    CHECK(std::memcmp((*file)->find("c")->data, c.data(), 12) == 0);
  }

  TEST_CASE("open() reads a file and keeps no mapping") {
    const std::vector<float> a = ramp(5, 1.0f);
    const std::string path = write_temp_file(
        zip_image({{"a.npy", npy_image(npy_dict("<f4", "(5,)"), bytes_of(a))}}), ".npz");
    auto file = NpzFile::open(path);
    std::remove(path.c_str());  // the members were copied out
    REQUIRE_MESSAGE(file.is_ok(), file.status().message());
    CHECK((*file)->description() == path);
    check_floats((*file)->find("a"), a);
  }

  TEST_CASE("errors name the archive and the member") {
    check_error(parse_status(bytes_of(std::string("not a zip at all"))),
                {"bad.npz", "not a readable zip archive"});
    check_error(parse_status({}), {"bad.npz"});
    const Bytes npy = npy_image(npy_dict("<f4", "(2,)"), Bytes(8));
    check_error(parse_status(zip_image({{"readme.txt", npy}})),
                {"member 'readme.txt'", "expected '<tensor>.npy'"});
    check_error(parse_status(zip_image({{"w.npy", npy_image(npy_dict(">f4", "(2,)"), Bytes(8))}})),
                {"bad.npz: member 'w.npy'", "big-endian"});
  }

  TEST_CASE("a corrupted deflated member fails its CRC or inflation") {
    const std::vector<float> b = ramp(4000, 0.125f);
    const Bytes good =
        zip_image({{"b.npy", npy_image(npy_dict("<f4", "(4000,)"), bytes_of(b)), true}});
    Bytes bad = good;
    bad[good.size() / 3] ^= std::byte{0x5a};  // inside the compressed data
    check_error(parse_status(bad), {"bad.npz", "member 'b.npy'"});
  }

  TEST_CASE("a declared size beyond deflate's ratio is refused before allocating") {
    const Bytes good = zip_image(
        {{"b.npy", npy_image(npy_dict("<f4", "(4000,)"), bytes_of(ramp(4000, 1.0f))), true}});
    // Patch the uncompressed size in the local header (offset 22) and in the
    // central directory entry (offset 24), consistently.
    Bytes bad = good;
    const auto patch = [&bad](uint8_t kind, int offset) {
      const Bytes signature = {std::byte{'P'}, std::byte{'K'}, std::byte{kind},
                               std::byte{static_cast<uint8_t>(kind + 1)}};
      const auto entry = std::search(bad.begin(), bad.end(), signature.begin(), signature.end());
      REQUIRE(entry != bad.end());
      for (int i = 0; i < 4; ++i) entry[offset + i] = std::byte{0x7f};
    };
    patch(3, 22);
    patch(1, 24);
    check_error(parse_status(bad), {"member 'b.npy'", "deflate's limit", "found 2139062143"});
  }

  TEST_CASE("every truncation of a valid archive is an error, never a crash") {
    const Bytes image = zip_image({
        {"a.npy", npy_image(npy_dict("<f4", "(3,)"), bytes_of(ramp(3, 1.0f))), false},
        {"b.npy", npy_image(npy_dict("<f4", "(50,)"), bytes_of(ramp(50, 1.0f))), true},
    });
    for (size_t size = 0; size < image.size(); ++size) {
      const Bytes cut(image.begin(), image.begin() + static_cast<ptrdiff_t>(size));
      CHECK_MESSAGE(!parse_npz(cut.data(), cut.size(), "cut").is_ok(), "truncated to " << size);
    }
  }
}

}  // namespace
}  // namespace normrt::test
