// The registry entry of RoBERTa and XLM-RoBERTa encoders: Hugging Face
// config.json with "model_type" "roberta" or "xlm-roberta" (or, without it,
// "architectures" naming RobertaModel / XLMRobertaModel). The graph is
// BERT's (bert_encoder.h) with positions counted from the ids past
// pad_token_id, and the tensors under "roberta." in *For* checkpoints.
#include <utility>

#include "models/transformer/encoder_plan.h"

namespace normrt {
namespace {

// config.json of a RobertaModel / XLMRobertaModel → BertConfig with
// position_padding_idx = pad_token_id (HF's default 1).
Expected<BertConfig> read_roberta_config(const JsonConfig& config) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_bert_config(config));
  NORMRT_ASSIGN_OR_RETURN(c.position_padding_idx, config.optional_int("pad_token_id", 1));
  if (Status s = check_bert_config(c); !s)
    return Status::error(config.description() + ": key 'pad_token_id': " + s.message());
  return c;
}

bool names_roberta_class(const JsonConfig& config) {
  return names_class(config, {"RobertaModel", "XLMRobertaModel"});
}

Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_roberta_config(config));
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p,
                          plan_encoder(std::move(c), options, "RoBERTa", "roberta_encoder"));
  p.build.names.prefix = "roberta.";
  return p;
}

}  // namespace

const Architecture& roberta_encoder_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "roberta_encoder";
    a.match.model_type = {"roberta", "xlm-roberta"};
    a.match.claims = names_roberta_class;
    a.match.claims_keys = "'architectures' naming RobertaModel or XLMRobertaModel";
    a.read_config = read_encoder<plan>;
    a.build = build_encoder<plan>;
    return a;
  }();
  return entry;
}

}  // namespace normrt
