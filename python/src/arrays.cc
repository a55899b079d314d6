#include "arrays.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace normrt::python {
namespace {

using ContiguousArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string shape_text(const nb::object& array) {
  return nb::cast<std::string>(nb::repr(array.attr("shape")));
}

// float64 → float32 as normrt-run converts .npy files: a finite value outside
// float32's range is an error, not an infinity.
nb::object to_float32(nb::module_& np, const nb::object& array, std::string_view name) {
  nb::object f64 = np.attr("ascontiguousarray")(array);
  auto source = nb::cast<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>(f64);
  const double* values = source.data();
  for (size_t i = 0; i < source.size(); ++i) {
    if (std::isfinite(values[i]) && std::fabs(values[i]) > static_cast<double>(FLT_MAX))
      throw_error(ErrorKind::kInvalidArgument, "set_input: '" + std::string(name) +
                                                   "': float64 value " + number_text(values[i]) +
                                                   " at flat index " + std::to_string(i) +
                                                   " does not fit float32");
  }
  return np.attr("ascontiguousarray")(f64, "dtype"_a = np.attr("float32"));
}

}  // namespace

InputArray input_array(nb::handle value, std::string_view name) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object array = np.attr("asarray")(value);  // no copy for an ndarray
  const std::string dtype = nb::cast<std::string>(array.attr("dtype").attr("name"));
  InputArray input;
  nb::object contiguous;
  if (dtype == "float32" || dtype == "float64") {
    input.type = ElementType::kF32;
    contiguous =
        dtype == "float32" ? np.attr("ascontiguousarray")(array) : to_float32(np, array, name);
  } else if (dtype == "int32" || dtype == "int64") {
    input.type = dtype == "int32" ? ElementType::kI32 : ElementType::kI64;
    contiguous = np.attr("ascontiguousarray")(array);  // no copy if already C-contiguous
  } else {
    throw_error(ErrorKind::kInvalidArgument,
                "set_input: '" + std::string(name) + "': numpy dtype " + dtype +
                    " is not accepted (give int32 or int64 token ids, or float32 / float64 "
                    "values)");
  }
  const size_t rank = nb::cast<size_t>(contiguous.attr("ndim"));
  if (rank > TensorShape::kMaxRank)
    throw_error(ErrorKind::kInvalidArgument,
                "set_input: '" + std::string(name) + "': shape " + shape_text(contiguous) +
                    " has more than " + std::to_string(TensorShape::kMaxRank) + " dimensions");
  auto view = nb::cast<ContiguousArray>(contiguous);
  input.shape.rank = rank;
  for (size_t axis = 0; axis < rank; ++axis) input.shape.dims[axis] = view.shape(axis);
  input.data = view.data();
  input.keep = std::move(contiguous);
  return input;
}

OwnedTensor copy_tensor(const TensorRef& ref) {
  OwnedTensor tensor;
  tensor.is_f32 = ref.dtype == "f32";
  tensor.shape = ref.shape;
  const size_t bytes = ref.elements() * 4;  // f32 and i32 alike
  tensor.data = std::make_unique<std::byte[]>(bytes == 0 ? 1 : bytes);
  if (bytes != 0) std::memcpy(tensor.data.get(), ref.data, bytes);
  return tensor;
}

nb::object to_numpy(OwnedTensor&& tensor) {
  std::byte* data = tensor.data.release();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<std::byte*>(p); });
  const size_t* shape = tensor.shape.dims;
  const nb::dlpack::dtype dtype = tensor.is_f32 ? nb::dtype<float>() : nb::dtype<int32_t>();
  return nb::ndarray<nb::numpy>(data, tensor.shape.rank, shape, owner, nullptr, dtype).cast();
}

nb::object view_numpy(const TensorRef& ref, nb::handle owner) {
  const nb::dlpack::dtype dtype = ref.dtype == "f32" ? nb::dtype<float>() : nb::dtype<int32_t>();
  return nb::ndarray<nb::numpy, nb::ro>(ref.data, ref.shape.rank, ref.shape.dims, owner, nullptr,
                                        dtype)
      .cast();
}

}  // namespace normrt::python
