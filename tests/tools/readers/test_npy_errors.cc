// .npy: every malformed image is an error naming the problem, the expected
// and found values and the byte offset — never a crash.
#include <doctest/doctest.h>

#include "reader_test_support.h"
#include "tools/convert/readers/npy_array.h"

namespace normrt::test {
namespace {

Status parse_status(const Bytes& image) {
  return parse_npy(image.data(), image.size(), "w", "weights.npz: member 'w.npy'").status();
}

const Bytes kEight(8);

TEST_SUITE("npy") {
  TEST_CASE("magic, version and header length") {
    Bytes image = npy_image(npy_dict("<f4", "(2,)"), kEight);
    Bytes bad_magic = image;
    bad_magic[1] = std::byte{'X'};
    check_error(parse_status(bad_magic), {"weights.npz: member 'w.npy'", "magic", "byte offset 0"});
    check_error(parse_status(Bytes(image.begin(), image.begin() + 5)), {"magic", "found 5 bytes"});
    Bytes bad_version = image;
    bad_version[6] = std::byte{4};
    check_error(parse_status(bad_version), {"version", "found 4.0", "byte offset 6"});
    bad_version[6] = std::byte{1};
    bad_version[7] = std::byte{1};
    check_error(parse_status(bad_version), {"version", "found 1.1"});
    Bytes long_header = image;
    long_header[9] = std::byte{0x7f};
    check_error(parse_status(long_header), {"header length", "found 32630", "byte offset 8"});
    Bytes v2 = npy_image(npy_dict("<f4", "(2,)"), kEight, 2);
    v2[11] = std::byte{0xff};
    check_error(parse_status(v2), {"header length", "at most", "byte offset 8"});
  }

  TEST_CASE("refused layouts and types name the descr or the order") {
    check_error(parse_status(npy_image(npy_dict("<f4", "(2,)", true), kEight)),
                {"'fortran_order'", "expected False", "found True"});
    check_error(parse_status(npy_image(npy_dict(">f4", "(2,)"), kEight)),
                {"'>f4' is big-endian", "little-endian"});
    check_error(parse_status(npy_image(npy_dict("<c8", "(1,)"), kEight)), {"'<c8' is unsupported"});
    check_error(parse_status(npy_image(npy_dict("|O", "(1,)"), kEight)), {"'|O' is unsupported"});
    check_error(parse_status(npy_image(npy_dict("=f4", "(2,)"), kEight)),
                {"'=f4' is unsupported byte order"});
    check_error(parse_status(npy_image(
                    "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", kEight)),
                {"'descr'", "structured dtypes are not supported", "byte offset 20"});
  }

  TEST_CASE("header dict syntax errors give the byte offset") {
    check_error(parse_status(npy_image("'descr': '<f4'", kEight)),
                {"header", "a Python dict", "found \"'descr'", "byte offset 10"});
    check_error(parse_status(npy_image("{'descr': '<f4', 'fortran_order': False}", kEight)),
                {"misses 'shape'"});
    check_error(parse_status(npy_image(
                    "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", kEight)),
                {"header key 'x'", "each of 'descr', 'fortran_order', 'shape' once"});
    check_error(
        parse_status(npy_image(
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", kEight)),
        {"header key 'descr'"});
    check_error(parse_status(npy_image(npy_dict("<f4", "(2, -1)"), kEight)),
                {"'shape'[1]", "non-negative integer", "found \"-1)"});
    check_error(parse_status(npy_image(npy_dict("<f4", "[2]"), kEight)), {"'shape'", "a tuple"});
    check_error(parse_status(npy_image(npy_dict("<f4", "(99999999999999999999,)"), kEight)),
                {"below 2^63"});
    check_error(
        parse_status(npy_image("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", kEight)),
        {"'fortran_order'", "True or False", "found \"0"});
    check_error(parse_status(npy_image(npy_dict("<f4", "(2,)") + " junk", kEight)),
                {"after the header dict", "found \"junk"});
    check_error(parse_status(npy_image("{'descr': '<f4", kEight)), {"closing quote"});
  }

  TEST_CASE("the data must be exactly elements x dtype size") {
    check_error(parse_status(npy_image(npy_dict("<f4", "(3,)"), kEight)),
                {"data", "expected 12 bytes (F32 [3])", "found 8", "data at byte offset 128"});
    check_error(parse_status(npy_image(npy_dict("<f4", "(1,)"), kEight)),
                {"expected 4 bytes", "found 8"});
    check_error(
        parse_status(npy_image(npy_dict("<f8", "(4294967296, 4294967296, 4294967296)"), kEight)),
        {"overflowing"});
  }

  TEST_CASE("every truncation of a valid image is an error, never a crash") {
    for (const int major : {1, 2, 3}) {
      const Bytes image = npy_image(npy_dict("<f4", "(2,)"), kEight, major);
      for (size_t size = 0; size < image.size(); ++size) {
        const Bytes cut(image.begin(), image.begin() + static_cast<ptrdiff_t>(size));
        CHECK_MESSAGE(!parse_npy(cut.data(), cut.size(), "w").is_ok(),
                      "version " << major << " truncated to " << size);
      }
    }
  }
}

}  // namespace
}  // namespace normrt::test
