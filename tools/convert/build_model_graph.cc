#include "tools/convert/build_model_graph.h"

#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_builders.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/llama_decoder.h"
#include "tools/convert/readers/npz_file.h"
#include "tools/convert/readers/safetensors_file.h"

namespace normrt {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Expected<BertBuildOptions> bert_options(const ConvertOptions& options) {
  BertBuildOptions b;
  if (!options.norm.empty()) b.norm = options.norm;
  if (b.norm != "layer_norm" && b.norm != "rms_norm" && b.norm != "prms_norm")
    return Status::error("--norm " + options.norm +
                         ": expected one of layer_norm, rms_norm, prms_norm");
  if (b.norm == "prms_norm" && !(options.p > 0 && options.p <= 1))
    return Status::error("--norm prms_norm needs --p in (0, 1], found " +
                         std::to_string(options.p));
  b.p = options.p;
  if (options.pooling == "mean")
    b.pooling = BertPooling::kMeanNormalized;
  else if (options.pooling != "none")
    return Status::error("--pooling " + options.pooling + ": expected none or mean");
  b.max_sequence_length = options.max_sequence_length;
  return b;
}

// --norm `norm` on a checkpoint trained with `trained`: a different model,
// converted only when the user says so.
Status check_norm_change(const ConvertOptions& options, const std::string& norm,
                         const char* trained, const char* family) {
  if (norm == trained || options.allow_norm_change) return Status::ok();
  return Status::error("--norm " + norm + ": the " + family + " checkpoint was trained with " +
                       trained + "; running its weights with " + norm +
                       " makes a different model, whose outputs are not the checkpoint's. "
                       "Pass --allow-norm-change to convert it anyway");
}

// --p against the hidden size, over which every norm of a Transformer runs.
Status check_p_option(const std::string& norm, double p, int64_t hidden_size) {
  NormConfig partial;
  partial.kind = norm;
  partial.p = p;
  Status s = check_partial_width(partial, hidden_size, "hidden_size");
  return s ? s : Status::error("--p" + s.message());
}

// RNN/MLP configs carry their own norm; the BERT-only options are refused
// rather than ignored.
Status refuse_bert_options(const ConvertOptions& options, ModelFamily family) {
  const std::string family_name = model_family_name(family);
  if (!options.norm.empty())
    return Status::error("--norm applies to BERT encoders only; the " + family_name +
                         " config sets its norm with the key 'norm'");
  if (options.pooling != "none")
    return Status::error("--pooling applies to BERT encoders only, not to " + family_name);
  return Status::ok();
}

}  // namespace

Expected<Graph> build_model_graph(ModelFamily family, const JsonConfig& config,
                                  const WeightSource& weights, const ConvertOptions& options) {
  if (family == ModelFamily::kBertEncoder) {
    Expected<BertConfig> bert = read_bert_config(config);
    if (!bert) return bert.status();
    Expected<BertBuildOptions> build = bert_options(options);
    if (!build) return build.status();
    if (Status s = check_norm_change(options, build.value().norm, "layer_norm", "BERT"); !s)
      return s;
    if (Status s = check_p_option(build.value().norm, options.p, bert.value().hidden_size); !s)
      return s;
    return build_bert_encoder(bert.value(), weights, options.dtype, build.value());
  }
  if (family == ModelFamily::kLlamaDecoder) {
    Expected<LlamaConfig> llama = read_llama_config(config);
    if (!llama) return llama.status();
    LlamaBuildOptions build;
    if (!options.norm.empty()) build.norm = options.norm;
    if (build.norm != "rms_norm" && build.norm != "layer_norm" && build.norm != "prms_norm")
      return Status::error("--norm " + options.norm +
                           ": expected one of rms_norm, layer_norm, prms_norm");
    build.p = options.p;
    if (Status s = check_norm_change(options, build.norm, "rms_norm", "Llama"); !s) return s;
    if (Status s = check_p_option(build.norm, options.p, llama.value().hidden_size); !s) return s;
    if (options.pooling != "none")
      return Status::error("--pooling applies to BERT encoders only, not to llama_decoder");
    build.max_sequence_length = options.max_sequence_length;
    return build_llama_decoder(llama.value(), weights, options.dtype, build);
  }
  if (family == ModelFamily::kTorchTransformer) {
    if (Status s = refuse_bert_options(options, family); !s) return s;
    Expected<TorchTransformerJson> json = read_torch_transformer_config(config);
    if (!json) return json.status();
    TorchTransformerBuildOptions build = json.value().build;
    if (options.max_sequence_length > 0) build.max_target_length = options.max_sequence_length;
    return build_torch_transformer(json.value().config, weights, options.dtype, build);
  }
  if (family == ModelFamily::kRnnSearch)
    return Status::error("rnnsearch builds two graphs: build_rnnsearch_graphs() (a converter bug)");
  if (Status s = refuse_bert_options(options, family); !s) return s;
  if (family == ModelFamily::kMlp) {
    Expected<MlpConfig> mlp = read_mlp_config(config);
    if (!mlp) return mlp.status();
    MlpConfig c = mlp.value();
    if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
    return build_ln_mlp(c, weights, options.dtype);
  }
  const bool lstm = family == ModelFamily::kLstm;
  Expected<RnnConfig> rnn = read_rnn_config(config, lstm);
  if (!rnn) return rnn.status();
  RnnConfig c = rnn.value();
  if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
  return lstm ? build_ln_lstm(c, weights, options.dtype) : build_ln_gru(c, weights, options.dtype);
}

Expected<RnnSearchGraphs> build_rnnsearch_graphs(const JsonConfig& config,
                                                 const WeightSource& weights,
                                                 const ConvertOptions& options) {
  if (options.pooling != "none")
    return Status::error("--pooling applies to BERT encoders only, not to rnnsearch");
  Expected<RnnSearchConfig> c = read_rnnsearch_config(config, options.norm, options.p);
  if (!c) return c.status();
  RnnSearchBuildOptions build;
  if (options.max_sequence_length > 0) build.max_source_length = options.max_sequence_length;
  return build_rnnsearch(c.value(), weights, options.dtype, build);
}

const char* checkpoint_norm(ModelFamily family) {
  if (family == ModelFamily::kBertEncoder) return "layer_norm";
  if (family == ModelFamily::kLlamaDecoder) return "rms_norm";
  return nullptr;
}

Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path) {
  if (ends_with(path, ".safetensors")) {
    auto file = SafetensorsFile::open(path);
    if (!file) return file.status();
    return std::unique_ptr<WeightSource>(std::move(file).value());
  }
  if (ends_with(path, ".npz")) {
    auto file = NpzFile::open(path);
    if (!file) return file.status();
    return std::unique_ptr<WeightSource>(std::move(file).value());
  }
  return Status::error(path + ": unknown weights format, expected a .safetensors or .npz file");
}

}  // namespace normrt
