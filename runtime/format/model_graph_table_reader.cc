// The graph table: max_sequence_length, graph inputs and outputs, state
// updates and metadata attributes,
//   fixed part (24) | u32 inputs[] | u32 outputs[] | {u32 state, u32 value}[] | attributes[]
#include <string>
#include <vector>

#include "runtime/format/model_reader.h"

namespace normrt::model_format {

namespace {

/// One tensor id of the graph table, present (not kNoTensor) and of a kind
/// `check_kind` accepts (null: any kind).
Status read_graph_reference(const FileImage& image, TableCursor& cursor, const Graph& graph,
                            const std::string& subject, Check (*check_kind)(TensorKind),
                            TensorId& id) {
  const uint64_t field = cursor.position();
  id = cursor.take<uint32_t>();
  if (Check v = check_tensor_reference(id, graph.tensors.size(), false)) {
    return image.fail(field, subject, *v);
  }
  if (check_kind == nullptr) return Status::ok();
  const Tensor& tensor = graph.tensors[id];
  if (Check v = check_kind(tensor.kind)) {
    return image.fail(
        field, subject + " (tensor " + std::to_string(id) + " " + quoted(tensor.name) + ")", *v);
  }
  return Status::ok();
}

}  // namespace

Status read_max_sequence_length(const FileImage& image, const Header& header, Graph& graph) {
  const uint64_t field = header.sections[kGraphTable].offset + kGraphMaxSequenceLength;
  const int64_t length = image.load<int64_t>(field);  // the table has ≥ 24 bytes (read_header)
  if (Check v = check_max_sequence_length(length)) {
    return image.fail(field, "graph max_sequence_length", *v);
  }
  graph.max_sequence_length = length;
  return Status::ok();
}

Status read_graph_lists(const FileImage& image, const Header& header, Graph& graph) {
  const Span& table = header.sections[kGraphTable];
  TableCursor cursor(image, table, "graph table");
  const uint64_t inputs = cursor.take<uint32_t>();
  const uint64_t outputs = cursor.take<uint32_t>();
  const uint64_t updates = cursor.take<uint32_t>();
  const uint64_t metadata = cursor.take<uint32_t>();
  cursor.skip(8);  // max_sequence_length, read first
  NORMRT_RETURN_IF_ERROR(cursor.require(inputs + outputs + 2 * updates, 4,
                                        "graph inputs, outputs and "
                                        "state updates"));
  graph.inputs.resize(inputs);
  for (uint64_t i = 0; i < inputs; ++i) {
    NORMRT_RETURN_IF_ERROR(read_graph_reference(image, cursor, graph,
                                                "graph input " + std::to_string(i),
                                                check_graph_input_kind, graph.inputs[i]));
  }
  graph.outputs.resize(outputs);
  for (uint64_t i = 0; i < outputs; ++i) {
    NORMRT_RETURN_IF_ERROR(read_graph_reference(image, cursor, graph,
                                                "graph output " + std::to_string(i),
                                                check_graph_output_kind, graph.outputs[i]));
  }
  graph.state_updates.resize(updates);
  std::vector<bool> updated(graph.tensors.size(), false);
  for (uint64_t i = 0; i < updates; ++i) {
    Graph::StateUpdate& update = graph.state_updates[i];
    const std::string subject = "state update " + std::to_string(i);
    const uint64_t state_field = cursor.position();
    NORMRT_RETURN_IF_ERROR(read_graph_reference(image, cursor, graph, subject + " state",
                                                check_state_kind, update.state));
    if (updated[update.state]) {
      return image.fail(state_field, subject + " state " + quoted(graph.tensors[update.state].name),
                        "one update per state tensor", "a second update");
    }
    updated[update.state] = true;
    NORMRT_RETURN_IF_ERROR(
        read_graph_reference(image, cursor, graph, subject + " value", nullptr, update.value));
  }
  NORMRT_RETURN_IF_ERROR(
      read_attributes(image, header, cursor, metadata, "graph metadata", graph.metadata));
  return cursor.require_end("the graph metadata");
}

}  // namespace normrt::model_format
