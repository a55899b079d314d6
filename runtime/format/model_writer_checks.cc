#include "runtime/format/model_writer_checks.h"

#include <cstdint>
#include <string>
#include <unordered_set>

#include "runtime/format/model_format.h"
#include "runtime/format/model_rules.h"
#include "runtime/graph/int8_weight.h"

namespace normrt::model_format {

namespace {

Status refuse(const std::string& subject, const Violation& violation) {
  return Status::error("serialize_model: " + subject + ": expected " + violation.expected +
                       ", found " + violation.found);
}

#define NORMRT_REFUSE_IF(check, subject)                                   \
  do {                                                                     \
    if (Check violation_ = (check)) return refuse((subject), *violation_); \
  } while (false)

std::string tensor_subject(size_t id, const Tensor& tensor) {
  return "tensor " + std::to_string(id) + " " + quoted(tensor.name);
}

Status check_tensor(const Graph& graph, size_t id) {
  const Tensor& tensor = graph.tensors[id];
  const std::string subject = tensor_subject(id, tensor);
  NORMRT_REFUSE_IF(check_name(tensor.name), subject + " name");
  NORMRT_REFUSE_IF(check_dtype_code(static_cast<uint64_t>(tensor.dtype)), subject + " dtype");
  NORMRT_REFUSE_IF(check_kind_code(static_cast<uint64_t>(tensor.kind)), subject + " kind");
  NORMRT_REFUSE_IF(check_rank(tensor.shape.size()), subject + " rank");
  const bool is_weight = tensor.kind == TensorKind::kWeight;
  for (size_t axis = 0; axis < tensor.shape.size(); ++axis) {
    NORMRT_REFUSE_IF(check_dim(tensor.shape[axis], is_weight),
                     subject + " dimension " + std::to_string(axis));
  }
  NORMRT_REFUSE_IF(check_tensor_bytes(tensor.dtype, tensor.shape, graph.max_sequence_length),
                   subject + " size");
  const TensorData& data = tensor.data;
  NORMRT_REFUSE_IF(check_layout_code(static_cast<uint64_t>(tensor.layout)), subject + " layout");
  if (!is_weight) {
    if (tensor.layout != TensorLayout::kRowMajor) {
      return refuse(subject + " layout", {"row_major (only weights have a panel layout)",
                                          tensor_layout_name(tensor.layout)});
    }
    if (data.bytes != nullptr || data.size != 0) {
      return refuse(subject, {"no data (only weights carry data)",
                              std::to_string(data.size) + " bytes of data"});
    }
    return Status::ok();
  }
  if (tensor.dtype == DataType::kInt8) {
    NORMRT_REFUSE_IF(check_int8_placement(tensor.kind, tensor.shape.size(), kFirstVersionWithInt8),
                     subject + " dtype");
  }
  Expected<size_t> layout_bytes = weight_data_bytes(tensor);
  if (!layout_bytes) {
    return refuse(subject + " layout",
                  {"a layout its dtype and shape can have", layout_bytes.status().message()});
  }
  const uint64_t expected = *layout_bytes;
  if (data.size != expected || (data.bytes == nullptr && expected != 0)) {
    return refuse(
        subject + " data",
        {std::to_string(expected) + " bytes (" + shape_string(tensor.shape) + " of " +
             data_type_name(tensor.dtype) + ")",
         data.bytes == nullptr ? std::string("no data") : std::to_string(data.size) + " bytes"});
  }
  if (tensor.dtype == DataType::kInt8) {
    Status s =
        check_int8_weight_bytes(data.bytes, data.size, static_cast<size_t>(tensor.shape[0]),
                                static_cast<size_t>(tensor.shape[1]), tensor.layout, nullptr);
    if (!s) return refuse(subject + " int8 data", {"valid int8 weights", s.message()});
  }
  return Status::ok();
}

Status check_attributes(const std::vector<Attribute>& attributes, const std::string& owner,
                        bool is_metadata) {
  std::unordered_set<std::string> names;
  for (const Attribute& attribute : attributes) {
    const std::string subject = owner + " attribute " + quoted(attribute.name);
    NORMRT_REFUSE_IF(check_name(attribute.name), subject + " name");
    if (!names.insert(attribute.name).second) {
      return refuse(subject, {"unique attribute names", "a second attribute of that name"});
    }
    if (const auto* text = std::get_if<std::string>(&attribute.value)) {
      NORMRT_REFUSE_IF(check_string_value(*text), subject + " value");
    }
    if (const auto* blob = std::get_if<Blob>(&attribute.value)) {
      if (!is_metadata) {
        return refuse(subject, {"an int, float, string or int list (bytes are graph metadata only)",
                                "bytes"});
      }
      NORMRT_REFUSE_IF(check_blob_value(blob->bytes), subject + " value");
    }
    if (const auto* list = std::get_if<std::vector<int64_t>>(&attribute.value)) {
      if (list->size() > UINT32_MAX) {
        return refuse(subject, {"at most 2^32 - 1 list elements", std::to_string(list->size())});
      }
    }
  }
  return Status::ok();
}

Status check_node(const Graph& graph, size_t id) {
  const Node& node = graph.nodes[id];
  const std::string subject = "node " + std::to_string(id) + " " + quoted(node.name);
  NORMRT_REFUSE_IF(check_name(node.name), subject + " name");
  NORMRT_REFUSE_IF(check_op_code(static_cast<uint64_t>(node.op)), subject + " op type");
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    NORMRT_REFUSE_IF(check_tensor_reference(node.inputs[i], graph.tensors.size(), true),
                     subject + " input " + std::to_string(i));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    NORMRT_REFUSE_IF(check_tensor_reference(node.outputs[i], graph.tensors.size(), true),
                     subject + " output " + std::to_string(i));
  }
  return check_attributes(node.attributes, subject, false);
}

Status check_graph_table(const Graph& graph) {
  const size_t count = graph.tensors.size();
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const std::string subject = "graph input " + std::to_string(i);
    NORMRT_REFUSE_IF(check_tensor_reference(graph.inputs[i], count, false), subject);
    NORMRT_REFUSE_IF(check_graph_input_kind(graph.tensors[graph.inputs[i]].kind),
                     subject + " " + quoted(graph.tensors[graph.inputs[i]].name));
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const std::string subject = "graph output " + std::to_string(i);
    NORMRT_REFUSE_IF(check_tensor_reference(graph.outputs[i], count, false), subject);
    NORMRT_REFUSE_IF(check_graph_output_kind(graph.tensors[graph.outputs[i]].kind),
                     subject + " " + quoted(graph.tensors[graph.outputs[i]].name));
  }
  std::unordered_set<TensorId> updated;
  for (size_t i = 0; i < graph.state_updates.size(); ++i) {
    const Graph::StateUpdate& update = graph.state_updates[i];
    const std::string subject = "state update " + std::to_string(i);
    NORMRT_REFUSE_IF(check_tensor_reference(update.state, count, false), subject + " state");
    NORMRT_REFUSE_IF(check_tensor_reference(update.value, count, false), subject + " value");
    NORMRT_REFUSE_IF(check_state_kind(graph.tensors[update.state].kind),
                     subject + " state " + quoted(graph.tensors[update.state].name));
    if (!updated.insert(update.state).second) {
      return refuse(subject + " state " + quoted(graph.tensors[update.state].name),
                    {"one update per state tensor", "a second update"});
    }
  }
  return check_attributes(graph.metadata, "graph metadata", true);
}

}  // namespace

