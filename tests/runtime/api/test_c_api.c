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
  CHECK(normrt_session_run(NULL) == NORMRT_INVALID_ARGUMENT);
  CHECK(strcmp(normrt_status_name(NORMRT_OUT_OF_MEMORY), "out of memory") == 0);
  normrt_session_destroy(NULL);
  normrt_model_destroy(NULL);

  free(x);
  free(expected);
  printf("test_c_api: %d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
