#pragma once
// normrt.Model: a loaded model file (normrt::Model), immutable and shared by
// any number of Sessions on any threads.
#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "normrt/normrt.hpp"

namespace normrt::python {

struct PyModel {
  std::shared_ptr<const Model> model;
  std::string path;
};

void bind_model(nanobind::module_& m);

}  // namespace normrt::python
