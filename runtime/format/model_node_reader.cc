// read_nodes() and read_attributes(): the variable-length node records,
//   fixed part (24) | u32 inputs[] | u32 outputs[] | attribute records[]
// Every count is checked against the bytes left in the table before it is
// used to reserve memory or to loop.
#include <string>
#include <string_view>
#include <unordered_set>

#include "runtime/format/model_reader.h"

namespace normrt::model_format {

Status TableCursor::require(uint64_t count, uint64_t element_size, const std::string& what) const {
  if (count <= remaining() / element_size) return Status::ok();
  return image_.fail(position_, what,
                     std::to_string(count) + " × " + std::to_string(element_size) +
                         " bytes within the " + table_name_ + " " + span_string(table_),
                     std::to_string(remaining()) + " bytes left");
}

Status TableCursor::require_end(const std::string& last_record) const {
  if (remaining() == 0) return Status::ok();
  return image_.fail(position_, std::string(table_name_) + " end",
                     "the end of the table after " + last_record,
                     std::to_string(remaining()) + " unused bytes");
}

namespace {

Status read_attribute(const FileImage& image, const Header& header, TableCursor& cursor,
                      const std::string& subject, bool is_metadata, Attribute& attribute) {
  const uint64_t record = cursor.position();
  NORMRT_RETURN_IF_ERROR(cursor.require(1, kAttributeFixedSize, subject));
  NORMRT_ASSIGN_OR_RETURN(
      std::string_view name,
      read_string(image, header, record + kAttributeNameRef, subject + " name", true));
  attribute.name = std::string(name);
  const std::string named = subject + " " + quoted(name);
  const uint8_t type = image.load<uint8_t>(record + kAttributeType);
  if (Check v = check_attribute_type_code(type)) {
    return image.fail(record + kAttributeType, named + " type", *v);
  }
  if (type == kBytes && !is_metadata) {
    return image.fail(record + kAttributeType, named + " type",
                      "an int, float, string or int list (bytes are graph metadata only)",
                      "4 (bytes)");
  }
  for (uint64_t i = 0; i < 3; ++i) {
    const uint8_t reserved = image.load<uint8_t>(record + kAttributeReserved + i);
    if (reserved != 0) {
      return image.fail(record + kAttributeReserved + i, named + " reserved byte",
                        "0 (reserved in version 1)", std::to_string(reserved));
    }
  }
  const uint32_t count = image.load<uint32_t>(record + kAttributeCount);
  if (type != kIntList && count != 0) {
    return image.fail(record + kAttributeCount, named + " element count",
                      "0 (only an int list has elements)", std::to_string(count));
  }
  const uint64_t value_field = record + kAttributeValue;
  cursor.skip(kAttributeFixedSize);
  switch (type) {
    case kInt:
      attribute.value = image.load<int64_t>(value_field);
      return Status::ok();
    case kFloat:
      attribute.value = image.load<double>(value_field);
      return Status::ok();
    case kString: {
      NORMRT_ASSIGN_OR_RETURN(std::string_view text,
                              read_string(image, header, value_field, named + " value", false));
      attribute.value = std::string(text);
      return Status::ok();
    }
    case kBytes: {
      NORMRT_ASSIGN_OR_RETURN(std::string_view bytes,
                              read_blob(image, header, value_field, named + " value"));
      attribute.value = Blob{std::string(bytes)};
      return Status::ok();
    }
    default: {  // kIntList
      const uint64_t unused = image.load<uint64_t>(value_field);
      if (unused != 0) {
        return image.fail(value_field, named + " value field",
                          "0 (an int list's elements follow the record)", std::to_string(unused));
      }
      NORMRT_RETURN_IF_ERROR(cursor.require(count, 8, named + " elements"));
      std::vector<int64_t> list(count);
      for (int64_t& element : list) element = cursor.take<int64_t>();
      attribute.value = std::move(list);
      return Status::ok();
    }
  }
}

/// `count` tensor ids at the cursor: operands of `subject` ("node 3 'x' input").
Status read_operands(const FileImage& image, TableCursor& cursor, uint64_t count,
                     size_t tensor_count, const std::string& subject, std::vector<TensorId>& ids) {
  ids.reserve(count);  // the caller checked the bytes for them
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t field = cursor.position();
    const uint32_t id = cursor.take<uint32_t>();
    if (Check v = check_tensor_reference(id, tensor_count, true)) {
      return image.fail(field, subject + " " + std::to_string(i), *v);
    }
    ids.push_back(id);
  }
  return Status::ok();
}

}  // namespace

