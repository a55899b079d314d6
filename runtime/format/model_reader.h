#pragma once
// The pieces of decode_model() (model_reader.cc): the header reader, the
// tensor table reader and the node / graph table readers. Each checks every
// field against the bytes it may use before it reads or allocates anything,
// and reports the byte offset of the field it rejects.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "runtime/format/little_endian.h"
#include "runtime/format/model_format.h"
#include "runtime/format/model_rules.h"
#include "runtime/graph/graph.h"

namespace normrt::model_format {

/// The bytes being decoded and the name errors start with.
struct FileImage {
  const std::byte* data;
  uint64_t size;
  const std::string& source;

  /// Requires offset + sizeof(T) <= size (the callers' checks guarantee it).
  template <class T>
  T load(uint64_t offset) const {
    return little_endian::load<T>(data + offset);
  }
  /// "<source>: <subject> at byte offset <offset> (0x..): expected <e>, found <f>".
  Status fail(uint64_t offset, const std::string& subject, const std::string& expected,
              const std::string& found) const;
  Status fail(uint64_t offset, const std::string& subject, const Violation& violation) const {
    return fail(offset, subject, violation.expected, violation.found);
  }
};

/// A byte range [offset, offset + size) of the file.
struct Span {
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t end() const { return offset + size; }
};
std::string span_string(const Span& span);  ///< "[128, 384)"

/// The header's values, checked: sections inside the file and disjoint, the
/// checksum right, the counts consistent with the table sizes.
struct Header {
  uint32_t version = 0;
  Span sections[kSectionCount];
  uint32_t tensor_count = 0;
  uint32_t node_count = 0;
};
Expected<Header> read_header(const FileImage& image);

/// Reads the string reference (u32 offset, u32 length) at `ref_offset` and
/// checks it lies in the string table; a name also passes check_name().
Expected<std::string_view> read_string(const FileImage& image, const Header& header,
                                       uint64_t ref_offset, const std::string& subject,
                                       bool is_name);
/// The bytes a string reference points to, checked as a bytes value (kMaxBlobBytes).
Expected<std::string_view> read_blob(const FileImage& image, const Header& header,
                                     uint64_t ref_offset, const std::string& subject);

/// max_sequence_length from the graph table's fixed part (needed to bound the
/// tensors' sizes before the tensor table is read).
Status read_max_sequence_length(const FileImage& image, const Header& header, Graph& graph);
/// Appends every tensor; weights point into image.data and hold `owner`.
Status read_tensors(const FileImage& image, const Header& header,
                    const std::shared_ptr<const void>& owner, Graph& graph);
/// Appends every node; needs the tensors.
Status read_nodes(const FileImage& image, const Header& header, Graph& graph);
/// Graph inputs, outputs, state updates and metadata; needs the tensors.
Status read_graph_lists(const FileImage& image, const Header& header, Graph& graph);

/// Walks a variable-length table (node table, graph table) record by record.
class TableCursor {
 public:
  TableCursor(const FileImage& image, const Span& table, const char* table_name)
      : image_(image), table_(table), table_name_(table_name), position_(table.offset) {}

  uint64_t position() const { return position_; }
  uint64_t remaining() const { return table_.end() - position_; }
  /// Fails unless `count` elements of `element_size` bytes remain (no overflow).
  Status require(uint64_t count, uint64_t element_size, const std::string& what) const;
  /// Fails if bytes remain after the last record.
  Status require_end(const std::string& last_record) const;
  /// The next value; only after require() covered it.
  template <class T>
  T take() {
    const T value = image_.load<T>(position_);
    position_ += sizeof(T);
    return value;
  }
  void skip(uint64_t bytes) { position_ += bytes; }

 private:
  const FileImage& image_;
  Span table_;
  const char* table_name_;
  uint64_t position_;
};

/// Reads `count` attribute records at the cursor into `attributes`.
/// `owner` names the node ("node 3 'proj'") or "graph metadata".
Status read_attributes(const FileImage& image, const Header& header, TableCursor& cursor,
                       uint64_t count, const std::string& owner,
                       std::vector<Attribute>& attributes);

}  // namespace normrt::model_format