Status check_graph_writable(const Graph& graph) {
  NORMRT_REFUSE_IF(check_max_sequence_length(graph.max_sequence_length), "graph");
  if (graph.tensors.size() > UINT32_MAX || graph.nodes.size() > UINT32_MAX) {
    return refuse("graph", {"at most 2^32 - 1 tensors and nodes",
                            std::to_string(graph.tensors.size()) + " tensors, " +
                                std::to_string(graph.nodes.size()) + " nodes"});
  }
  std::unordered_set<std::string> tensor_names;
  for (size_t id = 0; id < graph.tensors.size(); ++id) {
    NORMRT_RETURN_IF_ERROR(check_tensor(graph, id));
    if (!tensor_names.insert(graph.tensors[id].name).second) {
      return refuse(tensor_subject(id, graph.tensors[id]),
                    {"unique tensor names", "a second tensor of that name"});
    }
  }
  std::unordered_set<std::string> node_names;
  for (size_t id = 0; id < graph.nodes.size(); ++id) {
    NORMRT_RETURN_IF_ERROR(check_node(graph, id));
    if (!node_names.insert(graph.nodes[id].name).second) {
      return refuse("node " + std::to_string(id) + " " + quoted(graph.nodes[id].name),
                    {"unique node names", "a second node of that name"});
    }
  }
  return check_graph_table(graph);
}

}  // namespace normrt::model_format
