// read_header(): the first checks of a file, in the order that gives the most
// useful message: is it a model file at all (magic), can this reader read it
// (version, before anything else that a newer version may change), is it
// whole (file size), is it intact (checksum), and is its map of sections sane.
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/format/model_checksum.h"
#include "runtime/format/model_reader.h"

namespace normrt::model_format {

namespace {

std::string hex64(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string magic_string(const std::byte* bytes, uint64_t count) {
  std::string text = "\"";
  for (uint64_t i = 0; i < count; ++i) {
    const auto c = std::to_integer<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f) {
      text += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      text += escaped;
    }
  }
  return text + "\"";
}

Status check_identity(const FileImage& image) {
  const std::string whole = std::to_string(image.size) + " bytes";
  if (image.size < sizeof(kMagic) || std::memcmp(image.data, kMagic, sizeof(kMagic)) != 0) {
    return image.fail(
        kMagicField, "magic (is this a normrt model file?)", "\"NRMT\"",
        image.size < sizeof(kMagic) ? "a file of " + whole : magic_string(image.data, 4));
  }
  if (image.size < kVersionField + 4) {
    return image.fail(kVersionField, "format version", "a 4-byte version", "a file of " + whole);
  }
  const uint32_t version = image.load<uint32_t>(kVersionField);
  if (version > kVersion) {
    return image.fail(
        kVersionField, "format version",
        "version " + std::to_string(kVersion) + " or older (upgrade normrt to read this file)",
        "version " + std::to_string(version));
  }
  if (version < 1) return image.fail(kVersionField, "format version", "version 1", "version 0");
  if (image.size < kHeaderSize) {
    return image.fail(0, "header (file truncated)",
                      "at least " + std::to_string(kHeaderSize) + " bytes", whole);
  }
  const uint32_t header_size = image.load<uint32_t>(kHeaderSizeField);
  if (header_size != kHeaderSize) {
    return image.fail(kHeaderSizeField, "header size", std::to_string(kHeaderSize),
                      std::to_string(header_size));
  }
  const uint64_t file_size = image.load<uint64_t>(kFileSizeField);
  if (file_size != image.size) {
    return image.fail(kFileSizeField,
                      image.size < file_size ? "file size (file truncated)"
                                             : "file size (bytes after the end of the model)",
                      std::to_string(file_size) + " bytes, as the header records",
                      std::to_string(image.size) + " bytes");
  }
  NORMRT_ASSIGN_OR_RETURN(uint64_t computed, compute_model_checksum(image.data, image.size));
  const uint64_t stored = image.load<uint64_t>(kChecksumField);
  if (computed != stored) {
    return image.fail(kChecksumField, "checksum (the file is corrupted or was modified)",
                      hex64(stored) + " (stored)", hex64(computed) + " (XXH3-64 of the file)");
  }
  return Status::ok();
}

Status check_zero(const FileImage& image, uint64_t offset, uint64_t value, const char* field) {
  if (value == 0) return Status::ok();
  return image.fail(offset, field, "0 (reserved in version 1)", std::to_string(value));
}

Status read_sections(const FileImage& image, Header& header) {
  const Span usable{kHeaderSize, image.size - kHeaderSize};
  for (size_t section = 0; section < kSectionCount; ++section) {
    const Span span{image.load<uint64_t>(section_offset_field(section)),
                    image.load<uint64_t>(section_size_field(section))};
    const std::string subject = std::string(kSectionNames[section]) + " offset " +
                                std::to_string(span.offset) + ", size " + std::to_string(span.size);
    if (span.offset < usable.offset || span.offset > usable.end() ||
        span.size > usable.end() - span.offset) {
      return image.fail(section_offset_field(section), subject,
                        "a range within " + span_string(usable) + " (after the header)",
                        span.offset < usable.offset || span.offset > usable.end()
                            ? "an offset outside it"
                            : "an end past it");
    }
    if (section == kData && span.offset % kDataAlignment != 0) {
      return image.fail(section_offset_field(section), subject,
                        "an offset that is a multiple of " + std::to_string(kDataAlignment),
                        "remainder " + std::to_string(span.offset % kDataAlignment));
    }
    for (size_t other = 0; other < section; ++other) {
      const Span& before = header.sections[other];
      if (span.size == 0 || before.size == 0) continue;
      if (span.offset < before.end() && before.offset < span.end()) {
        return image.fail(
            section_offset_field(section), subject,
            "no overlap with the " + std::string(kSectionNames[other]) + " " + span_string(before),
            "an overlap " + span_string(span));
      }
    }
    header.sections[section] = span;
  }
  return Status::ok();
}

}  // namespace

Expected<Header> read_header(const FileImage& image) {
  NORMRT_RETURN_IF_ERROR(check_identity(image));
  NORMRT_RETURN_IF_ERROR(
      check_zero(image, kFlagsField, image.load<uint32_t>(kFlagsField), "flags"));
  NORMRT_RETURN_IF_ERROR(check_zero(image, kReservedField, image.load<uint64_t>(kReservedField),
                                    "reserved header field"));
  Header header;
  header.version = image.load<uint32_t>(kVersionField);
  NORMRT_RETURN_IF_ERROR(read_sections(image, header));
  header.tensor_count = image.load<uint32_t>(kTensorCountField);
  header.node_count = image.load<uint32_t>(kNodeCountField);
  const uint64_t tensor_table_size = header.sections[kTensorTable].size;
  if (uint64_t{header.tensor_count} * kTensorRecordSize != tensor_table_size) {
    return image.fail(kTensorCountField, "tensor count",
                      std::to_string(tensor_table_size / kTensorRecordSize) + " (the " +
                          std::to_string(tensor_table_size) + "-byte tensor table holds " +
                          std::to_string(kTensorRecordSize) + "-byte records)",
                      std::to_string(header.tensor_count));
  }
  const uint64_t node_table_size = header.sections[kNodeTable].size;
  if (uint64_t{header.node_count} > node_table_size / kNodeFixedSize) {
    return image.fail(kNodeCountField, "node count",
                      "at most " + std::to_string(node_table_size / kNodeFixedSize) + " (the " +
                          std::to_string(node_table_size) + "-byte node table, " +
                          std::to_string(kNodeFixedSize) + " bytes or more per node)",
                      std::to_string(header.node_count));
  }
  const uint64_t graph_table_size = header.sections[kGraphTable].size;
  if (graph_table_size < kGraphFixedSize) {
    return image.fail(section_size_field(kGraphTable), "graph table size",
                      "at least " + std::to_string(kGraphFixedSize) + " bytes",
                      std::to_string(graph_table_size) + " bytes");
  }
  return header;
}

}  // namespace normrt::model_format
