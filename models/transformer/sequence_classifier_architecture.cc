// The registry entries of the sequence classifiers (cross-encoder
// rerankers): a config.json whose model_type is BERT's or RoBERTa's and
// whose "architectures" names BertForSequenceClassification,
// RobertaForSequenceClassification or XLMRobertaForSequenceClassification.
// The encoder is the family's (bert_encoder.h); the head is
// sequence_classifier.h's, with num_labels from id2label.
#include <utility>

#include "models/transformer/encoder_plan.h"

namespace normrt {

namespace {

const std::vector<std::string> kBertClasses = {"BertForSequenceClassification"};
const std::vector<std::string> kRobertaClasses = {"RobertaForSequenceClassification",
                                                  "XLMRobertaForSequenceClassification"};

bool names_bert_classifier(const JsonConfig& config) { return names_class(config, kBertClasses); }
bool names_roberta_classifier(const JsonConfig& config) {
  return names_class(config, kRobertaClasses);
}

template <bool kRoberta>
Expected<EncoderPlan> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_ASSIGN_OR_RETURN(BertConfig c, read_bert_config(config));
  if (kRoberta) {
    NORMRT_ASSIGN_OR_RETURN(c.position_padding_idx, config.optional_int("pad_token_id", 1));
    if (Status s = check_bert_config(c); !s)
      return Status::error(config.description() + ": key 'pad_token_id': " + s.message());
  }
  const char* name = kRoberta ? "roberta_sequence_classifier" : "bert_sequence_classifier";
  NORMRT_ASSIGN_OR_RETURN(EncoderPlan p,
                          plan_encoder(std::move(c), options, kRoberta ? "RoBERTa" : "BERT", name));
  p.build.names.prefix = kRoberta ? "roberta." : "bert.";
  p.build.classifier.kind = kRoberta ? "roberta_head" : "bert_pooler";
  NORMRT_ASSIGN_OR_RETURN(p.build.classifier.num_labels, read_num_labels(config));
  // A BERT pair is [CLS] A [SEP] B [SEP] with B's tokens of type 1: the
  // scores need the segment ids (RoBERTa's single type needs none).
  p.build.token_type_ids = p.config.type_vocab_size > 1;
  if (Status s = check_sequence_classifier(p.build.classifier, p.build.pooling); !s)
    return Status::error(config.description() + ": " + s.message());
  return p;
}

}  // namespace

const Architecture& bert_sequence_classifier_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "bert_sequence_classifier";
    a.match.model_type = {"bert"};
    a.match.model_type_requires = names_bert_classifier;
    a.match.claims = names_bert_classifier;
    a.match.claims_keys = "'architectures' naming BertForSequenceClassification";
    a.read_config = read_encoder<plan<false>>;
    a.build = build_encoder<plan<false>>;
    return a;
  }();
  return entry;
}

const Architecture& roberta_sequence_classifier_architecture() {
  static const Architecture entry = [] {
    Architecture a;
    a.name = "roberta_sequence_classifier";
    a.match.model_type = {"roberta", "xlm-roberta"};
    a.match.model_type_requires = names_roberta_classifier;
    a.match.claims = names_roberta_classifier;
    a.match.claims_keys =
        "'architectures' naming RobertaForSequenceClassification or "
        "XLMRobertaForSequenceClassification";
    a.read_config = read_encoder<plan<true>>;
    a.build = build_encoder<plan<true>>;
    return a;
  }();
  return entry;
}

}  // namespace normrt
