// The C API (include/normrt/normrt.h) over the C++ one. Every entry point
// catches everything, so no exception crosses the C boundary, and records
// its error in a thread-local string.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "normrt/normrt.h"
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

// Reads a caller's options struct into *out (which holds the defaults) by
// its struct_size: at least the first version's fields (`first_size`
// bytes) must be there, and fields an older caller's struct lacks keep their
// defaults; a larger struct (a newer header) may only carry zeros beyond
// this version's, since a nonzero byte would be an option this library
// would silently ignore.
template <class Options>
normrt_status read_options(const Options* given, Options* out, const char* function,
                           const char* type, const char* init,
                           size_t first_size = sizeof(Options)) {
  if (given == nullptr) return NORMRT_OK;
  const size_t size = given->struct_size;
  if (size < first_size)
    return fail(NORMRT_INVALID_ARGUMENT,
                std::string(function) + ": options->struct_size = " + std::to_string(size) +
                    ", expected sizeof(" + type + ") = " + std::to_string(sizeof(Options)) +
                    " (initialize the options with " + init + ")");
  if (size < sizeof(Options)) {  // an older caller: its fields, our defaults for the rest
    std::memcpy(out, given, size);
    out->struct_size = sizeof(Options);
    return NORMRT_OK;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(given);
  for (size_t i = sizeof(Options); i < size; ++i)
    if (bytes[i] != 0)
      return fail(NORMRT_INVALID_ARGUMENT,
                  std::string(function) + ": the options (" + std::to_string(size) +
                      " bytes) set fields beyond the " + std::to_string(sizeof(Options)) +
                      " bytes of " + type + " that normrt " + normrt_version() + " knows");
  std::memcpy(out, given, std::min(size, sizeof(Options)));
  out->struct_size = sizeof(Options);
  return NORMRT_OK;
}

normrt_dtype to_c_dtype(const std::string& dtype) {
  if (dtype == "f32") return NORMRT_DTYPE_F32;
  if (dtype == "i32") return NORMRT_DTYPE_I32;
  return NORMRT_DTYPE_INVALID;
}

// Fills the caller's info struct (by its struct_size) from `tensor`.
normrt_status write_info(const normrt::TensorInfo* tensor, size_t max_length,
                         normrt_tensor_info* info, const char* function) {
  if (info == nullptr) return null_argument(function, "info");
  if (tensor == nullptr)
    return fail(NORMRT_INVALID_ARGUMENT, std::string(function) + ": index out of range");
  if (info->struct_size < sizeof(normrt_tensor_info))
    return fail(NORMRT_INVALID_ARGUMENT,
                std::string(function) + ": info->struct_size = " +
                    std::to_string(info->struct_size) + ", expected sizeof(normrt_tensor_info) = " +
                    std::to_string(sizeof(normrt_tensor_info)) + " (NORMRT_TENSOR_INFO_INIT)");
  normrt_tensor_info filled = NORMRT_TENSOR_INFO_INIT;
  filled.struct_size = info->struct_size;
  filled.name = tensor->name.c_str();
  filled.dtype = to_c_dtype(tensor->dtype);
  filled.rank = tensor->shape.size();
  for (size_t i = 0; i < tensor->shape.size() && i < NORMRT_MAX_RANK; ++i)
    filled.shape[i] = tensor->shape[i] < 0 ? NORMRT_SEQUENCE_DIM : tensor->shape[i];
  filled.max_sequence_length = max_length;
  std::memcpy(info, &filled, sizeof filled);
  return NORMRT_OK;
}

const normrt::TensorInfo* at(const std::vector<normrt::TensorInfo>& list, size_t index) {
  return index < list.size() ? &list[index] : nullptr;
}

}  // namespace

