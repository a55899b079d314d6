/* The C API from a C program: load, inspect, run, read outputs, typed inputs
 * (int64 token ids), sized option structs, and every error path an FFI user
 * can hit. Usage: test_c_api <fixture directory>
 * (written by make_c_api_fixture). Prints one line per failed check and a
 * summary; exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normrt/normrt.h"

static int checks = 0, failures = 0;

#define CHECK(condition)                                                                           \
  do {                                                                                             \
    ++checks;                                                                                      \
    if (!(condition)) {                                                                            \
      ++failures;                                                                                  \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #condition, \
              normrt_last_error());                                                                \
    }                                                                                              \
  } while (0)

static float* read_floats(const char* directory, const char* name, size_t* count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  FILE* file = fopen(path, "rb");
  if (file == NULL) return NULL;
  fseek(file, 0, SEEK_END);
  long bytes = ftell(file);
  fseek(file, 0, SEEK_SET);
  float* values = malloc((size_t)bytes);
  *count = fread(values, sizeof(float), (size_t)bytes / sizeof(float), file);
  fclose(file);
  return values;
}

static int contains(const char* text, const char* part) { return strstr(text, part) != NULL; }

/* Feeds x = {v, 2v, -v, 0} to the running-sum model (out = x + h, h ← out). */
static void feed(normrt_session* session, float v) {
  const float x[4] = {v, 2 * v, -v, 0};
  CHECK(normrt_session_set_input(session, "x", x, sizeof x) == NORMRT_OK);
  CHECK(normrt_session_run(session) == NORMRT_OK);
}

static float state_value(const normrt_session* session, size_t i) {
  const void* data = NULL;
  size_t shape[NORMRT_MAX_RANK], rank = 0;
  CHECK(normrt_session_state(session, "h", &data, shape, &rank) == NORMRT_OK);
  CHECK(rank == 2 && shape[0] == 1 && shape[1] == 4);
  return data != NULL && i < 4 ? ((const float*)data)[i] : NAN;
}

/* State read, written and copied between two sessions of one stateful model. */
static void check_state_functions(const char* directory) {
  char path[4096];
  snprintf(path, sizeof path, "%s/running_sum.nrmt", directory);
  normrt_model* model = NULL;
  CHECK(normrt_model_load(path, NULL, &model) == NORMRT_OK);
  if (model == NULL) return;
  normrt_session *a = NULL, *b = NULL;
  CHECK(normrt_session_create(model, NULL, &a) == NORMRT_OK);
  CHECK(normrt_session_create(model, NULL, &b) == NORMRT_OK);
  if (a != NULL && b != NULL) {
    feed(a, 1.5f);
    feed(a, 2.0f);
    CHECK(state_value(a, 0) == 3.5f && state_value(a, 1) == 7.0f && state_value(a, 2) == -3.5f);
    CHECK(normrt_session_copy_state(b, a) == NORMRT_OK);
    CHECK(normrt_session_position(b) == 2);
    feed(b, 1.0f);
    CHECK(state_value(b, 0) == 4.5f && state_value(a, 0) == 3.5f);
    const float seed[4] = {10, 20, 30, 40};
    CHECK(normrt_session_set_state(a, "h", seed, sizeof seed) == NORMRT_OK);
    CHECK(state_value(a, 3) == 40.0f);
    CHECK(normrt_session_set_state(a, "h", seed, 12) == NORMRT_INVALID_ARGUMENT);
    CHECK(contains(normrt_last_error(), "expected 16 bytes, got 12"));
    CHECK(normrt_session_set_state(a, "c", seed, sizeof seed) == NORMRT_INVALID_ARGUMENT);
    CHECK(contains(normrt_last_error(), "no state 'c' (states: h)"));
    CHECK(normrt_session_copy_state(a, NULL) == NORMRT_INVALID_ARGUMENT);
    CHECK(contains(normrt_last_error(), "src is null"));
  }
  normrt_session_destroy(a);
  normrt_session_destroy(b);
  normrt_model_destroy(model);
}

