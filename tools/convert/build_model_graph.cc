#include "tools/convert/build_model_graph.h"

#include "models/mlp/mlp_builder.h"
#include "models/rnn/rnn_builders.h"
#include "models/transformer/bert_encoder.h"
#include "models/transformer/llama_decoder.h"
#include "tools/convert/readers/npz_file.h"
#include "tools/convert/readers/safetensors_file.h"
#include "tools/convert/seed_model_configs.h"

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
    NORMRT_ASSIGN_OR_RETURN(BertConfig bert, read_bert_config(config));
    NORMRT_ASSIGN_OR_RETURN(BertBuildOptions build, bert_options(options));
    NORMRT_RETURN_IF_ERROR(check_norm_change(options, build.norm, "layer_norm", "BERT"));
    NORMRT_RETURN_IF_ERROR(check_p_option(build.norm, options.p, bert.hidden_size));
    return build_bert_encoder(bert, weights, options.dtype, build);
  }
  if (family == ModelFamily::kLlamaDecoder) {
    NORMRT_ASSIGN_OR_RETURN(LlamaConfig llama, read_llama_config(config));
    LlamaBuildOptions build;
    if (!options.norm.empty()) build.norm = options.norm;
    if (build.norm != "rms_norm" && build.norm != "layer_norm" && build.norm != "prms_norm")
      return Status::error("--norm " + options.norm +
                           ": expected one of rms_norm, layer_norm, prms_norm");
    build.p = options.p;
    NORMRT_RETURN_IF_ERROR(check_norm_change(options, build.norm, "rms_norm", "Llama"));
    NORMRT_RETURN_IF_ERROR(check_p_option(build.norm, options.p, llama.hidden_size));
    if (options.pooling != "none")
      return Status::error("--pooling applies to BERT encoders only, not to llama_decoder");
    build.max_sequence_length = options.max_sequence_length;
    return build_llama_decoder(llama, weights, options.dtype, build);
  }
  if (family == ModelFamily::kTorchTransformer) {
    NORMRT_RETURN_IF_ERROR(refuse_bert_options(options, family));
    NORMRT_ASSIGN_OR_RETURN(TorchTransformerJson json, read_torch_transformer_config(config));
    TorchTransformerBuildOptions build = json.build;
    if (options.max_sequence_length > 0) build.max_target_length = options.max_sequence_length;
    return build_torch_transformer(json.config, weights, options.dtype, build);
  }
  if (family == ModelFamily::kConvPoolCnn) {
    NORMRT_RETURN_IF_ERROR(refuse_bert_options(options, family));
    if (options.max_sequence_length > 0) {
      return Status::error("--max-seq does not apply to convpool_cnn_c: its batch is the config's "
                           "key 'batch'");
    }
    if (options.dtype != DataType::kF32) {
      return Status::error("--dtype bf16: convpool_cnn_c's convolutions run in f32 only");
    }
    NORMRT_ASSIGN_OR_RETURN(ConvPoolCnnConfig cnn, read_convpool_cnn_config(config));
    return build_convpool_cnn_c(cnn, weights);
  }
  if (family == ModelFamily::kAttentiveReader || family == ModelFamily::kOrderEmbeddings ||
      family == ModelFamily::kHandwriting)
    return build_seed_model_graph(model_family_name(family), config, weights, options);
  if (family == ModelFamily::kRnnSearch)
    return Status::error("rnnsearch builds two graphs: build_rnnsearch_graphs() (a converter bug)");
  NORMRT_RETURN_IF_ERROR(refuse_bert_options(options, family));
  if (family == ModelFamily::kMlp) {
    NORMRT_ASSIGN_OR_RETURN(MlpConfig c, read_mlp_config(config));
    if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
    return build_ln_mlp(c, weights, options.dtype);
  }
  const bool lstm = family == ModelFamily::kLstm;
  NORMRT_ASSIGN_OR_RETURN(RnnConfig c, read_rnn_config(config, lstm));
  if (options.max_sequence_length > 0) c.max_sequence_length = options.max_sequence_length;
  return lstm ? build_ln_lstm(c, weights, options.dtype) : build_ln_gru(c, weights, options.dtype);
}

Expected<RnnSearchGraphs> build_rnnsearch_graphs(const JsonConfig& config,
                                                 const WeightSource& weights,
                                                 const ConvertOptions& options) {
  if (options.pooling != "none")
    return Status::error("--pooling applies to BERT encoders only, not to rnnsearch");
  NORMRT_ASSIGN_OR_RETURN(RnnSearchConfig c,
                          read_rnnsearch_config(config, options.norm, options.p));
  RnnSearchBuildOptions build;
  if (options.max_sequence_length > 0) build.max_source_length = options.max_sequence_length;
  return build_rnnsearch(c, weights, options.dtype, build);
}

const char* checkpoint_norm(ModelFamily family) {
  if (family == ModelFamily::kBertEncoder) return "layer_norm";
  if (family == ModelFamily::kLlamaDecoder) return "rms_norm";
  return nullptr;
}

Expected<std::unique_ptr<WeightSource>> open_weights(const std::string& path) {
  if (ends_with(path, ".safetensors")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, SafetensorsFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  if (ends_with(path, ".npz")) {
    NORMRT_ASSIGN_OR_RETURN(auto file, NpzFile::open(path));
    return std::unique_ptr<WeightSource>(std::move(file));
  }
  return Status::error(path + ": unknown weights format, expected a .safetensors or .npz file");
}

}  // namespace normrt
