#pragma once
// The model registry: one entry per architecture normrt builds, saying how
// its config is recognised and read, how its graph(s) are built, and which
// input and output a decoder uses. normrt-convert is a loop over it: detect
// the architecture of a config, build, write. Adding an architecture is its
// builder, its config reader and entry (models/<family>/*_architecture.cc),
// and one line in registry.cc (docs/models.md).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "formats/json/json_config.h"
#include "models/pooling.h"
#include "models/weight_source.h"
#include "runtime/graph/graph.h"

namespace normrt {

/// What the user decides beyond the config (normrt-convert's options). An
/// option that does not apply to an architecture is an error naming it.
struct ModelBuildOptions {
  DataType dtype = DataType::kF32;  ///< storage of the matrices: kF32 | kBF16
  /// "": the checkpoint's norm. Else layer_norm | rms_norm | prms_norm: run
  /// the weights with it (BERT, Llama: a different model, allowed only with
  /// allow_norm_change); Nematus: the norm the checkpoint was trained with.
  std::string norm;
  bool allow_norm_change = false;
  double p = 0.0;                   ///< prms_norm only
  PoolingOptions pooling;           ///< encoders only: the sentence-embedding head
  int64_t max_sequence_length = 0;  ///< 0: the config's
  /// The weights file's path: a default that follows its format (a .npz
  /// holds Theano-named weights).
  std::string weights_file;
};

/// One graph of a model: RNNSearch builds two (roles "encoder", "decoder"),
/// every other architecture one (role "").
struct BuiltGraph {
  std::string role;
  Graph graph;
};

struct BuiltModel {
  std::vector<BuiltGraph> graphs;
  /// The norm the checkpoint was trained with when its config does not say
  /// (BERT: layer_norm, Llama: rms_norm); "" when the graph's "norm"
  /// metadata is the checkpoint's.
  std::string checkpoint_norm;
};

/// How a config names an architecture.
struct ConfigMatch {
  /// Values of normrt's "architecture" key ("lstm", "ln_lstm"); the first is
  /// the name listed in messages, the others are aliases.
  std::vector<std::string> architecture;
  /// Values of Hugging Face's "model_type" key ("bert").
  std::vector<std::string> model_type;
  /// With a matching model_type, the entry applies only if this accepts
  /// the config (a head that "architectures" names); such entries come
  /// before the family's plain entry in architectures().
  bool (*model_type_requires)(const JsonConfig& config) = nullptr;
  /// model_type values that name a relative this builder cannot build, each
  /// with the reason ("mistral", "is not supported yet: ...").
  std::vector<std::pair<std::string, std::string>> refused_model_type;
  /// For a config with neither key: true if it is this architecture's (a
  /// Nematus model.npz.json, a config.json whose "architectures" lists a
  /// BertModel), and which keys say so, for the message when none claims it.
  bool (*claims)(const JsonConfig& config) = nullptr;
  const char* claims_keys = nullptr;
};

/// The graph input a decoder feeds with token ids and the output whose last
/// row holds the next token's logits. Written as the metadata
/// "decode_token_input" / "decode_logits_output" of every graph that has
/// both (normrt::Decoder reads them); null for architectures that do not
/// generate.
struct DecodeNames {
  const char* token_input = nullptr;
  const char* logits_output = nullptr;
};

struct Architecture {
  /// "bert_encoder": the graph's "architecture" metadata and the converter's summary.
  const char* name = nullptr;
  ConfigMatch match;
  /// Reads and checks the config against the options (no weights): every
  /// error names the file and the key, or the option.
  Status (*read_config)(const JsonConfig& config, const ModelBuildOptions& options) = nullptr;
  /// Reads the config, checks the options, builds and checks the graph(s).
  Expected<BuiltModel> (*build)(const JsonConfig& config, const WeightSource& weights,
                                const ModelBuildOptions& options) = nullptr;
  /// The roles of the graphs build() gives, in order: {""} for one graph
  /// (one file), {"encoder", "decoder"} for RNNSearch (a file each).
  std::vector<std::string> graph_roles = {""};
  DecodeNames decode;
};

/// Every architecture, in the order detection asks them.
const std::vector<const Architecture*>& architectures();

/// The architecture of `name`, or null.
const Architecture* find_architecture(std::string_view name);

/// The architecture `config` describes: by its "architecture" key, else its
/// "model_type", else the first whose claims() accepts it. An error naming
/// the value (and the known ones), or the keys that were looked for.
Expected<const Architecture*> detect_architecture(const JsonConfig& config);

/// architecture.build(), then the decode metadata on each graph that has the
/// token input and the logits output.
Expected<BuiltModel> build_model(const Architecture& architecture, const JsonConfig& config,
                                 const WeightSource& weights, const ModelBuildOptions& options);

}  // namespace normrt
