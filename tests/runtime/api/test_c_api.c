/* The C API from a C program: load, inspect, run, read outputs, and every
 * error path an FFI user can hit. Usage: test_c_api <fixture directory>
 * (written by make_c_api_fixture). Prints one line per failed check and a
 * summary; exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "normrt/normrt.h"

static int checks = 0, failures = 0;

#define CHECK(condition)                                                   \
  do {                                                                     \
    ++checks;                                                              \
    if (!(condition)) {                                                    \
      ++failures;                                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, \
              __LINE__, #condition, normrt_last_error());                  \
    }                                                                      \
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
  normrt_model_options bad_isa = {"sse9", 1, 1};
  CHECK(normrt_model_load(path, &bad_isa, &model) == NORMRT_LOAD_FAILED);
  CHECK(contains(normrt_last_error(), "sse9"));

  /* The real thing, with fusion on and off. */
  for (int fuse = 0; fuse <= 1; ++fuse) {
    normrt_model_options options = {NULL, fuse, fuse};
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
      if (worst > 2e-5 * scale) fprintf(stderr, "fuse=%d: worst error %g, scale %g\n", fuse, worst, scale);
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
  CHECK(normrt_session_run(NULL) == NORMRT_INVALID_ARGUMENT);
  CHECK(strcmp(normrt_status_name(NORMRT_OUT_OF_MEMORY), "out of memory") == 0);
  normrt_session_destroy(NULL);
  normrt_model_destroy(NULL);

  free(x);
  free(expected);
  printf("test_c_api: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
