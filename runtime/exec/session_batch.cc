// Session::set_attention_mask: which tokens of a batch are real. The mask is
// read once into per-sequence lengths (right padding only); each run packs
// the real rows of its inputs one sequence after the other (pack_batch), so
// that no op computes a padded row, and the batch-aware ops take the
// sequences' rows from OpRunContext::sequence_offsets.
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/exec/session_impl.h"

namespace normrt {
namespace {

int64_t mask_value(ElementType type, const void* mask, size_t index) {
  if (type == ElementType::kI64) return static_cast<const int64_t*>(mask)[index];
  return static_cast<const int32_t*>(mask)[index];
}

}  // namespace

Expected<size_t> pack_batch(Session::Impl& session, size_t batch, size_t length) {
  const Graph& graph = session.compiled->graph;
  const bool masked = session.mask_length != 0;
  uint32_t* offsets = session.sequence_offsets.data();
  offsets[0] = 0;
  for (size_t b = 0; b < batch; ++b)
    offsets[b + 1] = offsets[b] + (masked ? session.sequence_lengths[b] : uint32_t(length));
  const size_t rows = offsets[batch];
  if (rows == 0) return Status::error("run: the attention mask leaves no token to run");
  const bool padded = rows < batch * length;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    if (session.bound_length[i] == 0) continue;  // no S in its shape
    const TensorId id = graph.inputs[i];
    const std::byte* data = session.bound_data[i];
    if (padded) {
      std::byte* packed = session.packed_inputs[i].get();
      if (packed == nullptr)  // set_attention_mask() refuses padding for such models
        return Status::error("run: padding in a model that runs one sequence at a time");
      const Tensor& tensor = graph.tensors[id];
      const size_t row_bytes = shape_elements(tensor.shape, 1) * data_type_size(tensor.dtype);
      for (size_t b = 0; b < batch; ++b) {
        std::memcpy(packed + offsets[b] * row_bytes, data + b * length * row_bytes,
                    (offsets[b + 1] - offsets[b]) * row_bytes);
      }
      data = packed;
    }
    if (session.views[id].data != data) {
      TensorView view = session.views[id];
      view.data = const_cast<std::byte*>(data);  // kernels never write inputs
      session.publish(id, view);
    }
  }
  return rows;
}

Status Session::set_attention_mask(ElementType type, const void* mask, const TensorShape& shape) {
  Impl& session = *impl_;
  if (mask == nullptr) {
    session.mask_batch = session.mask_length = 0;
    return Status::ok();
  }
  if (type != ElementType::kI32 && type != ElementType::kI64)
    return Status::error(std::string("set_attention_mask: ") + element_type_name(type) +
                         " data cannot be a mask (give i32 or i64)");
  const size_t max_length = static_cast<size_t>(session.compiled->graph.max_sequence_length);
  if (shape.size() != 2 || shape[0] < 1 || shape[0] > session.max_batch || shape[1] < 1 ||
      shape[1] > max_length) {
    std::string given;
    for (size_t i = 0; i < shape.size(); ++i) given += (i ? ", " : "") + std::to_string(shape[i]);
    return Status::error("set_attention_mask: shape [" + given + "] is not [B, S] with 1 ≤ B ≤ " +
                         std::to_string(session.max_batch) + " (max_batch) and 1 ≤ S ≤ " +
                         std::to_string(max_length));
  }
  const size_t batch = shape[0], length = shape[1];
  // Checked whole before anything is kept: a refused mask leaves the old one.
  for (size_t b = 0; b < batch; ++b) {
    bool padding = false;
    for (size_t j = 0; j < length; ++j) {
      const int64_t value = mask_value(type, mask, b * length + j);
      auto at = [&] { return "[" + std::to_string(b) + ", " + std::to_string(j) + "]"; };
      if (value != 0 && value != 1)
        return Status::error("set_attention_mask: mask" + at() + " = " + std::to_string(value) +
                             " is not 0 or 1");
      if (value == 1 && padding)
        return Status::error("set_attention_mask: mask" + at() +
                             " is 1 after a 0 in its row: only right padding is supported");
      padding = value == 0;
    }
  }
  if (session.compiled->batch.refusal.size() != 0) {
    for (size_t j = 0; j < batch * length; ++j) {
      if (mask_value(type, mask, j) == 0)
        return Status::error("set_attention_mask: the model runs one sequence at a time (" +
                             session.compiled->batch.refusal + "), so it takes no padding");
    }
  }
  for (size_t b = 0; b < batch; ++b) {
    uint32_t real = 0;
    while (real < length && mask_value(type, mask, b * length + real) == 1) ++real;
    session.sequence_lengths[b] = real;
  }
  session.mask_batch = batch;
  session.mask_length = length;
  return Status::ok();
}

}  // namespace normrt