/* A thread count beyond normrt_max_threads() is refused by name. */
static void check_thread_bound(const char* path) {
  normrt_model* model = NULL;
  CHECK(normrt_model_load(path, NULL, &model) == NORMRT_OK);
  if (model == NULL) return;
  CHECK(normrt_max_threads() == 1024);
  normrt_session_options options = NORMRT_SESSION_OPTIONS_INIT;
  options.threads = 20000;
  normrt_session* session = NULL;
  CHECK(normrt_session_create(model, &options, &session) == NORMRT_INVALID_ARGUMENT);
  CHECK(session == NULL);
  CHECK(contains(normrt_last_error(), "threads = 20000 exceeds the limit of 1024"));
  options.threads = 2;
  CHECK(normrt_session_create(model, &options, &session) == NORMRT_OK);
  normrt_session_destroy(session);
  /* 0: as many as the process may use, which is at least one CPU. */
  CHECK(normrt_available_cpus() >= 1);
  options.threads = 0;
  session = NULL;
  CHECK(normrt_session_create(model, &options, &session) == NORMRT_OK);
  CHECK(session != NULL);
  normrt_session_destroy(session);
  normrt_model_destroy(model);
}

/* Which ids an output row came from: ids.nrmt's table row v is v + 0.25 d. */
static int row_id(const float* rows, size_t row) {
  for (size_t d = 0; d < 4; ++d)
    if (rows[row * 4 + d] != rows[row * 4] + 0.25f * (float)d) return -1;
  return (int)rows[row * 4];
}

/* Describing the inputs and outputs; int64 ids converted, never reinterpreted. */
static void check_typed_inputs(const char* directory) {
  char path[4096];
  snprintf(path, sizeof path, "%s/ids.nrmt", directory);
  normrt_model* model = NULL;
  CHECK(normrt_model_load(path, NULL, &model) == NORMRT_OK);
  if (model == NULL) return;

  normrt_tensor_info info = NORMRT_TENSOR_INFO_INIT;
  CHECK(normrt_model_input_info(model, 0, &info) == NORMRT_OK);
  CHECK(info.name != NULL && strcmp(info.name, "ids") == 0);
  CHECK(info.dtype == NORMRT_DTYPE_I32);
  CHECK(info.rank == 1 && info.shape[0] == NORMRT_SEQUENCE_DIM);
  CHECK(info.max_sequence_length == 16);
  CHECK(normrt_model_max_sequence_length(model) == 16);
  CHECK(normrt_model_output_info(model, 0, &info) == NORMRT_OK);
  CHECK(strcmp(info.name, "embedding") == 0 && info.dtype == NORMRT_DTYPE_F32);
  CHECK(info.rank == 2 && info.shape[0] == NORMRT_SEQUENCE_DIM && info.shape[1] == 4);
  CHECK(normrt_model_input_info(model, 1, &info) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "index out of range"));
  normrt_tensor_info unsized = NORMRT_TENSOR_INFO_INIT;
  unsized.struct_size = 0;
  CHECK(normrt_model_input_info(model, 0, &unsized) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "struct_size = 0"));
  CHECK(strcmp(normrt_dtype_name(NORMRT_DTYPE_I64), "i64") == 0);

  /* Bytes metadata: the stored entry as it was written, NULL/0 for a missing one. */
  const void* bytes = NULL;
  size_t size = 0;
  CHECK(normrt_model_metadata_bytes(model, "tokenizer", &bytes, &size) == NORMRT_OK);
  CHECK(size == 6 && bytes != NULL && memcmp(bytes, "tk\0\xff\n!", 6) == 0);
  CHECK(normrt_model_metadata_bytes(model, "absent", &bytes, &size) == NORMRT_OK);
  CHECK(bytes == NULL && size == 0);
  CHECK(normrt_model_metadata_bytes(model, NULL, &bytes, &size) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "key is null"));
  CHECK(normrt_model_metadata_bytes(model, "tokenizer", &bytes, NULL) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "size is null"));

  normrt_session* session = NULL;
  CHECK(normrt_session_create(model, NULL, &session) == NORMRT_OK);
  normrt_model_destroy(model);
  if (session == NULL) return;
  int64_t ids[5] = {3, 1, 4, 1, 5};
  size_t s = 5;
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, &s, 1) == NORMRT_OK);
  ids[0] = 9; /* converted at the call: later changes do not matter */
  CHECK(normrt_session_run(session) == NORMRT_OK);
  const void* data = NULL;
  size_t shape[NORMRT_MAX_RANK], rank = 0;
  CHECK(normrt_session_output(session, "embedding", &data, shape, &rank) == NORMRT_OK);
  CHECK(rank == 2 && shape[0] == 5 && shape[1] == 4);
  if (data != NULL && rank == 2 && shape[0] == 5) {
    const int want[5] = {3, 1, 4, 1, 5};
    for (size_t i = 0; i < 5; ++i) CHECK(row_id(data, i) == want[i]);
  }
  const int32_t ids32[3] = {7, 0, 49};
  s = 3;
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I32, ids32, &s, 1) ==
        NORMRT_OK);
  CHECK(normrt_session_run(session) == NORMRT_OK);
  CHECK(normrt_session_output(session, "embedding", &data, shape, &rank) == NORMRT_OK);
  CHECK(shape[0] == 3 && row_id(data, 0) == 7 && row_id(data, 1) == 0 && row_id(data, 2) == 49);

  const int64_t beyond[2] = {2, (int64_t)1 << 40};
  s = 2;
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, beyond, &s, 1) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(),
                 "'ids' value 1099511627776 at index 1 is outside the i32 range"));
  const float floats[2] = {1, 2};
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_F32, floats, &s, 1) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "f32 data cannot feed input 'ids' [S] i32"));
  s = 17;
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, &s, 1) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "shape [17] does not fit input 'ids' [S] i32 (1 ≤ S ≤ 16)"));
  CHECK(normrt_session_set_input_typed(session, "ids", (normrt_dtype)9, ids, &s, 1) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "dtype 9 is not a normrt_dtype"));
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, NULL, 1) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "shape is null"));
  normrt_session_destroy(session);
}

