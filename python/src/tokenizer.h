#pragma once
// normrt.Tokenizer and normrt.Encoding over include/normrt/tokenizer.hpp.
#include <nanobind/nanobind.h>

namespace normrt::python {

void bind_tokenizer(nanobind::module_& m);

}  // namespace normrt::python
