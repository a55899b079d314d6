#pragma once
// numpy arrays in and out of a Session.
//
// In: int32, int64 and float32 arrays that are C-contiguous are handed to the
// Session as they are (no copy; int64 ids are then converted by the Session
// itself, checking that each fits int32). Other layouts of those dtypes are
// copied to a contiguous array first; float64 is converted to float32 (an
// error if a finite value does not fit). Any other dtype is refused.
//
// Out: either a copy the array owns (OwnedTensor, filled while the session is
// locked, handed to numpy without another copy), or a read-only view of the
// session's memory that keeps the session alive.
#include <nanobind/nanobind.h>

#include <cstddef>
#include <memory>
#include <string_view>

#include "normrt/normrt.hpp"

namespace normrt::python {

struct InputArray {
  nanobind::object keep;  ///< owns `data`: the caller's array or a converted copy
  ElementType type = ElementType::kF32;
  const void* data = nullptr;
  TensorShape shape;
};

/// Any array-like (numpy array, list, anything numpy.asarray takes) as input
/// `name`; raises InvalidArgumentError naming the input for a refused dtype or
/// a rank above TensorShape::kMaxRank. Needs the GIL.
InputArray input_array(nanobind::handle value, std::string_view name);

/// A copy of a session tensor, made without the GIL.
struct OwnedTensor {
  std::unique_ptr<std::byte[]> data;
  bool is_f32 = true;  ///< else i32
  TensorShape shape;
};
OwnedTensor copy_tensor(const TensorRef& ref);

/// The copy as a numpy array that owns its memory. Needs the GIL.
nanobind::object to_numpy(OwnedTensor&& tensor);
/// A read-only numpy view of `ref` that keeps `owner` alive. Needs the GIL.
nanobind::object view_numpy(const TensorRef& ref, nanobind::handle owner);

}  // namespace normrt::python