/* A typed f32 input gives what the untyped one gives. */
static void check_float_typed_input(const char* path, const float* x, size_t x_count,
                                    const float* expected, size_t expected_count) {
  normrt_model* model = NULL;
  normrt_session* session = NULL;
  CHECK(normrt_model_load(path, NULL, &model) == NORMRT_OK);
  if (model == NULL) return;
  CHECK(normrt_session_create(model, NULL, &session) == NORMRT_OK);
  normrt_model_destroy(model);
  if (session == NULL) return;
  const size_t shape[2] = {x_count / 48, 48};
  CHECK(normrt_session_set_input_typed(session, "x", NORMRT_DTYPE_F32, x, shape, 2) == NORMRT_OK);
  CHECK(normrt_session_run(session) == NORMRT_OK);
  const void* data = NULL;
  size_t out_shape[NORMRT_MAX_RANK], rank = 0;
  CHECK(normrt_session_output(session, "out", &data, out_shape, &rank) == NORMRT_OK);
  if (data != NULL && rank == 2 && out_shape[0] * out_shape[1] == expected_count) {
    double worst = 0, scale = 0;
    for (size_t i = 0; i < expected_count; ++i) {
      worst = fmax(worst, fabs(((const float*)data)[i] - expected[i]));
      scale = fmax(scale, fabs(expected[i]));
    }
    CHECK(worst <= 2e-5 * scale);
  }
  const int64_t ids[2 * 48] = {0};
  CHECK(normrt_session_set_input_typed(session, "x", NORMRT_DTYPE_I64, ids, shape, 2) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "i64 data cannot feed input 'x' [S, 48] f32 (give f32)"));
  normrt_session_destroy(session);
}

/* Option structs carry their size: unset is refused; a larger (newer) struct
 * is accepted when its extra bytes are zero and refused otherwise. */
/* Batches: ids [B, S] with a mask; max_batch from the options, and a
 * first-version options struct (without max_batch) gets one sequence. */
