// The registry entry of MPNet encoders: Hugging Face config.json with
// "model_type": "mpnet" (or, without it, "architectures" naming MPNetModel or
// MPNetForMaskedLM), as sentence-transformers' all-mpnet-base-v2 has.
// MPNet is BERT's post-norm encoder (bert_encoder.h) without token types,
// with RoBERTa's positions (transformers' MPNetEmbeddings fixes padding_idx
// at 1, whatever pad_token_id says), its own tensor names (attention.attn.q,
// attention.LayerNorm, ...) under "mpnet." in *For* checkpoints, and a bias
// by relative position added to every layer's attention scores from one
// table of buckets (encoder.relative_attention_bias). transformers computes
// that bias with 32 buckets and a maximum distance of 128 whatever
// relative_attention_num_buckets says (the table's rows): so does the graph.
#include <string>
#include <utility>

#include "models/config_json.h"
#include "models/transformer/encoder_plan.h"

namespace normrt {
namespace {

// MPNetEncoder.compute_position_bias's fixed arguments.
constexpr int64_t kMpnetBuckets = 32;
constexpr int64_t kMpnetMaxDistance = 128;
// MPNetEmbeddings.padding_idx.
constexpr int64_t kMpnetPaddingIdx = 1;

// BERT's module names → MPNet's ("encoder.layer.3.attention.self.query.weight"
// → "encoder.layer.3.attention.attn.q.weight"); the rest keep theirs.
std::string mpnet_name(const std::string& bert_name) {
  static const std::pair<const char*, const char*> kParts[] = {
      {"attention.self.query.", "attention.attn.q."},
      {"attention.self.key.", "attention.attn.k."},
      {"attention.self.value.", "attention.attn.v."},
      {"attention.output.dense.", "attention.attn.o."},
      {"attention.output.LayerNorm.", "attention.LayerNorm."}};
  const std::string layer = "encoder.layer.";
  if (bert_name.rfind(layer, 0) != 0) return bert_name;
  const size_t dot = bert_name.find('.', layer.size());
  if (dot == std::string::npos) return bert_name;
  const std::string rest = bert_name.substr(dot + 1);
  for (const auto& [from, to] : kParts) {
    const std::string f = from;
    if (rest.rfind(f, 0) == 0) return bert_name.substr(0, dot + 1) + to + rest.substr(f.size());
  }
  return bert_name;
}

// config.json of an MPNetModel → BertConfig (no token types, positions past
// padding_idx 1, the relative bias table's rows).
Expected<BertConfig> read_mpnet_config(const JsonConfig& config) {
  // The keys MPNetConfig shares with BertConfig, read as BERT reads them
  // (the defaults agree: max_position_embeddings 512, layer_norm_eps 1e-12).
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_bert_config(config));
  c.relative_attention_buckets = 32;
  NORMRT_RETURN_IF_ERROR(read_int_field(config, "relative_attention_num_buckets",
                                        &c.relative_attention_buckets, false));
  c.token_types = false;
  c.position_padding_idx = kMpnetPaddingIdx;
  c.relative_num_buckets = kMpnetBuckets;
  c.relative_max_distance = kMpnetMaxDistance;
  if (c.relative_attention_buckets < kMpnetBuckets)
    return Status::error(config.description() + ": key 'relative_attention_num_buckets' = " +
                         std::to_string(c.relative_attention_buckets) +
                         ": MPNet's bias uses buckets 0 .. 31, so the table needs at least 32");
  if (Status s = check_bert_config(c); !s)
    return Status::error(config.description() + ": " + s.message());
  return c;
}

bool names_mpnet_class(const JsonConfig& config) {
  return names_class(config, {"MPNetModel", "MPNetForMaskedLM"});
}

Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_mpnet_config(config));
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p,
                          plan_encoder(std::move(c), options, "MPNet", "mpnet_encoder"));
  p.build.names.prefix = "mpnet.";
  p.build.names.rename = mpnet_name;
  return p;
}

}  // namespace

const Architecture& mpnet_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "mpnet_encoder";
    a.match.model_type = {"mpnet"};
    a.match.claims = names_mpnet_class;
    a.match.claims_keys = "'architectures' naming MPNetModel or MPNetForMaskedLM";
    a.read_config = read_encoder<plan>;
    a.build = build_encoder<plan>;
    return a;
  }();
  return entry;
}

}  // namespace normrt
