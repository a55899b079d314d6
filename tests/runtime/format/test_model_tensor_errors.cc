// Hand-built broken tensor records (checksum stamped again): each reaches its
// own check, and the message names the tensor, the field, the expected and the
// found values and the field's byte offset.
#include <doctest/doctest.h>

#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

// small_graph(): 0 x input [S, 4], 1 w f32 weight [3, 4], 2 b bf16 weight [3],
// 3 y intermediate [S, 3], 4 h state [1, 3], 5 h_next intermediate [1, 3].
const Bytes& base() {
  static const Bytes file = serialize(small_graph());
  return file;
}

template <class T>
Expected<Graph> decode_with(uint64_t tensor, uint64_t field, T value) {
  return decode(
      patched(base(), [&](Bytes& f) { put<T>(f, tensor_record(f, tensor) + field, value); }));
}

uint64_t field_at(uint64_t tensor, uint64_t field) { return tensor_record(base(), tensor) + field; }

TEST_CASE("dtype, kind and layout codes must be known") {
  check_error(
      decode_with<uint8_t>(1, spec::kTDtype, 9),
      {"tensor 1 'w' dtype", at_offset(field_at(1, spec::kTDtype)),
       "expected a dtype code 0 (f32), 1 (bf16), 2 (i32) or 3 (int8)", "found 9 (unknown dtype)"});
  // int8 came with version 3; the base file is version 1.
  check_error(decode_with<uint8_t>(1, spec::kTDtype, 3),
              {"tensor 1 'w' dtype", at_offset(field_at(1, spec::kTDtype)), "in a version-1 file",
               "found 3 (int8, version 3 and later)"});
  check_error(
      decode_with<uint8_t>(3, spec::kTKind, 7),
      {"tensor 3 'y' kind", at_offset(field_at(3, spec::kTKind)), "found 7 (unknown kind)"});
  check_error(decode_with<uint8_t>(0, spec::kTLayout, 9),
              {"tensor 0 'x' layout", at_offset(field_at(0, spec::kTLayout)),
               "expected layout 0 (row-major), 1, 2 or 3", "found 9 (unknown layout)"});
  // Panel layouts came with version 2; the base file is version 1.
  check_error(decode_with<uint8_t>(0, spec::kTLayout, 1),
              {"tensor 0 'x' layout", at_offset(field_at(0, spec::kTLayout)),
               "expected 0 (row-major) in a version-1 file", "found 1 (a panel layout"});
  check_error(decode_with<uint32_t>(4, spec::kTReserved, 1),
              {"tensor 4 'h' reserved field", at_offset(field_at(4, spec::kTReserved)), "found 1"});
}

TEST_CASE("rank and dimensions are checked field by field") {
  check_error(decode_with<uint8_t>(3, spec::kTRank, 7),
              {"tensor 3 'y' rank", at_offset(field_at(3, spec::kTRank)),
               "expected a rank of at most 4", "found 7"});
  // Rank 1 for y [S, 3]: its second dim is now an unused slot that is not 0.
  check_error(decode_with<uint8_t>(3, spec::kTRank, 1),
              {"tensor 3 'y' dimension 1", at_offset(field_at(3, spec::kTDims + 8)),
               "expected 0 (unused: the rank is 1)", "found 3"});
  check_error(decode_with<int64_t>(0, spec::kTDims + 8, -2),
              {"tensor 0 'x' dimension 1", at_offset(field_at(0, spec::kTDims + 8)),
               "expected a dimension >= 0 or -1 (S)", "found -2"});
  check_error(decode_with<int64_t>(1, spec::kTDims, -1),
              {"tensor 1 'w' dimension 0",
               "expected a fixed dimension (weights have no symbolic S)", "found -1 (S)"});
  // y [S, 2^45] f32 at S = 16: 2^51 bytes.
  check_error(decode_with<int64_t>(3, spec::kTDims + 8, int64_t{1} << 45),
              {"tensor 3 'y' size", at_offset(field_at(3, spec::kTDims)),
               "expected fewer than 2^48 bytes at S = max_sequence_length (16)",
               "found shape [S, 35184372088832] of f32"});
}

