#pragma once
// Shared by the normrt-serve tests: the models they serve (built at test
// time, no Python), a vocabulary whose ids the tests know by construction,
// and helpers to read JSON replies and compare floats exactly.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"
#include "tools/serve/reply.h"

namespace normrt::testing {

/// <build dir>/serve-scratch-<pid>/<name> (test::scratch_dir: made on first use,
/// removed when the process exits).
std::string scratch_path(const std::string& name);

/// The tiny random-weight BERT (tests/models/transformer/tiny_bert_gelu:
/// V = 64, H = 32, 2 layers) converted by normrt-convert's library with
/// max_sequence_length 16; pooling "mean" (output "embedding" [1, 32]) or
/// "none" ("last_hidden_state" [S, 32]). Converted once per process.
std::string tiny_bert_path(const std::string& pooling);
/// Model::load of it with default options (what normrt-serve does).
std::shared_ptr<const Model> tiny_bert(const std::string& pooling);

/// The committed PyTorch float64 embedding of the fixture's ids.
struct TorchEmbedding {
  std::vector<int32_t> ids;
  std::vector<double> values;  ///< [1, 32]
};
TorchEmbedding tiny_bert_torch_embedding();

/// A 64-token vocab.txt for the tiny BERT: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3,
/// [MASK] 4, the 5, cat 6, sat 7, on 8, mat 9, alpha 10, beta 11, gamma 12,
/// delta 13, ##s 14, "," 15, "." 16, then w0 ... w46 (17 ... 63).
/// `extra` tokens are appended (a vocabulary too large for the model).
std::string tiny_vocab_path(size_t extra = 0);

/// A deliberately slow embedding model, for deadline and cancellation tests
/// on the real binary: ids i32 [S] (S ≤ 64, V = 64, the tiny vocabulary's
/// ids) → Embedding [64, 768] → 12 × (Linear 768 → 768, tanh) → MeanPool →
/// L2Normalize → "embedding" [1, 768]; about 0.9 GFLOP per text of 64 ids.
/// Written (write_model_file) once per process; returns its path.
std::string slow_embedding_model_path();

/// A two-input, two-output graph with weights the tests know:
///   x f32 [S, 5], shift f32 [3]      (max S = 8)
///   y = x · Wᵀ + b + shift  [S, 3]   (output "y")
///   z = relu(y)             [S, 3]   (output "z")
struct LinearModel {
  std::shared_ptr<const Model> model;
  std::vector<float> w;  ///< [3, 5]
  std::vector<float> b;  ///< [3]
};
/// `weight_scale` multiplies W (another model of the same shapes, for reloads).
LinearModel linear_model(float weight_scale = 1.0f);
/// y and z in double for x [S, 5] and shift [3].
std::vector<double> linear_reference_y(const LinearModel& m, const std::vector<float>& x,
                                       const std::vector<float>& shift);

/// A model with state: acc f32 [1, 4] (zero at start); y = x + acc; acc ← y.
/// Input "x" f32 [1, 4], output "y".
std::shared_ptr<const Model> accumulator_model();

/// Parses a reply body (REQUIREs valid JSON).
nlohmann::json parse_body(const std::string& body);
/// Status and error code of a reply, and that the body has the error shape.
void check_error(const serve::Reply& reply, int status, const std::string& code,
                 const std::string& message_part);

/// The floats of a JSON array, each read as double and rounded to f32.
std::vector<float> floats_of(const nlohmann::json& array);
/// Bit-for-bit equality; a failure prints the first differing index and values.
void check_same_floats(const std::vector<float>& got, const float* want, size_t count,
                       const std::string& what);

/// Runs `model` once in a fresh single-threaded Session: the single-threaded
/// answer a served request must equal. `inputs`: name → raw bytes.
std::vector<float> direct_run(const std::shared_ptr<const Model>& model,
                              const std::vector<std::pair<std::string, std::vector<char>>>& inputs,
                              const std::string& output);
std::vector<char> bytes_of(const std::vector<int32_t>& ids);
std::vector<char> bytes_of(const std::vector<float>& values);

}  // namespace normrt::testing
