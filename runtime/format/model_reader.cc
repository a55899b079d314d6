// decode_model() / parse_model(): the reading order, and the helpers every
// table reader shares (error messages, string references).
#include "runtime/format/model_reader.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "runtime/format/model_file.h"
#include "runtime/validate/graph_validate.h"

namespace normrt {

namespace model_format {

Status FileImage::fail(uint64_t offset, const std::string& subject, const std::string& expected,
                       const std::string& found) const {
  char where[64];
  std::snprintf(where, sizeof(where), " at byte offset %llu (0x%llx)",
                static_cast<unsigned long long>(offset), static_cast<unsigned long long>(offset));
  return Status::error(source + ": " + subject + where + ": expected " + expected + ", found " +
                       found);
}

std::string span_string(const Span& span) {
  return "[" + std::to_string(span.offset) + ", " + std::to_string(span.end()) + ")";
}

namespace {

// The bytes of the string reference at `ref_offset`, inside the string table.
Expected<std::string_view> referenced(const FileImage& image, const Header& header,
                                      uint64_t ref_offset, const std::string& subject) {
  const Span& strings = header.sections[kStringTable];
  const uint64_t offset = image.load<uint32_t>(ref_offset);
  const uint64_t length = image.load<uint32_t>(ref_offset + 4);
  if (offset > strings.size || length > strings.size - offset) {
    return image.fail(ref_offset, subject + " (string reference)",
                      "a range within the " + std::to_string(strings.size) + "-byte string table",
                      "offset " + std::to_string(offset) + ", length " + std::to_string(length));
  }
  return std::string_view(reinterpret_cast<const char*>(image.data + strings.offset + offset),
                          length);
}

}  // namespace

Expected<std::string_view> read_string(const FileImage& image, const Header& header,
                                       uint64_t ref_offset, const std::string& subject,
                                       bool is_name) {
  NORMRT_ASSIGN_OR_RETURN(std::string_view text, referenced(image, header, ref_offset, subject));
  if (Check violation = is_name ? check_name(text) : check_string_value(text)) {
    return image.fail(ref_offset, subject, *violation);
  }
  return text;
}

Expected<std::string_view> read_blob(const FileImage& image, const Header& header,
                                     uint64_t ref_offset, const std::string& subject) {
  NORMRT_ASSIGN_OR_RETURN(std::string_view bytes, referenced(image, header, ref_offset, subject));
  if (Check violation = check_blob_value(bytes)) return image.fail(ref_offset, subject, *violation);
  return bytes;
}

}  // namespace model_format

using namespace model_format;

Expected<Graph> decode_model(const std::byte* data, size_t size, std::shared_ptr<const void> owner,
                             const std::string& source_name) {
  const FileImage image{data, size, source_name};
  if (reinterpret_cast<uintptr_t>(data) % kDataAlignment != 0) {
    // Weights are used in place; the kernels rely on their alignment.
    return Status::error(source_name + ": the buffer holding the model must be " +
                         std::to_string(kDataAlignment) + "-byte aligned, found address " +
                         std::to_string(reinterpret_cast<uintptr_t>(data)) + " (remainder " +
                         std::to_string(reinterpret_cast<uintptr_t>(data) % kDataAlignment) + ")");
  }
  NORMRT_ASSIGN_OR_RETURN(Header header, read_header(image));
  Graph graph;
  NORMRT_RETURN_IF_ERROR(read_max_sequence_length(image, header, graph));
  NORMRT_RETURN_IF_ERROR(read_tensors(image, header, owner, graph));
  NORMRT_RETURN_IF_ERROR(read_nodes(image, header, graph));
  NORMRT_RETURN_IF_ERROR(read_graph_lists(image, header, graph));
  return graph;
}

Expected<Graph> parse_model(const std::byte* data, size_t size, std::shared_ptr<const void> owner,
                            const std::string& source_name) {
  Expected<Graph> graph = decode_model(data, size, std::move(owner), source_name);
  if (!graph) return graph;
  if (Status status = graph_validate(*graph); !status) {
    return Status::error(source_name + ": " + status.message());
  }
  return graph;
}

}  // namespace normrt
