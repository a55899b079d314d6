// The corpus of damaged files: every truncation, every single-byte flip (with
// the checksum left alone, and stamped again so the structural checks see the
// damage). Each must give an error, never a crash or an allocation sized by
// an unchecked count (run under AddressSanitizer too).
#include <doctest/doctest.h>

#include <cstdio>

#include "tests/runtime/format/allocation_probe.h"
#include "tests/runtime/format/model_test_support.h"

namespace normrt::testing {
namespace {

/// Far above what decoding a file of a few KiB legitimately allocates, far
/// below what an unchecked 32-bit count would ask for.
constexpr size_t kAllocationCeiling = size_t{1} << 20;

std::string hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

struct NamedFile {
  std::string name;
  Bytes bytes;
};

std::vector<NamedFile> corpus_sources() {
  return {{"small graph", serialize(small_graph())}, {"rich graph", serialize(rich_graph())}};
}

/// The error a file cut to `size` bytes must give (the header's checks run in
/// the order magic, version, header, file size).
std::string truncation_error(size_t size) {
  if (size < 4) return "magic";
  if (size < 8) return "format version";
  if (size < spec::kHeaderSize) return "header (file truncated)";
  return "file size (file truncated) " + at_offset(spec::kFileSize);
}

TEST_CASE("a file truncated at any offset is rejected as truncated") {
  for (const NamedFile& source : corpus_sources()) {
    INFO(source.name << ", " << source.bytes.size() << " bytes");
    AllocationProbe probe;
    for (size_t size = 0; size < source.bytes.size(); ++size) {
      INFO("truncated to " << size << " bytes");
      check_error(decode(source.bytes, size),
                  {std::string(kSource) + ": ", truncation_error(size)});
    }
    CHECK(probe.largest() < kAllocationCeiling);
  }
}

TEST_CASE("a truncated file whose header was made consistent still fails on its sections") {
  for (const NamedFile& source : corpus_sources()) {
    INFO(source.name);
    AllocationProbe probe;
    for (size_t size = spec::kChecksum + 8; size < source.bytes.size(); ++size) {
      INFO("truncated to " << size << " bytes, file size and checksum updated");
      Bytes cut(source.bytes.begin(), source.bytes.begin() + size);
      const Bytes file = patched(cut, [&](Bytes& f) {
        if (size >= spec::kFileSize + 8) put<uint64_t>(f, spec::kFileSize, size);
      });
      check_error(decode(file), {std::string(kSource) + ": ", "at byte offset"});
    }
    CHECK(probe.largest() < kAllocationCeiling);
  }
}

/// The error a flip of the byte at `offset` must give, checksum untouched.
std::vector<std::string> flip_error(uint64_t offset) {
  if (offset < 4) return {"magic", at_offset(spec::kMagic)};
  if (offset < 8) return {"format version", at_offset(spec::kVersion)};
  if (offset < 12) return {"header size", at_offset(spec::kHeaderSizeField)};
  if (offset >= spec::kFileSize && offset < spec::kFileSize + 8) {
    return {"file size", at_offset(spec::kFileSize)};
  }
  return {"checksum (the file is corrupted or was modified)", at_offset(spec::kChecksum)};
}

TEST_CASE("every single-byte flip is caught, by the checksum unless an earlier check applies") {
  for (const NamedFile& source : corpus_sources()) {
    INFO(source.name);
    for (uint8_t mask : {uint8_t{0xff}, uint8_t{0x01}}) {
      for (uint64_t offset = 0; offset < source.bytes.size(); ++offset) {
        INFO("byte " << offset << " xor " << int(mask));
        Bytes file = source.bytes;
        put<uint8_t>(file, offset, get<uint8_t>(file, offset) ^ mask);
        const Expected<Graph> result = decode(file);
        std::vector<std::string> expected = flip_error(offset);
        if (expected[0].rfind("checksum", 0) == 0) {
          // Both values: the one stored and the one the spec's formula gives.
          expected.push_back(hex64(get<uint64_t>(file, spec::kChecksum)) + " (stored)");
          expected.push_back(hex64(reference_checksum(file)));
        }
        REQUIRE(!result.is_ok());
        for (const std::string& fragment : expected) {
          CHECK_MESSAGE(result.status().message().find(fragment) != std::string::npos,
                        result.status().message() << "\nmissing: " << fragment);
        }
      }
    }
  }
}

TEST_CASE("every single-byte flip behind a fresh checksum decodes or fails cleanly") {
  // Flips in names, float values or weights give valid files; everything else
  // must be an error that names a byte offset. None may crash or allocate
  // from an unchecked count.
  for (const NamedFile& source : corpus_sources()) {
    INFO(source.name);
    const uint64_t data = section_offset(source.bytes, spec::kData);
    size_t accepted = 0, rejected = 0;
    AllocationProbe probe;
    for (uint8_t mask : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
      for (uint64_t offset = 0; offset < source.bytes.size(); ++offset) {
        if (offset >= spec::kChecksum && offset < spec::kChecksum + 8) continue;
        INFO("byte " << offset << " xor " << int(mask));
        const Bytes file = patched(source.bytes, [&](Bytes& f) {
          put<uint8_t>(f, offset, get<uint8_t>(f, offset) ^ mask);
        });
        const Expected<Graph> result = decode(file);
        if (result.is_ok()) {
          ++accepted;
          continue;
        }
        ++rejected;
        const std::string message = result.status().message();
        CHECK_MESSAGE(message.rfind(std::string(kSource) + ": ", 0) == 0, message);
        CHECK_MESSAGE(message.find("at byte offset") != std::string::npos, message);
        CHECK_MESSAGE(message.find("expected") != std::string::npos, message);
        // A flip in the data section can only make weights different, never invalid.
        CHECK_MESSAGE(offset < data, message);
      }
    }
    CHECK(probe.largest() < kAllocationCeiling);
    CHECK(rejected > 0);
    MESSAGE(source.name << ": " << rejected << " flips rejected, " << accepted << " accepted");
  }
}

}  // namespace
}  // namespace normrt::testing
