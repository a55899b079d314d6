#include "models/builder_support.h"

#include <cmath>
#include <cstring>
#include <set>
#include <utility>

#include "base/bf16.h"

namespace normrt {
namespace {

std::string dims_string(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Bytes per element of the float dtypes a builder accepts; 0 for the others.
size_t float_dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F64") return 8;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

float float_from_f16(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
  if (exponent == 31) return mantissa ? std::nanf("") : sign * INFINITY;
  return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

}  // namespace

const SourceTensor* WeightChecker::expect(const std::string& name,
                                          const std::vector<int64_t>& shape) {
  expected_.push_back(name);
  const SourceTensor* tensor = source_.find(name);
  if (tensor == nullptr) {
    problems_.push_back("missing tensor '" + name + "' (expected " + dims_string(shape) + ")");
    return nullptr;
  }
  bool ok = true;
  if (tensor->shape != shape) {
    problems_.push_back("tensor '" + name + "' has shape " + dims_string(tensor->shape) +
                        ", expected " + dims_string(shape));
    ok = false;
  }
  const size_t element_size = float_dtype_size(tensor->dtype);
  if (element_size == 0) {
    problems_.push_back("tensor '" + name + "' has dtype " + tensor->dtype +
                        ", expected one of F32, F16, BF16, F64");
    ok = false;
  }
  if (!ok) return nullptr;
  // The shape equals the config's, so this product cannot overflow for any
  // config whose tensors fit in memory; the byte count guards the reader.
  size_t elements = 1;
  for (int64_t d : shape) elements *= static_cast<size_t>(d);
  if (tensor->size != elements * element_size || (tensor->data == nullptr && tensor->size != 0)) {
    problems_.push_back("tensor '" + name + "' holds " + std::to_string(tensor->size) +
                        " bytes, expected " + std::to_string(elements * element_size) + " (" +
                        dims_string(shape) + " " + tensor->dtype + ")");
    return nullptr;
  }
  return tensor;
}

std::vector<float> WeightChecker::read(const std::string& name, const std::vector<int64_t>& shape) {
  const SourceTensor* tensor = expect(name, shape);
  return tensor ? to_float(*tensor) : std::vector<float>();
}

void WeightChecker::known_unused(const std::string& name, const std::vector<int64_t>& shape) {
  if (source_.find(name) == nullptr) return;
  if (expect(name, shape) != nullptr) source_.skip_unused(name, /*known=*/true);
}

Status WeightChecker::finish() {
  const std::set<std::string> expected(expected_.begin(), expected_.end());
  std::vector<std::string> problems = problems_;
  for (const std::string& name : source_.names())
    if (expected.count(name) == 0 && !source_.skip_unused(name, /*known=*/false))
      problems.push_back("unknown tensor '" + name + "'");
  if (problems.empty()) return Status::ok();
  std::string message = source_.description() + ": " + std::to_string(problems.size()) +
                        (problems.size() == 1 ? " problem" : " problems") + " with the weights:";
  for (const std::string& problem : problems) message += "\n  " + problem;
  return Status::error(message);
}

std::vector<float> to_float(const SourceTensor& tensor) {
  const size_t element_size = float_dtype_size(tensor.dtype);
  const size_t count = element_size ? tensor.size / element_size : 0;
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) {
    const std::byte* at = tensor.data + i * element_size;
    if (tensor.dtype == "F32") {
      std::memcpy(&out[i], at, 4);
    } else if (tensor.dtype == "F64") {
      double value;
      std::memcpy(&value, at, 8);
      out[i] = static_cast<float>(value);
    } else {
      uint16_t bits;
      std::memcpy(&bits, at, 2);
      out[i] = tensor.dtype == "BF16" ? float_from_bf16(bits) : float_from_f16(bits);
    }
  }
  return out;
}

TensorId add_weight(GraphBuilder& builder, const std::string& name, const Shape& shape,
                    const std::vector<float>& values, DataType matrix_dtype) {
  if (values.empty()) {  // a problem WeightChecker reported: a placeholder the error discards
    Tensor placeholder;
    placeholder.name = name;
    placeholder.shape = shape;
    placeholder.kind = TensorKind::kWeight;
    return builder.graph().add_tensor(std::move(placeholder));
  }
  if (shape.size() >= 2 && matrix_dtype == DataType::kBF16)
    return builder.weight_bf16(name, shape, values);
  return builder.weight(name, shape, values);
}

Status check_matrix_dtype(DataType dtype) {
  if (dtype == DataType::kF32 || dtype == DataType::kBF16) return Status::ok();
  return Status::error(std::string("matrix dtype ") + data_type_name(dtype) +
                       " is not f32 or bf16");
}

Expected<NormConfig> override_norm(const std::string& model, const std::string& kind, double eps,
                                   double p) {
  NORMRT_ASSIGN_OR_RETURN(NormConfig norm, norm_config_from_name(kind));
  if (!norm.enabled) {
    return Status::error(model + " options: norm 'none' would drop the model's norms");
  }
  if (!norm.is(NormKind::kPRmsNorm) && p != 0.0) {
    return Status::error(model + " options: p = " + std::to_string(p) +
                         " is only for prms_norm, not " + kind);
  }
  norm.eps = eps;  // the checkpoint's; the rest of its convention is the default
  norm.p = p;
  NORMRT_RETURN_IF_ERROR(check_norm_config(norm));
  return norm;
}

Expected<int64_t> planned_sequence_length(const std::string& model, int64_t requested,
                                          int64_t max_positions) {
  const int64_t length = requested == 0 ? max_positions : requested;
  if (length < 1 || length > max_positions) {
    return Status::error(
        model + " options: max_sequence_length = " + std::to_string(length) +
        " is outside [1, max_position_embeddings = " + std::to_string(max_positions) + "]");
  }
  return length;
}

}  // namespace normrt
