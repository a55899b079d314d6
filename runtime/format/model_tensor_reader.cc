// read_tensors(): the fixed 64-byte tensor records and the weights' places in
// the data section (aligned, inside, of the right size, disjoint).
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/format/model_reader.h"
#include "runtime/graph/int8_weight.h"

namespace normrt::model_format {

namespace {

struct WeightPlace {
  Span bytes;
  size_t tensor;
};

/// The shape at `record` (rank and dims), each field checked.
Status read_shape(const FileImage& image, uint64_t record, const std::string& subject,
                  bool is_weight, Shape& shape) {
  const uint8_t rank = image.load<uint8_t>(record + kTensorRank);
  if (Check violation = check_rank(rank)) {
    return image.fail(record + kTensorRank, subject + " rank", *violation);
  }
  for (size_t axis = 0; axis < kMaxRank; ++axis) {
    const uint64_t field = record + kTensorDims + 8 * axis;
    const int64_t dim = image.load<int64_t>(field);
    const std::string dim_subject = subject + " dimension " + std::to_string(axis);
    if (axis >= rank) {
      if (dim != 0) {
        return image.fail(field, dim_subject,
                          "0 (unused: the rank is " + std::to_string(rank) + ")",
                          std::to_string(dim));
      }
      continue;
    }
    if (Check violation = check_dim(dim, is_weight)) {
      return image.fail(field, dim_subject, *violation);
    }
    shape.push_back(dim);
  }
  return Status::ok();
}

/// A weight's data: 64-aligned, inside the data section, elements × dtype size.
Status read_weight_place(const FileImage& image, const Header& header, uint64_t record,
                         const std::string& subject, const Tensor& tensor, Span& place) {
  place = {image.load<uint64_t>(record + kTensorDataOffset),
           image.load<uint64_t>(record + kTensorDataSize)};
  Expected<size_t> layout_size = weight_data_bytes(tensor);
  if (!layout_size) {
    return image.fail(record + kTensorLayout, subject + " layout",
                      "a layout its dtype and shape can have", layout_size.status().message());
  }
  const uint64_t expected_size = *layout_size;
  if (place.size != expected_size) {
    std::string layout = tensor.layout == TensorLayout::kRowMajor
                             ? ""
                             : std::string(", ") + tensor_layout_name(tensor.layout);
    return image.fail(record + kTensorDataSize, subject + " data size",
                      std::to_string(expected_size) + " bytes (" + shape_string(tensor.shape) +
                          " of " + data_type_name(tensor.dtype) + layout + ")",
                      std::to_string(place.size) + " bytes");
  }
  if (place.offset % kDataAlignment != 0) {
    return image.fail(record + kTensorDataOffset, subject + " data offset",
                      "a multiple of " + std::to_string(kDataAlignment),
                      std::to_string(place.offset) + " (remainder " +
                          std::to_string(place.offset % kDataAlignment) + ")");
  }
  const Span& data = header.sections[kData];
  if (place.offset < data.offset || place.offset > data.end() ||
      place.size > data.end() - place.offset) {
    return image.fail(
        record + kTensorDataOffset, subject + " data",
        "a range within the data section " + span_string(data),
        "offset " + std::to_string(place.offset) + ", size " + std::to_string(place.size));
  }
  return Status::ok();
}

/// int8 values, scales (and in panels column sums) of a weight: the error
/// names the first wrong byte's absolute offset.
Status check_int8_data(const FileImage& image, const Span& place, const std::string& subject,
                       const Tensor& tensor) {
  size_t at = 0;
  Status s = check_int8_weight_bytes(image.data + place.offset, place.size,
                                     static_cast<size_t>(tensor.shape[0]),
                                     static_cast<size_t>(tensor.shape[1]), tensor.layout, &at);
  if (s) return s;
  return image.fail(place.offset + at, subject + " int8 data",
                    std::string("values in [-127, 127], finite scales >= 0, zero padding") +
                        (tensor.layout == TensorLayout::kRowMajor ? "" : ", right column sums"),
                    s.message());
}

Status check_disjoint(const FileImage& image, const Header& header, const Graph& graph,
                      std::vector<WeightPlace>& places) {
  std::sort(places.begin(), places.end(), [](const WeightPlace& a, const WeightPlace& b) {
    return a.bytes.offset < b.bytes.offset;
  });
  for (size_t i = 1; i < places.size(); ++i) {
    const WeightPlace& before = places[i - 1];
    const WeightPlace& after = places[i];
    if (after.bytes.offset >= before.bytes.end()) continue;
    const uint64_t record = header.sections[kTensorTable].offset + after.tensor * kTensorRecordSize;
    return image.fail(
        record + kTensorDataOffset,
        "tensor " + std::to_string(after.tensor) + " " + quoted(graph.tensors[after.tensor].name) +
            " data " + span_string(after.bytes),
        "no overlap with other weights",
        "an overlap with tensor " + std::to_string(before.tensor) + " " +
            quoted(graph.tensors[before.tensor].name) + " data " + span_string(before.bytes));
  }
  return Status::ok();
}

}  // namespace

Status read_tensors(const FileImage& image, const Header& header,
                    const std::shared_ptr<const void>& owner, Graph& graph) {
  // tensor_count × 64 == the table's size, which lies inside the file.
  graph.tensors.reserve(header.tensor_count);
  std::unordered_map<std::string_view, size_t> ids_by_name;  // views into the file
  ids_by_name.reserve(header.tensor_count);
  std::vector<WeightPlace> places;
  for (size_t id = 0; id < header.tensor_count; ++id) {
    const uint64_t record = header.sections[kTensorTable].offset + id * kTensorRecordSize;
    std::string subject = "tensor " + std::to_string(id);
    NORMRT_ASSIGN_OR_RETURN(
        std::string_view name,
        read_string(image, header, record + kTensorNameRef, subject + " name", true));
    subject += " " + quoted(name);
    auto [previous, inserted] = ids_by_name.try_emplace(name, id);
    if (!inserted) {
      return image.fail(record + kTensorNameRef, subject + " name", "a unique tensor name",
                        "the name of tensor " + std::to_string(previous->second));
    }
    Tensor tensor;
    tensor.name = std::string(name);
    const uint8_t dtype = image.load<uint8_t>(record + kTensorDtype);
    if (Check v = check_dtype_code(dtype))
      return image.fail(record + kTensorDtype, subject + " dtype", *v);
    tensor.dtype = static_cast<DataType>(dtype);
    const uint8_t kind = image.load<uint8_t>(record + kTensorKind);
    if (Check v = check_kind_code(kind))
      return image.fail(record + kTensorKind, subject + " kind", *v);
    tensor.kind = static_cast<TensorKind>(kind);
    const uint8_t layout = image.load<uint8_t>(record + kTensorLayout);
    if (Check v = check_layout_code(layout)) {
      return image.fail(record + kTensorLayout, subject + " layout", *v);
    }
    tensor.layout = static_cast<TensorLayout>(layout);
    if (layout != kLayoutRowMajor && header.version < kFirstVersionWithPanels) {
      return image.fail(record + kTensorLayout, subject + " layout",
                        "0 (row-major) in a version-" + std::to_string(header.version) + " file",
                        std::to_string(layout) + " (a panel layout, version " +
                            std::to_string(kFirstVersionWithPanels) + " and later)");
    }
    if (layout != kLayoutRowMajor && tensor.kind != TensorKind::kWeight) {
      return image.fail(
          record + kTensorLayout, subject + " layout",
          "0 (row-major): only weights have a panel layout",
          std::to_string(layout) + " on a tensor of kind " + tensor_kind_name(tensor.kind));
    }
    const uint32_t reserved = image.load<uint32_t>(record + kTensorReserved);
    if (reserved != 0) {
      return image.fail(record + kTensorReserved, subject + " reserved field",
                        "0 (reserved in version 1)", std::to_string(reserved));
    }
    const bool is_weight = tensor.kind == TensorKind::kWeight;
    NORMRT_RETURN_IF_ERROR(read_shape(image, record, subject, is_weight, tensor.shape));
    if (tensor.dtype == DataType::kInt8) {
      if (Check v = check_int8_placement(tensor.kind, tensor.shape.size(), header.version)) {
        return image.fail(record + kTensorDtype, subject + " dtype", *v);
      }
    }
    if (Check v = check_tensor_bytes(tensor.dtype, tensor.shape, graph.max_sequence_length)) {
      return image.fail(record + kTensorDims, subject + " size", *v);
    }
    if (is_weight) {
      Span place;
      NORMRT_RETURN_IF_ERROR(read_weight_place(image, header, record, subject, tensor, place));
      tensor.data = {image.data + place.offset, place.size, owner};
      if (tensor.dtype == DataType::kInt8) {
        NORMRT_RETURN_IF_ERROR(check_int8_data(image, place, subject, tensor));
      }
      if (place.size != 0) places.push_back({place, id});
    } else {
      const uint64_t offset = image.load<uint64_t>(record + kTensorDataOffset);
      const uint64_t size = image.load<uint64_t>(record + kTensorDataSize);
      if (offset != 0 || size != 0) {
        return image.fail(record + kTensorDataOffset, subject + " data",
                          std::string("offset 0 and size 0 (a tensor of kind ") +
                              tensor_kind_name(tensor.kind) + " carries no data)",
                          "offset " + std::to_string(offset) + ", size " + std::to_string(size));
      }
    }
    graph.tensors.push_back(std::move(tensor));
  }
  return check_disjoint(image, header, graph, places);
}

}  // namespace normrt::model_format
