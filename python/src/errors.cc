#include "errors.h"

#include <nanobind/stl/string.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

namespace nb = nanobind;

namespace normrt::python {
namespace {

// One C++ type per Python class: nanobind translates each by its own type,
// so none derives from another (no translator can shadow a subclass's).
struct InvalidArgumentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct LoadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct OutOfMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace

void throw_error(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::kInvalidArgument:
      throw InvalidArgumentError(message);
    case ErrorKind::kLoadFailed:
      throw LoadError(message);
    case ErrorKind::kRunFailed:
      throw RunError(message);
    case ErrorKind::kOutOfMemory:
      throw OutOfMemoryError(message);
    case ErrorKind::kInternal:
      break;
  }
  throw InternalError(message);
}

void bind_errors(nb::module_& m) {
  // The base class has no C++ counterpart: nothing is raised as a bare Error.
  // Named after the module as imported (normrt._normrt; _normrt for stubgen),
  // so that the stubs hold every class; normrt/__init__.py shows them as normrt.*.
  const std::string name = nb::cast<std::string>(m.attr("__name__")) + ".Error";
  nb::object base = nb::steal(PyErr_NewException(name.c_str(), PyExc_Exception, nullptr));
  nb::setattr(base, "__doc__",
              nb::str("Base class of normrt's errors; the message is normrt's own."));
  m.attr("Error") = base;
  auto with_builtin = [&](PyObject* builtin) { return nb::make_tuple(base, nb::handle(builtin)); };
  nb::exception<InvalidArgumentError> invalid(m, "InvalidArgumentError",
                                              with_builtin(PyExc_ValueError));
  nb::exception<LoadError> load(m, "LoadError", base);
  nb::exception<RunError> run(m, "RunError", base);
  nb::exception<OutOfMemoryError> memory(m, "OutOfMemoryError", with_builtin(PyExc_MemoryError));
  nb::exception<InternalError> internal(m, "InternalError", base);
  // An allocation failure anywhere below becomes normrt.OutOfMemoryError
  // (a MemoryError), as the C API's NORMRT_OUT_OF_MEMORY.
  nb::register_exception_translator(
      [](const std::exception_ptr& error, void* payload) {
        try {
          std::rethrow_exception(error);
        } catch (const std::bad_alloc&) {
          PyErr_SetString(static_cast<PyObject*>(payload), "out of memory");
        }
      },
      memory.ptr());
  nb::setattr(invalid, "__doc__",
              nb::str("A wrong argument: an unknown name, a refused dtype or shape, bad options."));
  nb::setattr(load, "__doc__",
              nb::str("A model or tokenizer that is missing, malformed or unsupported."));
  nb::setattr(run, "__doc__",
              nb::str("A run refused its input data (a token id out of range, ...)."));
  nb::setattr(memory, "__doc__", nb::str("normrt could not allocate memory."));
  nb::setattr(internal, "__doc__", nb::str("A bug in normrt: please report it."));
}

}  // namespace normrt::python
