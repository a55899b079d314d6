// convert() on every committed RNN/MLP fixture (tests/models/rnn/fixtures:
// config JSON + safetensors exported from PyTorch), then the model file
// loaded by normrt::Model::load and run on the fixture's input, against
// PyTorch's outputs with test_models_rnn's tolerances (per output tensor,
// relative to its largest magnitude M):
//   f32 matrices vs PyTorch float32:                      |y − ref| ≤ 1e-4·M
//   bf16 matrices vs PyTorch with bf16-rounded matrices:  |y − ref| ≤ 1e-4·M
// native (pre-packed) and row_major files must give identical outputs: the
// runtime packs a row_major file at load into the same panels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tests/support/compare.h"
#include "tests/tools/convert/convert_test_support.h"
#include "tools/convert/convert.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/convert/readers/source_convert.h"

namespace normrt::testing {
namespace {

const char* const kCases[] = {"lstm_layer_norm",      "lstm_rms_norm",      "lstm_prms_norm",
                              "lstm_draw_layer_norm", "lstm_draw_rms_norm", "lstm_draw_prms_norm",
                              "lstm_plain",           "gru_layer_norm",     "gru_rms_norm",
                              "gru_prms_norm",        "gru_plain",          "mlp_layer_norm",
                              "mlp_rms_norm",         "mlp_prms_norm",      "mlp_none"};

struct Io {
  std::string input_name;
  std::vector<std::byte> input;  // f32 x or i32 ids, as bytes
  std::unique_ptr<SafetensorsFile> file;
};

Io read_io(const std::string& name) {
  auto file = SafetensorsFile::open(rnn_fixture(name, ".io.safetensors"));
  REQUIRE_MESSAGE(file.is_ok(), file.status().message());
  Io io;
  io.file = std::move(file).value();
  const SourceTensor* input = io.file->find("ids");
  io.input_name = input ? "ids" : "x";
  if (!input) input = io.file->find("x");
  REQUIRE(input != nullptr);
  io.input.assign(input->data, input->data + input->size);
  return io;
}

// Converts `name`, runs it and compares every output with `suffix`'s
// reference; returns the outputs (for the layout comparison).
std::vector<std::vector<float>> convert_and_check(const std::string& name, DataType dtype,
                                                  const std::string& layout,
                                                  const std::string& suffix) {
  ConvertOptions options;
  options.config_path = rnn_fixture(name, ".json");
  options.weights_path = rnn_fixture(name, ".safetensors");
  options.output_path = scratch_path(name + "." + layout + ".nrmt");
  options.dtype = dtype;
  options.layout = layout;
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  CHECK(summary.value().file_bytes > 0);
  CHECK(model_metadata(options.output_path, "dtype") == data_type_name(dtype));
  CHECK(model_metadata(options.output_path, "source_weights") == name + ".safetensors");

  const Io io = read_io(name);
  std::vector<std::vector<float>> outputs;
  for (const char* output : {"h_seq", "logits"}) {
    const SourceTensor* reference = io.file->find(output + suffix);
    if (!reference) continue;
    auto want = to_f32(*reference);
    REQUIRE(want.is_ok());
    const std::vector<float> got = run_model_file(options.output_path, io.input_name,
                                                  io.input.data(), io.input.size(), output);
    REQUIRE(got.size() == want.value().size());
    double magnitude = 0;
    for (float v : want.value()) magnitude = std::max(magnitude, std::fabs(double(v)));
    const std::vector<double> reference_values(want.value().begin(), want.value().end());
    const test::Comparison c = test::compare(got, reference_values, 1e-4 * magnitude, 0);
    if (!c.ok()) {  // also a NaN
      FAIL_CHECK(name << " " << data_type_name(dtype) << " " << layout << ": " << output
                      << " against PyTorch, bound 1e-4 * " << magnitude << ": " << c.first_failure);
    }
    outputs.push_back(got);
  }
  REQUIRE(!outputs.empty());
  return outputs;
}

}  // namespace

TEST_CASE(
    "every RNN/MLP fixture converts and matches PyTorch: f32 and bf16, native and row_major") {
  for (const char* name : kCases) {
    CAPTURE(name);
    const auto native = convert_and_check(name, DataType::kF32, "native", "");
    const auto row_major = convert_and_check(name, DataType::kF32, "row_major", "");
    CHECK_MESSAGE(native == row_major, name << ": native and row_major files differ in output");
    const auto bf16_native = convert_and_check(name, DataType::kBF16, "native", ".bf16");
    const auto bf16_rows = convert_and_check(name, DataType::kBF16, "row_major", ".bf16");
    CHECK_MESSAGE(bf16_native == bf16_rows, name << ": bf16 native and row_major differ");
  }
}

TEST_CASE("every panel width converts to a file that runs like the row_major one") {
  const auto reference = convert_and_check("mlp_layer_norm", DataType::kF32, "row_major", "");
  for (const char* layout : {"panels16", "panels32", "panels64"}) {
    CAPTURE(layout);
    CHECK(convert_and_check("mlp_layer_norm", DataType::kF32, layout, "") == reference);
  }
}

TEST_CASE("the summary counts the weights and names dtype and layout") {
  ConvertOptions options;
  options.config_path = rnn_fixture("mlp_none", ".json");
  options.weights_path = rnn_fixture("mlp_none", ".safetensors");
  options.output_path = scratch_path("summary.nrmt");
  options.layout = "row_major";
  auto summary = convert(options);
  REQUIRE_MESSAGE(summary.is_ok(), summary.status().message());
  // mlp_none: D = 5, hidden [9, 7], O = 4: (5·9 + 9) + (9·7 + 7) + (7·4 + 4).
  CHECK(summary.value().tensors == 6);
  CHECK(summary.value().parameters == 5 * 9 + 9 + 9 * 7 + 7 + 7 * 4 + 4);
  CHECK(summary.value().packed_weights == 0);
  const std::string line = summary_line(summary.value());
  CHECK_MESSAGE(line.find("converted mlp: 6 tensors, 156 parameters") == 0, line);
  CHECK_MESSAGE(line.find("f32, row_major") != std::string::npos, line);

  // The three Linear weights (two hidden layers and the output) are packed.
  options.layout = "panels16";
  auto packed = convert(options);
  REQUIRE_MESSAGE(packed.is_ok(), packed.status().message());
  CHECK(packed.value().packed_weights == 3);
  CHECK(packed.value().layout == TensorLayout::kPanels16);
  CHECK(model_metadata(options.output_path, "layout") == "panels16");
}

}  // namespace normrt::testing