TEST_CASE("names must be present, well formed, inside the string table and unique") {
  check_error(decode_with<uint32_t>(2, spec::kTName + 4, 0),
              {"tensor 2 name", at_offset(field_at(2, spec::kTName)), "found an empty name"});
  check_error(decode_with<uint32_t>(2, spec::kTName, 1u << 30),
              {"tensor 2 name (string reference)", at_offset(field_at(2, spec::kTName)),
               "expected a range within the", "found offset 1073741824, length 1"});
  // A name 2000 bytes long (pointing into the rich graph's long string value).
  const Bytes rich = serialize(rich_graph());
  const Bytes long_name = patched(rich, [](Bytes& f) {
    const uint64_t text =
        string_offset(f, std::string(3000, 'q')) - section_offset(f, spec::kStrings);
    put<uint32_t>(f, tensor_record(f, 0) + spec::kTName, static_cast<uint32_t>(text));
    put<uint32_t>(f, tensor_record(f, 0) + spec::kTName + 4, 2000);
  });
  check_error(decode(long_name),
              {"tensor 0 name", at_offset(tensor_record(rich, 0)),
               "expected a name of 1..1024 bytes", "found a name of 2000 bytes"});
  // y takes w's name: duplicate.
  const Bytes duplicate = patched(base(), [](Bytes& f) {
    put<uint64_t>(f, tensor_record(f, 3) + spec::kTName, get<uint64_t>(f, tensor_record(f, 1)));
  });
  check_error(decode(duplicate), {"tensor 3 'w' name", at_offset(field_at(3, spec::kTName)),
                                  "expected a unique tensor name", "found the name of tensor 1"});
  // A control character inside h_next's name.
  const Bytes control = patched(
      base(), [](Bytes& f) { put<uint8_t>(f, string_offset(f, "h_next") + 1, uint8_t{'\n'}); });
  check_error(decode(control), {"tensor 5 name", at_offset(field_at(5, spec::kTName)),
                                "found control character 0x0a at index 1"});
}

TEST_CASE("a weight's data is aligned, inside the data section and of its exact size") {
  const uint64_t data_end = section_offset(base(), spec::kData) + section_size(base(), spec::kData);
  const uint64_t w_offset = get<uint64_t>(base(), field_at(1, spec::kTDataOffset));
  const uint64_t b_offset = get<uint64_t>(base(), field_at(2, spec::kTDataOffset));
  const uint64_t beyond = (data_end + 63) / 64 * 64 + 64 * 100;  // aligned, past the end
  check_error(decode_with<uint64_t>(2, spec::kTDataOffset, beyond),
              {"tensor 2 'b' data", at_offset(field_at(2, spec::kTDataOffset)),
               "expected a range within the data section",
               "found offset " + std::to_string(beyond) + ", size 6"});
  check_error(decode_with<uint64_t>(2, spec::kTDataOffset, UINT64_MAX - 63),
              {"tensor 2 'b' data", "expected a range within the data section"});
  check_error(decode_with<uint64_t>(1, spec::kTDataOffset, w_offset + 4),
              {"tensor 1 'w' data offset", at_offset(field_at(1, spec::kTDataOffset)),
               "expected a multiple of 64", "(remainder 4)"});
  check_error(decode_with<uint64_t>(1, spec::kTDataSize, 52),
              {"tensor 1 'w' data size", at_offset(field_at(1, spec::kTDataSize)),
               "expected 48 bytes ([3, 4] of f32)", "found 52 bytes"});
  check_error(decode_with<uint64_t>(2, spec::kTDataOffset, w_offset),
              {"data [" + std::to_string(w_offset), "expected no overlap with other weights",
               "found an overlap with tensor"});
  CHECK(b_offset == w_offset + 64);  // the spec's writer layout the overlap case relies on
}

TEST_CASE("only weights carry data") {
  check_error(decode_with<uint64_t>(3, spec::kTDataSize, 64),
              {"tensor 3 'y' data", at_offset(field_at(3, spec::kTDataOffset)),
               "expected offset 0 and size 0 (a tensor of kind intermediate carries no data)",
               "found offset 0, size 64"});
  // A weight turned into an input keeps its data: rejected.
  check_error(decode_with<uint8_t>(1, spec::kTKind, 0),
              {"tensor 1 'w' data", "a tensor of kind input carries no data"});
  // A state turned into a weight has none: rejected by its size.
  check_error(decode_with<uint8_t>(4, spec::kTKind, 1),
              {"tensor 4 'h' data size", "expected 12 bytes ([1, 3] of f32)", "found 0 bytes"});
}

}  // namespace
}  // namespace normrt::testing
