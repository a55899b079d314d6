#include "models/rnn/rnn_config.h"

#include "models/config_checks.h"

namespace normrt {

Status check_rnn_config(const RnnConfig& config, bool is_lstm) {
  for (Status s :
       {check_config_range("input_size", config.input_size, 1, kMaxRnnSize),
        check_config_range("hidden_size", config.hidden_size, 1, kMaxRnnSize),
        check_config_range("num_layers", config.num_layers, 1, kMaxRnnLayers),
        check_config_range("vocab_size", config.vocab_size, 0, kMaxRnnSize * 16),
        check_config_range("output_size", config.output_size, 0, kMaxRnnSize * 16),
        check_config_range("max_sequence_length", config.max_sequence_length, 1, 1 << 20),
        check_norm_config(config.norm)}) {
    if (!s) return s;
  }
  if (is_lstm && config.norm.enabled && config.placement != "projections_and_cell" &&
      config.placement != "cell_only") {
    return Status::error("config: placement '" + config.placement +
                         "' is not projections_and_cell or cell_only");
  }
  return Status::ok();
}

}  // namespace normrt
