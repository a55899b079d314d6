/* The installed C API, linked from C: load the model, print its inputs.
 * Usage: consumer_c <model> */
#include <normrt/normrt.h>
#include <stdio.h>

int main(int argc, char** argv) {
  normrt_model* model;
  if (argc != 2) return 2;
  if (normrt_model_load(argv[1], NULL, &model) != NORMRT_OK) {
    fprintf(stderr, "%s\n", normrt_last_error());
    return 1;
  }
  printf("consumer_c: input '%s', output '%s'\n", normrt_model_input_name(model, 0),
         normrt_model_output_name(model, 0));
  normrt_model_destroy(model);
  return 0;
}
