/* normrt's C API: opaque handles, status codes and error strings, for
 * embedding normrt through an FFI. No C++ type crosses it and no exception
 * escapes it.
 *
 *   normrt_model* model;
 *   if (normrt_model_load("model.nrmt", NULL, &model) != NORMRT_OK)
 *     fprintf(stderr, "%s\n", normrt_last_error());
 *   normrt_session* session;
 *   normrt_session_create(model, NULL, &session);
 *   const int64_t ids[] = {101, 2023, 102};  size_t s = 3;
 *   normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, &s, 1);
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
 *
 * ABI: option and info structs start with `struct_size`, which the caller
 * sets to sizeof the struct it was compiled with (the NORMRT_*_INIT macros
 * do), so that later versions can add fields at the end: a library reads
 * only the fields the caller's struct has (older callers get defaults for
 * the rest) and refuses a larger struct whose extra bytes are not zero
 * (options it does not know). NULL options still mean the defaults. A
 * struct built by hand rather than with a NORMRT_*_INIT macro should be
 * zeroed first (memset), so that no padding byte looks like an option.
 */
#ifndef NORMRT_NORMRT_H_
#define NORMRT_NORMRT_H_

#include <stddef.h>
#include <stdint.h>

#include "normrt/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NORMRT_MAX_RANK 4
/* A dimension of a declared shape that is the sequence length S, chosen per
 * run (1 <= S <= the model's max sequence length). */
#define NORMRT_SEQUENCE_DIM (-1)

typedef enum normrt_status {
  NORMRT_OK = 0,
  NORMRT_INVALID_ARGUMENT = 1, /* a null pointer, an unknown name, a wrong size */
  NORMRT_LOAD_FAILED = 2,      /* the model file is missing, malformed or unsupported */
  NORMRT_RUN_FAILED = 3,       /* bad input data (a token id out of range, ...) */
  NORMRT_OUT_OF_MEMORY = 4,
  NORMRT_INTERNAL_ERROR = 5
} normrt_status;

/* Element types of inputs, outputs and the data handed to
 * normrt_session_set_input_typed. */
typedef enum normrt_dtype {
  NORMRT_DTYPE_INVALID = 0,
  NORMRT_DTYPE_F32 = 1,
  NORMRT_DTYPE_I32 = 2,
  NORMRT_DTYPE_I64 = 3, /* data only: token ids for an i32 input */
  /* Not a type: makes every int a valid value of the enum, so that the
   * library can read and refuse an unknown one (it is stored as an int). */
  NORMRT_DTYPE_FORCE_INT = 0x7fffffff
} normrt_dtype;

typedef struct normrt_model normrt_model;
typedef struct normrt_session normrt_session;

typedef struct normrt_model_options {
  size_t struct_size;   /* sizeof(normrt_model_options) */
  const char* isa;      /* NULL or "": best for this CPU; "scalar", "avx2", "avx512", "neon" */
  int fuse;             /* nonzero: fuse Linear→norm chains (default 1) */
  int fold_norm_affine; /* nonzero: fold pre-norm gains into linear weights (default 1) */
  int bf16_activations; /* nonzero: bf16 matrices round x to bf16 where the CPU has a fast
                           kernel for it (default 0; NORMRT_BF16_ACTIVATIONS=1 also sets it) */
} normrt_model_options;
#define NORMRT_MODEL_OPTIONS_INIT \
  { sizeof(normrt_model_options), NULL, 1, 1, 0 }

typedef struct normrt_session_options {
  size_t struct_size; /* sizeof(normrt_session_options) */
  size_t threads;     /* intra-op threads: 1 the calling thread only, 0 as many as
                         the process may use (normrt_available_cpus()); at most
                         normrt_max_threads() */
  int profile;        /* nonzero: time every node */
  size_t max_batch;   /* the most sequences one run takes (0 or 1: one), for a model
                         that runs batches (normrt_model_batch_refusal() is "");
                         added in 0.x: an older caller's smaller struct gets 1 */
} normrt_session_options;
#define NORMRT_SESSION_OPTIONS_INIT \
  { sizeof(normrt_session_options), 1, 0, 1 }

/* A graph input or output as the model declares it. */
typedef struct normrt_tensor_info {
  size_t struct_size; /* set by the caller: sizeof(normrt_tensor_info) */
  const char* name;   /* valid while the model lives */
  normrt_dtype dtype; /* NORMRT_DTYPE_F32 or NORMRT_DTYPE_I32 */
  size_t rank;
  int64_t shape[NORMRT_MAX_RANK]; /* NORMRT_SEQUENCE_DIM where the dimension is S */
  size_t max_sequence_length;     /* the largest S (the model's) */
} normrt_tensor_info;
#define NORMRT_TENSOR_INFO_INIT \
  { sizeof(normrt_tensor_info), NULL, NORMRT_DTYPE_INVALID, 0, {0}, 0 }

/* The library's version, "major.minor.patch". */
NORMRT_API const char* normrt_version(void);
/* The most intra-op threads a session accepts (normrt_session_options.threads). */
NORMRT_API size_t normrt_max_threads(void);
/* The CPUs this process may run on (its affinity mask), at least 1: what
 * normrt_session_options.threads = 0 means. */
NORMRT_API size_t normrt_available_cpus(void);

/* The message of the last failed call on this thread ("" if none). Valid
 * until the next failing call on this thread. */