static void check_batches(const char* directory) {
  char path[4096];
  snprintf(path, sizeof path, "%s/ids.nrmt", directory);
  normrt_model* model = NULL;
  CHECK(normrt_model_load(path, NULL, &model) == NORMRT_OK);
  if (model == NULL) return;
  CHECK(normrt_model_batch_refusal(model) != NULL && normrt_model_batch_refusal(model)[0] == 0);
  CHECK(normrt_model_batch_refusal(NULL) == NULL);

  normrt_session_options options = NORMRT_SESSION_OPTIONS_INIT;
  CHECK(options.max_batch == 1);
  options.max_batch = 3;
  normrt_session* session = NULL;
  CHECK(normrt_session_create(model, &options, &session) == NORMRT_OK);
  const int64_t ids[3 * 2] = {3, 1, 4, 0, 5, 9};
  const int32_t mask[3 * 2] = {1, 1, 1, 0, 1, 1};
  const size_t shape[2] = {3, 2};
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, shape, 2) ==
        NORMRT_OK);
  CHECK(normrt_session_set_attention_mask(session, NORMRT_DTYPE_I32, mask, shape, 2) == NORMRT_OK);
  CHECK(normrt_session_run(session) == NORMRT_OK);
  const void* data = NULL;
  size_t out_shape[NORMRT_MAX_RANK] = {0}, rank = 0;
  CHECK(normrt_session_output(session, "embedding", &data, out_shape, &rank) == NORMRT_OK);
  /* The real tokens only, packed: the padding (ids[3]) is gone. */
  const int packed[5] = {3, 1, 4, 5, 9};
  CHECK(rank == 2 && out_shape[0] == 5 && out_shape[1] == 4);
  if (data != NULL)
    for (size_t row = 0; row < 5; ++row) CHECK(row_id((const float*)data, row) == packed[row]);
  const int32_t left_padded[3 * 2] = {0, 1, 1, 1, 1, 1};
  CHECK(normrt_session_set_attention_mask(session, NORMRT_DTYPE_I32, left_padded, shape, 2) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "mask[0, 1] is 1 after a 0"));
  CHECK(normrt_session_set_attention_mask(session, NORMRT_DTYPE_I32, NULL, NULL, 0) == NORMRT_OK);
  CHECK(normrt_session_set_attention_mask(NULL, NORMRT_DTYPE_I32, NULL, NULL, 0) ==
        NORMRT_INVALID_ARGUMENT);
  normrt_session_destroy(session);

  normrt_session_options first_version = NORMRT_SESSION_OPTIONS_INIT;
  first_version.max_batch = 7; /* beyond its struct_size: not read */
  first_version.struct_size = offsetof(normrt_session_options, max_batch);
  CHECK(normrt_session_create(model, &first_version, &session) == NORMRT_OK);
  CHECK(normrt_session_set_input_typed(session, "ids", NORMRT_DTYPE_I64, ids, shape, 2) ==
        NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "a batch of 3 sequences > the session's max_batch 1"));
  normrt_session_destroy(session);
  normrt_model_destroy(model);
}

