// safetensors: every malformed file is an error naming the tensor, the
// expected and found values and the byte offset — never a crash.
#include <doctest/doctest.h>

#include "reader_test_support.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt::test {
namespace {

Status parse_status(const Bytes& image) {
  return parse_safetensors(image.data(), image.size(), "bad.safetensors").status();
}

// One tensor "w" with `entry` as its header entry and `data_size` data bytes.
Status parse_entry(const std::string& entry, size_t data_size = 8) {
  return parse_status(safetensors_image("{\"w\":" + entry + "}", Bytes(data_size)));
}

const std::vector<float> kTwo = {1.0f, 2.0f};

TEST_SUITE("safetensors") {
  TEST_CASE("file framing errors give the file and the header length") {
    check_error(parse_status(Bytes(5)), {"bad.safetensors", "at least 8", "found 5"});
    Bytes huge = safetensors_image("{}", {});
    huge[4] = std::byte{1};  // 2^32 + 2
    check_error(parse_status(huge), {"header length", "at most 100000000", "found 4294967298"});
    Bytes past = safetensors_image("{}", {});
    past[0] = std::byte{3};  // 3 bytes of header in a 10-byte file
    check_error(parse_status(past), {"runs past the end", "at most 2", "found 3", "offset 0"});
  }

  TEST_CASE("bad JSON names the parser's complaint and the byte offset") {
    check_error(parse_status(safetensors_image("{\"w\": }", {})),
                {"bad.safetensors: header", "line 1, column 7", "file byte offset 14"});
    check_error(parse_status(safetensors_image("[1,2]", {})), {"expected a JSON object", "array"});
    check_error(parse_status(safetensors_image(std::string(20, '[') + std::string(20, ']'), {})),
                {"nests deeper than 8", "file byte offset 16"});
    check_error(parse_status(safetensors_image("{\"a\":\"\xff\"}", {})), {"header"});
  }

  TEST_CASE("entry fields are checked one by one") {
    check_error(parse_entry(R"({"shape":[2],"data_offsets":[0,8]})"),
                {"tensor 'w'", "missing \"dtype\"", "entry at file byte offset 9"});
    check_error(parse_entry(R"({"dtype":"F32","data_offsets":[0,8]})"), {"missing \"shape\""});
    check_error(parse_entry(R"({"dtype":"F32","shape":[2]})"), {"missing \"data_offsets\""});
    check_error(parse_entry(R"({"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]})"),
                {"tensor 'w'", "dtype", "one of F64", "found \"F8_E4M3\""});
    check_error(parse_entry(R"({"dtype":4,"shape":[2],"data_offsets":[0,8]})"),
                {"dtype", "expected a string", "found number 4"});
    check_error(parse_entry(R"({"dtype":"F32","shape":[2,-1],"data_offsets":[0,8]})"),
                {"shape[1]", "non-negative integer", "found number -1"});
    check_error(parse_entry(R"({"dtype":"F32","shape":[2.0],"data_offsets":[0,8]})"),
                {"shape[0]", "found number 2.0"});
    check_error(parse_entry(R"({"dtype":"F32","shape":"2","data_offsets":[0,8]})"),
                {"shape", "expected an array", "found string"});
    check_error(parse_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0]})"),
                {"data_offsets", "[begin, end]", "found array [0]"});
    check_error(parse_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,-8]})"),
                {"data_offsets", "found array [0,-8]"});
    check_error(parse_entry("[1]"), {"tensor 'w'", "entry", "expected an object"});
  }

  TEST_CASE("offsets must lie inside the data section") {
    check_error(parse_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})"),
                {"tensor 'w'", "begin <= end"});
    check_error(parse_entry(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})"),
                {"tensor 'w'", "end <= 8", "found 16"});
    check_error(
        parse_entry(R"({"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615]})"),
        {"end <= 8", "found 18446744073709551615"});
  }

  TEST_CASE("the byte range must be exactly elements x dtype size") {
    check_error(parse_entry(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})"),
                {"tensor 'w'", "expected 12 bytes (F32 [3])", "found 8"});
    check_error(
        parse_entry(R"({"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]})"),
        {"tensor 'w'", "overflowing"});
    check_error(
        parse_entry(
            R"({"dtype":"F64","shape":[1024,1024,1024,1024,1024,1024,1024],"data_offsets":[0,8]})"),
        {"overflowing"});
  }

  TEST_CASE("tensors may neither overlap, nor leave gaps, nor repeat") {
    const Bytes data(12);
    check_error(
        parse_status(safetensors_image(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                       Bytes(8))),
        {"tensor 'b'", "overlaps tensor 'a'", "expected begin 8", "found 4",
         "data at file byte offset"});
    check_error(
        parse_status(safetensors_image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                       R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                                       data)),
        {"tensor 'b'", "gap", "expected begin 4", "found 8"});
    check_error(parse_status(safetensors_image(
                    R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", data)),
                {"data section", "expected 12 bytes covered", "found 4"});
    check_error(
        parse_status(safetensors_image(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                       R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                       Bytes(8))),
        {"tensor 'a' appears twice", "file byte offsets 9 and"});
  }

  TEST_CASE("__metadata__ must be an object of strings") {
    check_error(parse_status(safetensors_image(R"({"__metadata__":{"n":1}})", {})),
                {"\"__metadata__\" key 'n'", "expected a string", "found number 1"});
    check_error(parse_status(safetensors_image(R"({"__metadata__":[]})", {})),
                {"\"__metadata__\"", "expected an object"});
  }

  TEST_CASE("every truncation of a valid file is an error, never a crash") {
    const std::vector<uint16_t> h = {1, 2, 3};
    const Bytes image =
        safetensors_file({{"w", "F32", "[2]", bytes_of(kTwo)}, {"h", "BF16", "[3]", bytes_of(h)}},
                         R"({"format":"pt"})");
    for (size_t size = 0; size < image.size(); ++size) {
      const Bytes cut(image.begin(), image.begin() + static_cast<ptrdiff_t>(size));
      auto file = parse_safetensors(cut.data(), cut.size(), "cut");
      CHECK_MESSAGE(!file.is_ok(), "truncated to " << size << " of " << image.size());
    }
  }

  TEST_CASE("every single-byte change is an error or a consistent file") {
    const Bytes image = safetensors_file({{"w", "F32", "[2]", bytes_of(kTwo)}});
    for (size_t i = 0; i < image.size(); ++i) {
      for (const uint8_t value : {0x00, 0x22, 0x5d, 0x7d, 0xff}) {
        Bytes changed = image;
        changed[i] = static_cast<std::byte>(value);
        auto file = parse_safetensors(changed.data(), changed.size(), "changed");
        if (!file.is_ok()) continue;
        for (const SourceTensor& t : (*file)->tensors()) {  // everything stays in bounds
          CHECK(t.data >= changed.data());
          CHECK(t.data + t.size <= changed.data() + changed.size());
        }
      }
    }
  }
}

}  // namespace
}  // namespace normrt::test
