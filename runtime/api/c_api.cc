// The C API (include/normrt/normrt.h) over the C++ one. Every entry point
// catches everything, so no exception crosses the C boundary, and records
// its error in a thread-local string.
#include "normrt/normrt.h"

#include <new>
#include <string>
#include <utility>

#include "normrt/normrt.hpp"

struct normrt_model {
  std::shared_ptr<const normrt::Model> model;
};
struct normrt_session {
  std::unique_ptr<normrt::Session> session;
};

namespace {

thread_local std::string last_error;

normrt_status fail(normrt_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

// Runs `body` (returning normrt_status), turning exceptions into statuses.
template <class Body>
normrt_status guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(NORMRT_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& error) {
    return fail(NORMRT_INTERNAL_ERROR, std::string("internal error: ") + error.what());
  } catch (...) {
    return fail(NORMRT_INTERNAL_ERROR, "internal error: unknown exception");
  }
}

normrt_status null_argument(const char* function, const char* argument) {
  return fail(NORMRT_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is null");
}

}  // namespace

extern "C" {

const char* normrt_last_error(void) { return last_error.c_str(); }

const char* normrt_status_name(normrt_status status) {
  switch (status) {
    case NORMRT_OK:
      return "ok";
    case NORMRT_INVALID_ARGUMENT:
      return "invalid argument";
    case NORMRT_LOAD_FAILED:
      return "load failed";
    case NORMRT_RUN_FAILED:
      return "run failed";
    case NORMRT_OUT_OF_MEMORY:
      return "out of memory";
    case NORMRT_INTERNAL_ERROR:
      return "internal error";
  }
  return "unknown status";
}

normrt_status normrt_model_load(const char* path, const normrt_model_options* options,
                                normrt_model** model) {
  return guarded([&] {
    if (path == nullptr) return null_argument("normrt_model_load", "path");
    if (model == nullptr) return null_argument("normrt_model_load", "model");
    *model = nullptr;
    normrt::ModelOptions cpp_options;
    if (options != nullptr) {
      cpp_options.isa = options->isa == nullptr ? "" : options->isa;
      cpp_options.fuse = options->fuse != 0;
      cpp_options.fold_norm_affine = options->fold_norm_affine != 0;
    }
    auto loaded = normrt::Model::load(path, cpp_options);
    if (!loaded) return fail(NORMRT_LOAD_FAILED, loaded.status().message());
    *model = new normrt_model{std::move(loaded).value()};
    return NORMRT_OK;
  });
}

void normrt_model_destroy(normrt_model* model) { delete model; }

size_t normrt_model_input_count(const normrt_model* model) {
  return model == nullptr ? 0 : model->model->inputs().size();
}
size_t normrt_model_output_count(const normrt_model* model) {
  return model == nullptr ? 0 : model->model->outputs().size();
}
const char* normrt_model_input_name(const normrt_model* model, size_t index) {
  if (model == nullptr || index >= model->model->inputs().size()) return nullptr;
  return model->model->inputs()[index].name.c_str();
}
const char* normrt_model_output_name(const normrt_model* model, size_t index) {
  if (model == nullptr || index >= model->model->outputs().size()) return nullptr;
  return model->model->outputs()[index].name.c_str();
}

normrt_status normrt_session_create(const normrt_model* model,
                                    const normrt_session_options* options,
                                    normrt_session** session) {
  return guarded([&] {
    if (model == nullptr) return null_argument("normrt_session_create", "model");
    if (session == nullptr) return null_argument("normrt_session_create", "session");
    *session = nullptr;
    normrt::SessionOptions cpp_options;
    if (options != nullptr) {
      cpp_options.threads = options->threads == 0 ? 1 : options->threads;
      cpp_options.profile = options->profile != 0;
    }
    auto created = normrt::Session::create(model->model, cpp_options);
    if (!created) return fail(NORMRT_INVALID_ARGUMENT, created.status().message());
    *session = new normrt_session{std::move(created).value()};
    return NORMRT_OK;
  });
}

void normrt_session_destroy(normrt_session* session) { delete session; }

normrt_status normrt_session_set_input(normrt_session* session, const char* name,
                                       const void* data, size_t bytes) {
  return guarded([&] {
    if (session == nullptr) return null_argument("normrt_session_set_input", "session");
    if (name == nullptr) return null_argument("normrt_session_set_input", "name");
    normrt::Status status = session->session->set_input(name, data, bytes);
    return status ? NORMRT_OK : fail(NORMRT_INVALID_ARGUMENT, status.message());
  });
}

normrt_status normrt_session_run(normrt_session* session) {
  return guarded([&] {
    if (session == nullptr) return null_argument("normrt_session_run", "session");
    normrt::Status status = session->session->run();
    return status ? NORMRT_OK : fail(NORMRT_RUN_FAILED, status.message());
  });
}

normrt_status normrt_session_output(const normrt_session* session, const char* name,
                                    const void** data, size_t* shape, size_t* rank) {
  return guarded([&] {
    const char* function = "normrt_session_output";
    if (session == nullptr) return null_argument(function, "session");
    if (name == nullptr) return null_argument(function, "name");
    if (data == nullptr) return null_argument(function, "data");
    if (shape == nullptr) return null_argument(function, "shape");
    if (rank == nullptr) return null_argument(function, "rank");
    auto output = session->session->output(name);
    if (!output) return fail(NORMRT_INVALID_ARGUMENT, output.status().message());
    *data = output->data;
    *rank = output->shape.size();
    for (size_t i = 0; i < output->shape.size(); ++i) shape[i] = output->shape[i];
    return NORMRT_OK;
  });
}

normrt_status normrt_session_state(const normrt_session* session, const char* name,
                                   const void** data, size_t* shape, size_t* rank) {
  return guarded([&] {
    const char* function = "normrt_session_state";
    if (session == nullptr) return null_argument(function, "session");
    if (name == nullptr) return null_argument(function, "name");
    if (data == nullptr) return null_argument(function, "data");
    if (shape == nullptr) return null_argument(function, "shape");
    if (rank == nullptr) return null_argument(function, "rank");
    auto state = session->session->state(name);
    if (!state) return fail(NORMRT_INVALID_ARGUMENT, state.status().message());
    *data = state->data;
    *rank = state->shape.size();
    for (size_t i = 0; i < state->shape.size(); ++i) shape[i] = state->shape[i];
    return NORMRT_OK;
  });
}

normrt_status normrt_session_set_state(normrt_session* session, const char* name,
                                       const void* data, size_t bytes) {
  return guarded([&] {
    if (session == nullptr) return null_argument("normrt_session_set_state", "session");
    if (name == nullptr) return null_argument("normrt_session_set_state", "name");
    normrt::Status status = session->session->set_state(name, data, bytes);
    return status ? NORMRT_OK : fail(NORMRT_INVALID_ARGUMENT, status.message());
  });
}

normrt_status normrt_session_copy_state(normrt_session* dst, const normrt_session* src) {
  return guarded([&] {
    if (dst == nullptr) return null_argument("normrt_session_copy_state", "dst");
    if (src == nullptr) return null_argument("normrt_session_copy_state", "src");
    normrt::Status status = dst->session->copy_state_from(*src->session);
    return status ? NORMRT_OK : fail(NORMRT_INVALID_ARGUMENT, status.message());
  });
}

void normrt_session_reset(normrt_session* session) {
  if (session != nullptr) session->session->reset();
}

size_t normrt_session_position(const normrt_session* session) {
  return session == nullptr ? 0 : session->session->position();
}

}  // extern "C"
