// normrt._normrt: the extension module of the Python package (python/normrt).
// Bindings over the public C++ API only (include/normrt/normrt.hpp and
// tokenizer.hpp); the Python layer (sentence_encoder.py) builds on them.
#include <nanobind/nanobind.h>

#include "errors.h"
#include "model.h"
#include "normrt/normrt.hpp"
#include "session.h"
#include "tokenizer.h"

namespace nb = nanobind;

NB_MODULE(_normrt, m) {
  m.doc() = "normrt's C++ API for Python: Model, Session, Tokenizer and their errors.";
  m.def(
      "version", [] { return normrt::version(); }, "The library's version, major.minor.patch.");
  m.def(
      "max_session_threads", [] { return normrt::max_session_threads(); },
      "The most intra-op threads a Session accepts.");
  normrt::python::bind_errors(m);
  normrt::python::bind_model(m);
  normrt::python::bind_session(m);
  normrt::python::bind_tokenizer(m);
}