NORMRT_API const char* normrt_last_error(void);
/* "ok", "invalid argument", ... */
NORMRT_API const char* normrt_status_name(normrt_status status);
/* "f32", "i32", "i64"; "invalid" otherwise. */
NORMRT_API const char* normrt_dtype_name(normrt_dtype dtype);

/* options may be NULL (defaults). On success *model is a new handle. */
NORMRT_API normrt_status normrt_model_load(const char* path, const normrt_model_options* options,
                                           normrt_model** model);
NORMRT_API void normrt_model_destroy(normrt_model* model); /* NULL is a no-op */

NORMRT_API size_t normrt_model_input_count(const normrt_model* model);
NORMRT_API size_t normrt_model_output_count(const normrt_model* model);
/* NULL if index is out of range. Valid while the model lives. */
NORMRT_API const char* normrt_model_input_name(const normrt_model* model, size_t index);
NORMRT_API const char* normrt_model_output_name(const normrt_model* model, size_t index);
/* Fills *info (whose struct_size the caller sets) for input or output
 * `index`; NORMRT_INVALID_ARGUMENT if index is out of range. */
NORMRT_API normrt_status normrt_model_input_info(const normrt_model* model, size_t index,
                                                 normrt_tensor_info* info);
NORMRT_API normrt_status normrt_model_output_info(const normrt_model* model, size_t index,
                                                  normrt_tensor_info* info);
/* The largest S a run accepts. */
NORMRT_API size_t normrt_model_max_sequence_length(const normrt_model* model);
/* "" if the model runs batches of sequences (an input [S, ...] then takes
 * [B, S, ...], see normrt_session_options.max_batch); else why not. Valid
 * while the model lives; NULL for a null model. */
NORMRT_API const char* normrt_model_batch_refusal(const normrt_model* model);
/* A bytes metadata entry of the file (docs/model_format.md): *data and *size
 * are set to it (valid while the model lives), or to NULL and 0 when the file
 * has none of that name. "tokenizer": the tokenizer normrt-convert stored,
 * for normrt::Tokenizer::from_bytes (libnormrt_tokenizer). */
NORMRT_API normrt_status normrt_model_metadata_bytes(const normrt_model* model, const char* key,
                                                     const void** data, size_t* size);

NORMRT_API normrt_status normrt_session_create(const normrt_model* model,
                                               const normrt_session_options* options,
                                               normrt_session** session);
NORMRT_API void normrt_session_destroy(normrt_session* session); /* NULL is a no-op */

/* Binds an input to data of element type `dtype` and shape `shape[0..rank)`
 * (the input's declared shape, with S where it has NORMRT_SEQUENCE_DIM).
 * The input's own type: data is borrowed until normrt_session_run()
 * returns. NORMRT_DTYPE_I64 for an i32 input (token ids as Hugging Face
 * tokenizers and ONNX Runtime hold them): every value must fit int32 (else
 * NORMRT_INVALID_ARGUMENT naming the value and its index) and is converted
 * into the session's own memory now, so data may be released at once. Any
 * other type is refused: data are never reinterpreted. */
NORMRT_API normrt_status normrt_session_set_input_typed(normrt_session* session, const char* name,
                                                        normrt_dtype dtype, const void* data,
                                                        const size_t* shape, size_t rank);
/* Untyped, kept for compatibility: `bytes` of data taken as the input's
 * declared type (f32 or i32; see normrt_model_input_info), borrowed until
 * normrt_session_run() returns; bytes fixes S. An int64 array passed here
 * would be read as two int32 per value: use normrt_session_set_input_typed. */
NORMRT_API normrt_status normrt_session_set_input(normrt_session* session, const char* name,
                                                  const void* data, size_t bytes);
/* Which tokens of a batch are real: mask [B, S] (shape {B, S}, rank 2) of
 * 0/1, i32 or i64, each row ones then zeros (right padding). Copied now;
 * applies to the runs of inputs [B, S] until set again; NULL mask clears
 * it. See Session::set_attention_mask in normrt.hpp. */
NORMRT_API normrt_status normrt_session_set_attention_mask(normrt_session* session,
                                                           normrt_dtype dtype, const void* mask,
                                                           const size_t* shape, size_t rank);
NORMRT_API normrt_status normrt_session_run(normrt_session* session);
/* *data stays valid until the next run or reset; shape has room for
 * NORMRT_MAX_RANK entries. */
NORMRT_API normrt_status normrt_session_output(const normrt_session* session, const char* name,
                                               const void** data, size_t* shape, size_t* rank);
NORMRT_API void normrt_session_reset(normrt_session* session);
NORMRT_API size_t normrt_session_position(const normrt_session* session);

/* State tensors (RNN states, KV caches). normrt_session_state: as the last run
 * left it, valid like an output. normrt_session_set_state: bytes must be the
 * tensor's exact size. normrt_session_copy_state: makes dst's state and
 * position a copy of src's (a session of the same model), as beam search
 * does when it forks or reorders hypotheses. */
NORMRT_API normrt_status normrt_session_state(const normrt_session* session, const char* name,
                                              const void** data, size_t* shape, size_t* rank);
NORMRT_API normrt_status normrt_session_set_state(normrt_session* session, const char* name,
                                                  const void* data, size_t bytes);
NORMRT_API normrt_status normrt_session_copy_state(normrt_session* dst, const normrt_session* src);

#ifdef __cplusplus
}
#endif

#endif /* NORMRT_NORMRT_H_ */