static void check_option_sizes(const char* path) {
  normrt_model* model = NULL;
  normrt_model_options unsized = NORMRT_MODEL_OPTIONS_INIT;
  unsized.struct_size = 0;
  CHECK(normrt_model_load(path, &unsized, &model) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "struct_size = 0"));
  CHECK(contains(normrt_last_error(), "NORMRT_MODEL_OPTIONS_INIT"));
  struct {
    normrt_model_options known;
    int future_option;
  } newer;
  const normrt_model_options defaults_v1 = NORMRT_MODEL_OPTIONS_INIT;
  memset(&newer, 0, sizeof newer); /* padding included: no byte may look like an option */
  newer.known = defaults_v1;
  newer.known.struct_size = sizeof newer;
  CHECK(normrt_model_load(path, &newer.known, &model) == NORMRT_OK);
  /* A caller compiled before bf16_activations existed: its shorter struct loads. */
  normrt_model_options older = NORMRT_MODEL_OPTIONS_INIT;
  older.struct_size = offsetof(normrt_model_options, bf16_activations);
  normrt_model* older_model = NULL;
  CHECK(normrt_model_load(path, &older, &older_model) == NORMRT_OK);
  normrt_model_destroy(older_model);
  newer.future_option = 1;
  normrt_model* refused = NULL;
  CHECK(normrt_model_load(path, &newer.known, &refused) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "set fields beyond"));
  CHECK(refused == NULL);
  if (model == NULL) return;
  normrt_session_options session_unsized = NORMRT_SESSION_OPTIONS_INIT;
  session_unsized.struct_size = 3;
  normrt_session* session = NULL;
  CHECK(normrt_session_create(model, &session_unsized, &session) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "NORMRT_SESSION_OPTIONS_INIT"));
  normrt_session_options defaults = NORMRT_SESSION_OPTIONS_INIT;
  CHECK(normrt_session_create(model, &defaults, &session) == NORMRT_OK);
  normrt_session_destroy(session);
  normrt_model_destroy(model);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <fixture directory>\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/c_api.nrmt", argv[1]);
  size_t x_count = 0, expected_count = 0;
  float* x = read_floats(argv[1], "c_api_x.f32", &x_count);
  float* expected = read_floats(argv[1], "c_api_expected.f32", &expected_count);
  if (x == NULL || expected == NULL) {
    fprintf(stderr, "missing fixture files in %s (run make_c_api_fixture)\n", argv[1]);
    return 2;
  }

  /* Load failures name the problem. */
  normrt_model* model = NULL;
  CHECK(normrt_model_load("/nonexistent/model.nrmt", NULL, &model) == NORMRT_LOAD_FAILED);
  CHECK(model == NULL);
  CHECK(contains(normrt_last_error(), "/nonexistent/model.nrmt"));
  CHECK(normrt_model_load(NULL, NULL, &model) == NORMRT_INVALID_ARGUMENT);
  CHECK(contains(normrt_last_error(), "path is null"));
  normrt_model_options bad_isa = NORMRT_MODEL_OPTIONS_INIT;
  bad_isa.isa = "sse9";
  CHECK(normrt_model_load(path, &bad_isa, &model) == NORMRT_LOAD_FAILED);
  CHECK(contains(normrt_last_error(), "sse9"));

  /* The real thing, with fusion off, on, and on with bf16 activations (which
   * leaves this model's f32 matrices exact: the same bound). */
  for (int variant = 0; variant <= 2; ++variant) {
    const int fuse = variant > 0;
    normrt_model_options options = NORMRT_MODEL_OPTIONS_INIT;
    options.fuse = fuse;
    options.fold_norm_affine = fuse;
    options.bf16_activations = variant == 2;
    CHECK(normrt_model_load(path, &options, &model) == NORMRT_OK);
    if (model == NULL) break;
    CHECK(normrt_model_input_count(model) == 1);
    CHECK(normrt_model_output_count(model) == 1);
    CHECK(strcmp(normrt_model_input_name(model, 0), "x") == 0);
    CHECK(strcmp(normrt_model_output_name(model, 0), "out") == 0);
    CHECK(normrt_model_input_name(model, 1) == NULL);

    normrt_session* session = NULL;
    CHECK(normrt_session_create(model, NULL, &session) == NORMRT_OK);
    normrt_model_destroy(model); /* the session keeps the model alive */
    model = NULL;

    CHECK(normrt_session_run(session) == NORMRT_RUN_FAILED);
    CHECK(contains(normrt_last_error(), "'x' is not set"));
    CHECK(normrt_session_set_input(session, "y", x, 4) == NORMRT_INVALID_ARGUMENT);
    CHECK(contains(normrt_last_error(), "no input 'y'"));
    CHECK(normrt_session_set_input(session, "x", x, 7) == NORMRT_INVALID_ARGUMENT);

    CHECK(normrt_session_set_input(session, "x", x, x_count * sizeof(float)) == NORMRT_OK);
    CHECK(normrt_session_run(session) == NORMRT_OK);
    const void* data = NULL;
    size_t shape[NORMRT_MAX_RANK], rank = 0;
    CHECK(normrt_session_output(session, "out", &data, shape, &rank) == NORMRT_OK);
    CHECK(rank == 2);
    CHECK(rank == 2 && shape[0] * shape[1] == expected_count);
    if (data != NULL && rank == 2 && shape[0] * shape[1] == expected_count) {
      const float* out = data;
      double worst = 0, scale = 0;
      for (size_t i = 0; i < expected_count; ++i) {
        worst = fmax(worst, fabs(out[i] - expected[i]));
        scale = fmax(scale, fabs(expected[i]));
      }
      if (worst > 2e-5 * scale)
        fprintf(stderr, "fuse=%d: worst error %g, scale %g\n", fuse, worst, scale);
      CHECK(worst <= 2e-5 * scale);
    }
    CHECK(normrt_session_position(session) == 0); /* stateless model: no position kept */
    normrt_session_reset(session);
    CHECK(normrt_session_position(session) == 0);
    CHECK(normrt_session_output(session, "nope", &data, shape, &rank) == NORMRT_INVALID_ARGUMENT);
    CHECK(normrt_session_output(session, "out", NULL, shape, &rank) == NORMRT_INVALID_ARGUMENT);
    normrt_session_destroy(session);
  }
  check_state_functions(argv[1]);
  check_thread_bound(path);
  check_typed_inputs(argv[1]);
  check_batches(argv[1]);
  check_float_typed_input(path, x, x_count, expected, expected_count);
  check_option_sizes(path);
  CHECK(strcmp(normrt_version(), NORMRT_EXPECTED_VERSION) == 0);
  CHECK(normrt_session_run(NULL) == NORMRT_INVALID_ARGUMENT);
  CHECK(strcmp(normrt_status_name(NORMRT_OUT_OF_MEMORY), "out of memory") == 0);
  normrt_session_destroy(NULL);
  normrt_model_destroy(NULL);

  free(x);
  free(expected);
  printf("test_c_api: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