extern "C" {

const char* normrt_last_error(void) { return last_error.c_str(); }

size_t normrt_max_threads(void) { return normrt::max_session_threads(); }

size_t normrt_available_cpus(void) { return normrt::available_cpus(); }

const char* normrt_dtype_name(normrt_dtype dtype) {
  switch (dtype) {
    case NORMRT_DTYPE_F32:
      return "f32";
    case NORMRT_DTYPE_I32:
      return "i32";
    case NORMRT_DTYPE_I64:
      return "i64";
    case NORMRT_DTYPE_INVALID:
    case NORMRT_DTYPE_FORCE_INT:
      break;
  }
  return "invalid";
}

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
    normrt_model_options given = NORMRT_MODEL_OPTIONS_INIT;
    if (normrt_status s = read_options(options, &given, "normrt_model_load", "normrt_model_options",
                                       "NORMRT_MODEL_OPTIONS_INIT",
                                       offsetof(normrt_model_options, bf16_activations));
        s != NORMRT_OK)
      return s;
    normrt::ModelOptions cpp_options;
    cpp_options.isa = given.isa == nullptr ? "" : given.isa;
    cpp_options.fuse = given.fuse != 0;
    cpp_options.fold_norm_affine = given.fold_norm_affine != 0;
    cpp_options.bf16_activations = given.bf16_activations != 0;
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

normrt_status normrt_model_input_info(const normrt_model* model, size_t index,
                                      normrt_tensor_info* info) {
  return guarded([&] {
    if (model == nullptr) return null_argument("normrt_model_input_info", "model");
    return write_info(at(model->model->inputs(), index), model->model->max_sequence_length(), info,
                      "normrt_model_input_info");
  });
}

normrt_status normrt_model_output_info(const normrt_model* model, size_t index,
                                       normrt_tensor_info* info) {
  return guarded([&] {
    if (model == nullptr) return null_argument("normrt_model_output_info", "model");
    return write_info(at(model->model->outputs(), index), model->model->max_sequence_length(), info,
                      "normrt_model_output_info");
  });
}

size_t normrt_model_max_sequence_length(const normrt_model* model) {
  return model == nullptr ? 0 : model->model->max_sequence_length();
}

const char* normrt_model_batch_refusal(const normrt_model* model) {
  return model == nullptr ? nullptr : model->model->batch_refusal().data();
}

normrt_status normrt_model_metadata_bytes(const normrt_model* model, const char* key,
                                          const void** data, size_t* size) {
  return guarded([&] {
    if (model == nullptr) return null_argument("normrt_model_metadata_bytes", "model");
    if (key == nullptr) return null_argument("normrt_model_metadata_bytes", "key");
    if (data == nullptr) return null_argument("normrt_model_metadata_bytes", "data");
    if (size == nullptr) return null_argument("normrt_model_metadata_bytes", "size");
    const std::string_view bytes = model->model->metadata_bytes(key);
    *data = bytes.empty() ? nullptr : bytes.data();
    *size = bytes.size();
    return NORMRT_OK;
  });
}

normrt_status normrt_session_create(const normrt_model* model,
                                    const normrt_session_options* options,
                                    normrt_session** session) {
  return guarded([&] {
    if (model == nullptr) return null_argument("normrt_session_create", "model");
    if (session == nullptr) return null_argument("normrt_session_create", "session");
    *session = nullptr;
    normrt_session_options given = NORMRT_SESSION_OPTIONS_INIT;
    // max_batch came after the first version's {struct_size, threads, profile}.
    if (normrt_status s = read_options(options, &given, "normrt_session_create",
                                       "normrt_session_options", "NORMRT_SESSION_OPTIONS_INIT",
                                       offsetof(normrt_session_options, max_batch));
        s != NORMRT_OK)
      return s;
    normrt::SessionOptions cpp_options;
    cpp_options.threads = given.threads;  // 0: normrt_available_cpus()
    cpp_options.profile = given.profile != 0;
    cpp_options.max_batch = given.max_batch == 0 ? 1 : given.max_batch;
    auto created = normrt::Session::create(model->model, cpp_options);
    if (!created) return fail(NORMRT_INVALID_ARGUMENT, created.status().message());
    *session = new normrt_session{std::move(created).value()};
    return NORMRT_OK;
  });
}

void normrt_session_destroy(normrt_session* session) { delete session; }

normrt_status normrt_session_set_input(normrt_session* session, const char* name, const void* data,
                                       size_t bytes) {
  return guarded([&] {
    if (session == nullptr) return null_argument("normrt_session_set_input", "session");
    if (name == nullptr) return null_argument("normrt_session_set_input", "name");
    normrt::Status status = session->session->set_input(name, data, bytes);
    return status ? NORMRT_OK : fail(NORMRT_INVALID_ARGUMENT, status.message());
  });
}

namespace {

// The C dtype and shape of typed data as the C++ API takes them.
normrt_status to_cpp_data(const char* function, normrt_dtype dtype, const size_t* shape,
                          size_t rank, normrt::ElementType* out_type,
                          normrt::TensorShape* out_shape) {
  if (shape == nullptr && rank > 0) return null_argument(function, "shape");
  if (rank > NORMRT_MAX_RANK)
    return fail(NORMRT_INVALID_ARGUMENT, std::string(function) + ": rank " + std::to_string(rank) +
                                             " exceeds NORMRT_MAX_RANK");
  normrt::ElementType type;
  switch (dtype) {
    case NORMRT_DTYPE_F32:
      type = normrt::ElementType::kF32;
      break;
    case NORMRT_DTYPE_I32:
      type = normrt::ElementType::kI32;
      break;
    case NORMRT_DTYPE_I64:
      type = normrt::ElementType::kI64;
      break;
    default:
      return fail(NORMRT_INVALID_ARGUMENT, std::string(function) + ": dtype " +
                                               std::to_string(static_cast<int>(dtype)) +
                                               " is not a normrt_dtype");
  }
  *out_type = type;
  out_shape->rank = rank;
  for (size_t i = 0; i < rank; ++i) out_shape->dims[i] = shape[i];
  return NORMRT_OK;
}

}  // namespace

normrt_status normrt_session_set_input_typed(normrt_session* session, const char* name,
                                             normrt_dtype dtype, const void* data,
                                             const size_t* shape, size_t rank) {
  return guarded([&] {
    const char* function = "normrt_session_set_input_typed";
    if (session == nullptr) return null_argument(function, "session");
    if (name == nullptr) return null_argument(function, "name");
    normrt::ElementType type;
    normrt::TensorShape cpp_shape;
    if (normrt_status s = to_cpp_data(function, dtype, shape, rank, &type, &cpp_shape);
        s != NORMRT_OK)
      return s;
    normrt::Status status = session->session->set_input(name, type, data, cpp_shape);
    return status ? NORMRT_OK : fail(NORMRT_INVALID_ARGUMENT, status.message());
  });
}

normrt_status normrt_session_set_attention_mask(normrt_session* session, normrt_dtype dtype,
                                                const void* mask, const size_t* shape,
                                                size_t rank) {
  return guarded([&] {
    const char* function = "normrt_session_set_attention_mask";
    if (session == nullptr) return null_argument(function, "session");
    normrt::ElementType type = normrt::ElementType::kI32;
    normrt::TensorShape cpp_shape;
    if (mask != nullptr) {
      if (normrt_status s = to_cpp_data(function, dtype, shape, rank, &type, &cpp_shape);
          s != NORMRT_OK)
        return s;
    }
    normrt::Status status = session->session->set_attention_mask(type, mask, cpp_shape);
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

normrt_status normrt_session_set_state(normrt_session* session, const char* name, const void* data,
                                       size_t bytes) {
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
