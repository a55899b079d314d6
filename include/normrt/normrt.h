/* normrt's C API: opaque handles, status codes and error strings, for
 * embedding normrt through an FFI. No C++ type crosses it and no exception
 * escapes it.
 *
 *   normrt_model* model;
 *   if (normrt_model_load("model.nrmt", NULL, &model) != NORMRT_OK)
 *     fprintf(stderr, "%s\n", normrt_last_error());
 *   normrt_session* session;
 *   normrt_session_create(model, NULL, &session);
 *   normrt_session_set_input(session, "ids", ids, n * sizeof(int32_t));
 *   normrt_session_run(session);
 *   const void* data; size_t shape[NORMRT_MAX_RANK]; size_t rank;
 *   normrt_session_output(session, "embedding", &data, shape, &rank);
 *   normrt_session_destroy(session);
 *   normrt_model_destroy(model);
 *
 * Threads: a model may be shared by sessions on any threads; a session is
 * used by one thread at a time. A session keeps its model alive, so the
 * model handle may be destroyed first. Error messages are per thread: the
 * message of the last failed call on the calling thread.
 */
#ifndef NORMRT_NORMRT_H_
#define NORMRT_NORMRT_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NORMRT_MAX_RANK 4

typedef enum normrt_status {
  NORMRT_OK = 0,
  NORMRT_INVALID_ARGUMENT = 1, /* a null pointer, an unknown name, a wrong size */
  NORMRT_LOAD_FAILED = 2,      /* the model file is missing, malformed or unsupported */
  NORMRT_RUN_FAILED = 3,       /* bad input data (a token id out of range, ...) */
  NORMRT_OUT_OF_MEMORY = 4,
  NORMRT_INTERNAL_ERROR = 5
} normrt_status;

typedef struct normrt_model normrt_model;
typedef struct normrt_session normrt_session;

typedef struct normrt_model_options {
  const char* isa;      /* NULL or "": best for this CPU; "scalar", "avx2", "avx512", "neon" */
  int fuse;             /* nonzero: fuse Linear→norm chains (default 1) */
  int fold_norm_affine; /* nonzero: fold pre-norm gains into linear weights (default 1) */
} normrt_model_options;

typedef struct normrt_session_options {
  size_t threads; /* intra-op threads, 0 or 1: the calling thread only */
  int profile;    /* nonzero: time every node */
} normrt_session_options;

/* The message of the last failed call on this thread ("" if none). Valid
 * until the next failing call on this thread. */
const char* normrt_last_error(void);
/* "ok", "invalid argument", ... */
const char* normrt_status_name(normrt_status status);

/* options may be NULL (defaults). On success *model is a new handle. */
normrt_status normrt_model_load(const char* path, const normrt_model_options* options,
                                normrt_model** model);
void normrt_model_destroy(normrt_model* model); /* NULL is a no-op */

size_t normrt_model_input_count(const normrt_model* model);
size_t normrt_model_output_count(const normrt_model* model);
/* NULL if index is out of range. Valid while the model lives. */
const char* normrt_model_input_name(const normrt_model* model, size_t index);
const char* normrt_model_output_name(const normrt_model* model, size_t index);

normrt_status normrt_session_create(const normrt_model* model,
                                    const normrt_session_options* options,
                                    normrt_session** session);
void normrt_session_destroy(normrt_session* session); /* NULL is a no-op */

/* data is borrowed until normrt_session_run() returns; bytes fixes S. */
normrt_status normrt_session_set_input(normrt_session* session, const char* name,
                                       const void* data, size_t bytes);
normrt_status normrt_session_run(normrt_session* session);
/* *data stays valid until the next run or reset; shape has room for
 * NORMRT_MAX_RANK entries. */
normrt_status normrt_session_output(const normrt_session* session, const char* name,
                                    const void** data, size_t* shape, size_t* rank);
void normrt_session_reset(normrt_session* session);
size_t normrt_session_position(const normrt_session* session);

/* State tensors (RNN states, KV caches). normrt_session_state: as the last run
 * left it, valid like an output. normrt_session_set_state: bytes must be the
 * tensor's exact size. normrt_session_copy_state: makes dst's state and
 * position a copy of src's (a session of the same model), as beam search
 * does when it forks or reorders hypotheses. */
normrt_status normrt_session_state(const normrt_session* session, const char* name,
                                   const void** data, size_t* shape, size_t* rank);
normrt_status normrt_session_set_state(normrt_session* session, const char* name,
                                       const void* data, size_t bytes);
normrt_status normrt_session_copy_state(normrt_session* dst, const normrt_session* src);

#ifdef __cplusplus
}
#endif

#endif /* NORMRT_NORMRT_H_ */
