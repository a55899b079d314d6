// The registry entry of the bidirectional attentive reader
// (attentive_reader.h): normrt's JSON config ("architecture":
// "attentive_reader", docs/attentive_reader.md); the norm is required;
// --max-seq sets the longest document.
#include <string>

#include "models/architecture_support.h"
#include "models/config_json.h"
#include "models/reader/attentive_reader.h"
#include "models/registry.h"
#include "models/seed_config_support.h"

namespace normrt {
namespace {

constexpr const char* kName = "attentive_reader";

Expected<AttentiveReaderConfig> plan(const JsonConfig& config, const ModelBuildOptions& options) {
  NORMRT_RETURN_IF_ERROR(refuse_seed_options(options, kName));
  NORMRT_RETURN_IF_ERROR(check_seed_config_keys(
      config,
      {"vocab_size", "word_size", "hidden_size", "answer_size", "num_answers", "question_length",
       "max_document_length", "use_dq_sims", "use_desc_skip_c_g", "learn_h0", "weight_format"},
      "docs/attentive_reader.md"));
  AttentiveReaderConfig c;
  for (auto [key, field] : {std::pair<const char*, int64_t*>{"vocab_size", &c.vocab_size},
                            {"word_size", &c.word_size},
                            {"hidden_size", &c.hidden_size},
                            {"answer_size", &c.answer_size},
                            {"num_answers", &c.num_answers},
                            {"question_length", &c.question_length}})
    NORMRT_RETURN_IF_ERROR(read_int_field(config, key, field, true));
  NORMRT_RETURN_IF_ERROR(
      read_int_field(config, "max_document_length", &c.max_document_length, false));
  NORMRT_RETURN_IF_ERROR(read_bool_fields(config, {{"use_dq_sims", &c.use_dq_sims},
                                                   {"use_desc_skip_c_g", &c.use_desc_skip_c_g},
                                                   {"learn_h0", &c.learn_h0}}));
  NORMRT_ASSIGN_OR_RETURN(c.weight_format, seed_weight_format(config, options.weights_file));
  NORMRT_ASSIGN_OR_RETURN(c.norm, read_norm_config(config));
  if (options.max_sequence_length > 0) c.max_document_length = options.max_sequence_length;
  NORMRT_RETURN_IF_ERROR(with_config_file(config, check_attentive_reader_config(c)));
  return c;
}

using Entry = PlannedGraph<AttentiveReaderConfig, plan, build_attentive_reader>;

}  // namespace

const Architecture& attentive_reader_architecture() {
  static const Architecture entry = Entry::entry(kName);
  return entry;
}

}  // namespace normrt
