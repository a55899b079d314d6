// Hand-built broken headers and section maps: each reaches its own check and
// the message names the field, the expected and found values and the offset.
#include <doctest/doctest.h>

#include "runtime/format/model_file.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

const Bytes& base() {
  static const Bytes file = serialize(small_graph());
  return file;
}

TEST_CASE("a file that is not a model file is rejected by its magic") {
  const Bytes file = patched(base(), [](Bytes& f) { std::memcpy(f.data(), "GGUF", 4); });
  check_error(decode(file),
              {"test.nrmt: magic", at_offset(0), "expected \"NRMT\"", "found \"GGUF\""});
  check_error(decode(Bytes{}), {"magic", "found a file of 0 bytes"});
}

TEST_CASE("a newer format version is refused before anything else is read") {
  // Everything after the version may differ in a newer version: garble it.
  Bytes file = base();
  put<uint32_t>(file, spec::kVersion, 4);
  for (size_t i = 8; i < file.size(); ++i) file[i] = std::byte{0xA5};
  check_error(decode(file), {"format version", at_offset(4), "expected version 3 or older",
                             "upgrade normrt", "found version 4"});
  put<uint32_t>(file, spec::kVersion, 0);
  check_error(decode(file), {"format version", "found version 0"});
}

TEST_CASE("header size, flags and the reserved field have their version-1 values") {
  check_error(
      decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kHeaderSizeField, 64); })),
      {"header size", at_offset(8), "expected 128", "found 64"});
  check_error(decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kFlags, 4); })),
              {"flags", at_offset(12), "expected 0", "found 4"});
  check_error(decode(patched(base(), [](Bytes& f) { put<uint64_t>(f, spec::kReserved, 9); })),
              {"reserved header field", at_offset(0x78), "found 9"});
}

TEST_CASE("the recorded file size must be the actual size") {
  Bytes longer = base();
  longer.resize(longer.size() + 64);
  check_error(decode(longer), {"file size (bytes after the end of the model)", at_offset(16),
                               "expected " + std::to_string(base().size()) + " bytes",
                               "found " + std::to_string(longer.size()) + " bytes"});
}

TEST_CASE("a checksum mismatch gives both values") {
  Bytes file = base();
  const uint64_t last = file.size() - 1;  // a weight byte
  put<uint8_t>(file, last, get<uint8_t>(file, last) ^ 0x10);
  char stored[24], computed[24];
  std::snprintf(stored, sizeof(stored), "0x%016llx",
                static_cast<unsigned long long>(get<uint64_t>(file, spec::kChecksum)));
  std::snprintf(computed, sizeof(computed), "0x%016llx",
                static_cast<unsigned long long>(reference_checksum(file)));
  check_error(decode(file), {"checksum", at_offset(24), std::string("expected ") + stored,
                             std::string("found ") + computed});
}

TEST_CASE("sections must lie inside the file, after the header") {
  const uint64_t size = base().size();
  check_error(decode(patched(base(),
                             [&](Bytes& f) {
                               put<uint64_t>(f, spec::section_offset_field(spec::kNodes), size + 8);
                             })),
              {"node table offset " + std::to_string(size + 8), at_offset(0x30),
               "expected a range within [128, " + std::to_string(size) + ")",
               "found an offset outside it"});
  check_error(decode(patched(base(),
                             [](Bytes& f) {
                               put<uint64_t>(f, spec::section_size_field(spec::kGraph),
                                             UINT64_MAX - 16);
                             })),
              {"graph table", at_offset(0x40), "found an end past it"});
  check_error(decode(patched(base(),
                             [](Bytes& f) {
                               put<uint64_t>(f, spec::section_offset_field(spec::kStrings), 16);
                             })),
              {"string table offset 16", at_offset(0x50), "found an offset outside it"});
}

TEST_CASE("sections must not overlap") {
  const Bytes file = patched(base(), [](Bytes& f) {
    put<uint64_t>(f, spec::section_offset_field(spec::kGraph), section_offset(f, spec::kNodes) + 4);
  });
  check_error(decode(file), {"graph table", at_offset(0x40),
                             "expected no overlap with the node table", "found an overlap"});
}

TEST_CASE("the data section starts at a multiple of 64") {
  const Bytes file = patched(base(), [](Bytes& f) {
    put<uint64_t>(f, spec::section_offset_field(spec::kData), section_offset(f, spec::kData) + 8);
    put<uint64_t>(f, spec::section_size_field(spec::kData), section_size(f, spec::kData) - 8);
  });
  check_error(decode(file), {"data section", at_offset(0x60),
                             "expected an offset that is a multiple of 64", "found remainder 8"});
}

TEST_CASE("counts must agree with the table sizes before anything is allocated") {
  check_error(decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kTensorCount, 7); })),
              {"tensor count", at_offset(0x70), "expected 6", "found 7"});
  check_error(
      decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kTensorCount, UINT32_MAX); })),
      {"tensor count", "found 4294967295"});
  const uint64_t node_table = section_size(base(), spec::kNodes);
  check_error(
      decode(patched(base(), [](Bytes& f) { put<uint32_t>(f, spec::kNodeCount, UINT32_MAX); })),
      {"node count", at_offset(0x74), "expected at most " + std::to_string(node_table / 24),
       "found 4294967295"});
  check_error(
      decode(patched(
          base(), [](Bytes& f) { put<uint64_t>(f, spec::section_size_field(spec::kGraph), 16); })),
      {"graph table size", at_offset(0x48), "expected at least 24 bytes", "found 16 bytes"});
}

TEST_CASE("decode_model requires a 64-byte aligned buffer") {
  AlignedImage image = aligned_copy(base(), base().size() + 8);
  Bytes shifted(base().size() + 8);
  std::memcpy(shifted.data() + 8, base().data(), base().size());
  AlignedImage padded = aligned_copy(shifted, shifted.size());
  const Expected<Graph> result =
      decode_model(padded.data() + 8, base().size(), padded.storage, "shifted.nrmt");
  check_error(result, {"shifted.nrmt", "64-byte aligned", "remainder 8"});
  CHECK(decode_model(image.data(), base().size(), image.storage, "aligned.nrmt").is_ok());
}

}  // namespace
}  // namespace normrt::testing