Status read_attributes(const FileImage& image, const Header& header, TableCursor& cursor,
                       uint64_t count, const std::string& owner,
                       std::vector<Attribute>& attributes) {
  NORMRT_RETURN_IF_ERROR(cursor.require(count, kAttributeFixedSize, owner + " attributes"));
  attributes.reserve(count);
  std::unordered_set<std::string> names;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t record = cursor.position();
    Attribute attribute;
    const std::string subject = owner + " attribute " + std::to_string(i);
    NORMRT_RETURN_IF_ERROR(
        read_attribute(image, header, cursor, subject, owner == "graph metadata", attribute));
    if (!names.insert(attribute.name).second) {
      return image.fail(record + kAttributeNameRef, subject + " " + quoted(attribute.name),
                        "a unique attribute name", "a second attribute of that name");
    }
    attributes.push_back(std::move(attribute));
  }
  return Status::ok();
}

Status read_nodes(const FileImage& image, const Header& header, Graph& graph) {
  TableCursor cursor(image, header.sections[kNodeTable], "node table");
  graph.nodes.reserve(header.node_count);      // ≤ the table's bytes / 24 (read_header)
  std::unordered_set<std::string_view> names;  // views into the file
  std::string last_record = "the header (no nodes)";
  for (size_t id = 0; id < header.node_count; ++id) {
    const uint64_t record = cursor.position();
    std::string subject = "node " + std::to_string(id);
    NORMRT_RETURN_IF_ERROR(cursor.require(1, kNodeFixedSize, subject));
    NORMRT_ASSIGN_OR_RETURN(std::string_view name, read_string(image, header, record + kNodeNameRef,
                                                               subject + " name", true));
    subject += " " + quoted(name);
    if (!names.insert(name).second) {
      return image.fail(record + kNodeNameRef, subject + " name", "a unique node name",
                        "a second node of that name");
    }
    Node node;
    node.name = std::string(name);
    const uint16_t op = image.load<uint16_t>(record + kNodeOp);
    if (Check v = check_op_code(op)) return image.fail(record + kNodeOp, subject + " op type", *v);
    node.op = static_cast<OpType>(op);
    const uint16_t reserved = image.load<uint16_t>(record + kNodeReserved);
    if (reserved != 0) {
      return image.fail(record + kNodeReserved, subject + " reserved field",
                        "0 (reserved in version 1)", std::to_string(reserved));
    }
    const uint64_t inputs = image.load<uint32_t>(record + kNodeInputCount);
    const uint64_t outputs = image.load<uint32_t>(record + kNodeOutputCount);
    const uint64_t attributes = image.load<uint32_t>(record + kNodeAttributeCount);
    cursor.skip(kNodeFixedSize);
    NORMRT_RETURN_IF_ERROR(cursor.require(inputs + outputs, 4, subject + " operands"));
    const size_t tensor_count = graph.tensors.size();
    NORMRT_RETURN_IF_ERROR(
        read_operands(image, cursor, inputs, tensor_count, subject + " input", node.inputs));
    NORMRT_RETURN_IF_ERROR(
        read_operands(image, cursor, outputs, tensor_count, subject + " output", node.outputs));
    NORMRT_RETURN_IF_ERROR(
        read_attributes(image, header, cursor, attributes, subject, node.attributes));
    graph.nodes.push_back(std::move(node));
    last_record = subject;
  }
  return cursor.require_end(last_record);
}

}  // namespace normrt::model_format
