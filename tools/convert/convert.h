#pragma once
// The converter as a library function (normrt-convert is a thin CLI over it):
// config + exported weights → a validated graph → (pre-packed) model file.
//
// Contract: on any error nothing is written and an existing output keeps its
// contents (output_file.h: checked targets, a temporary file renamed into
// place), and the message names the file, tensor or key at fault; weight
// problems come back all at once, listed by the builder.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "runtime/graph/graph.h"

namespace normrt {

struct ConvertOptions {
  /// A Hugging Face or sentence-transformers model folder (model_folder.h):
  /// config_path and weights_path come from it (and must be empty); pooling,
  /// its normalization and the longest sequence come from its
  /// sentence-transformers files unless set here; its tokenizer is stored.
  std::string model_dir;
  std::string config_path;   ///< HF config.json or normrt's RNN/MLP JSON
  std::string weights_path;  ///< .safetensors (or .npz)
  /// A model folder whose tokenizer to store in the file (metadata
  /// "tokenizer"); "" : model_dir's when it has tokenizer files, else none.
  std::string tokenizer_dir;
  std::string output_path;          ///< the .nrmt to write
  DataType dtype = DataType::kF32;  ///< storage of the matrices: kF32 | kBF16 | kInt8
  /// kInt8: glob patterns over weight and node names of matrices that stay
  /// f32 (runtime/passes/quantize_weights_int8.h); empty: every matrix int8.
  /// The command line's default is kDefaultInt8KeepF32 (quantize_weights_int8.h).
  std::vector<std::string> keep_f32;
  /// kInt8: refuse a keep_f32 pattern that names no matrix of the model (a
  /// misspelt pattern would quantize what it meant to keep). The command
  /// line sets it for the patterns a user gives, not for its default list,
  /// which spans several architectures' names.
  bool keep_f32_must_match = false;
  /// kInt8: the storage of the matrices keep_f32 matches, kF32 or kBF16
  /// (--keep-dtype). bf16 halves their bytes and lets a model loaded with bf16
  /// activations run them on the fast bf16 kernel; the int8 matrices are then
  /// quantized from the bf16-rounded values.
  DataType keep_dtype = DataType::kF32;
  /// "native" (this CPU's linear panel width: used from the mapping without
  /// repacking), "row_major" (portable: every CPU packs at load), "panels16",
  /// "panels32", "panels64".
  std::string layout = "native";
  /// BERT, Llama and Nematus checkpoints (the other configs name their norm
  /// with the key "norm"). BERT: "" keeps the checkpoint's LayerNorm;
  /// "rms_norm" / "prms_norm" run the same weights with another norm
  /// (bert_encoder.h). Llama: the same against its RMSNorm. Nematus: the norm
  /// a layer_normalisation checkpoint was trained with.
  std::string norm;
  /// A BERT or Llama --norm other than the checkpoint's makes a different
  /// model; it is refused unless this is set (--allow-norm-change).
  bool allow_norm_change = false;
  double p = 0.0;  ///< prms_norm only
  /// Encoders only: "none" | "cls" | "mean" | "max"; "": model_dir's
  /// sentence-transformers Pooling module, else none.
  std::string pooling;
  /// L2-normalize the pooled row; unset: as model_dir's modules.json says
  /// (a Normalize module), else on.
  std::optional<bool> normalize;
  /// Skip the tensors of the weights file the architecture does not use (a
  /// pretraining head such as BERT's cls.*): listed in the summary. Without
  /// it they are an error that lists them.
  bool ignore_unused = false;
  int64_t max_sequence_length = 0;  ///< 0: the config's (BERT: max_position_embeddings)
  /// Progress lines (stages, sizes) go here; null: silent.
  std::FILE* progress = nullptr;
};

struct ConvertSummary {
  std::string architecture;     ///< the registry name: "bert_encoder", "lstm", ..., "rnnsearch"
  std::string norm;             ///< the norm written (metadata "norm"): "layer_norm", ..., "none"
  std::string checkpoint_norm;  ///< the checkpoint's; differs from `norm` after --norm
  size_t tensors = 0;           ///< weights in the file
  uint64_t parameters = 0;      ///< their elements
  uint64_t file_bytes = 0;
  DataType dtype = DataType::kF32;
  TensorLayout layout = TensorLayout::kRowMajor;
  size_t packed_weights = 0;             ///< Linear weights stored in panels
  size_t int8_weights = 0;               ///< --dtype int8: matrices quantized
  size_t kept_f32 = 0;                   ///< --dtype int8: matrices a keep pattern left unquantized
  DataType keep_dtype = DataType::kF32;  ///< --dtype int8: their storage (--keep-dtype)
  std::vector<std::string> files;        ///< written: output_path, or RNNSearch's pair
  /// Tensors of the weights file the graph does not use, skipped: the ones
  /// the architecture knows (BERT's pooler) and, with ignore_unused, foreign ones.
  std::vector<std::string> skipped_tensors;
  /// What --model's folder decided ("pooling mean (1_Pooling/config.json)").
  std::vector<std::string> folder_settings;
  std::string tokenizer;  ///< the stored tokenizer's summary line; "" if none
  /// Problems that did not stop the conversion (a folder not flushed).
  std::vector<std::string> warnings;
  double seconds = 0;
};

/// Converts. A Nematus RNNSearch checkpoint gives two files, the encoder and
/// the decoder step (rnnsearch_output_paths()); both or neither are written.
Expected<ConvertSummary> convert(const ConvertOptions& options);

/// RNNSearch's pair for --output `path`: "<base>.encoder.nrmt" and
/// "<base>.decoder.nrmt", base being `path` without a trailing ".nrmt".
struct RnnSearchOutputs {
  std::string encoder, decoder;
};
RnnSearchOutputs rnnsearch_output_paths(const std::string& path);

/// "converted lstm: 23 tensors, 1,234 parameters, 8.1 kB, norm layer_norm, f32, panels16
/// (8 packed), 0.01 s"; after a norm change "norm rms_norm (changed from the checkpoint's
/// layer_norm)".
std::string summary_line(const ConvertSummary& summary);

/// "native", "row_major", "panels16", ... → the layout to store (native:
/// this CPU's); an error naming the value otherwise.
Expected<TensorLayout> resolve_layout(const std::string& name);

}  // namespace normrt
