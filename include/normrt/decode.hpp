#pragma once
/// Decoding loops over a normrt::Session: greedy and beam search over any
/// step model that takes token ids and gives logits (docs/decoding.md).
///
///   DecodeOptions options;
///   options.token_input = "tgt_ids";       // the i32 input fed with tokens
///   options.prefix = {bos};                 // fed before the first step
///   options.eos_id = eos;
///   options.max_length = 50;                // generated tokens, EOS included
///   options.beam_size = 5;
///   options.n_best = 5;
///   auto decoder = Decoder::create(model, options);   // K sessions, all buffers
///   auto best = decoder.value()->decode([&](Session& s) {
///     return s.set_input("src_ids", src.data(), src.size() * 4);   // stays bound
///   });
///
/// The model keeps its history in session state (a KV cache, an RNN state):
/// every run feeds the newest token of one hypothesis and reads its logits.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "normrt/normrt.hpp"

namespace normrt {

struct DecodeOptions {
  /// The graph input fed with token ids: i32, one token per step (shape [S]
  /// or [1], or any shape of one element once S = 1). "input_ids" for the
  /// Llama builder, "tgt_ids" for torch_transformer, "prev_id" for RNNSearch.
  std::string token_input = "ids";
  /// The graph output read after each run: f32 [S, V] or [1, V]; the last
  /// row holds the next token's logits.
  std::string logits_output = "logits";
  /// Tokens fed before the first step (decode(prefix, ...) overrides it):
  /// a prompt, a BOS, or Nematus' -1 ("zero embedding"). At least one token;
  /// any i32 value is fed as is (the model's embedding checks its range).
  /// An input with S takes the prefix in one run, one without S a run per token.
  std::vector<int32_t> prefix;
  /// A hypothesis whose newest token is eos_id is finished. < 0: no EOS
  /// (every hypothesis runs to max_length).
  int32_t eos_id = -1;
  /// Generated tokens per hypothesis at most (the prefix not counted, EOS
  /// counted). A model with a KV cache of C rows needs
  /// prefix + max_length − 1 ≤ C (Session::run reports an overflow).
  size_t max_length = 0;
  /// K: 1 is greedy decoding; K > 1 beam search.
  size_t beam_size = 1;
  /// Hypotheses returned, best first: 1 ≤ n_best ≤ beam_size.
  size_t n_best = 1;
  /// Final ranking by log_prob / length^alpha (length: generated tokens
  /// incl. EOS). 0: raw sums (Nematus default); 1: Nematus' --normalize.
  double length_alpha = 0;
};

/// One decoded hypothesis.
struct Hypothesis {
  std::vector<int32_t> ids;  ///< generated tokens (no prefix), ending in EOS if finished
  double score = 0;          ///< log_prob / ids.size()^length_alpha: the ranking key
  double log_prob = 0;       ///< Σ log softmax(logits)[id] over ids
  bool finished = false;     ///< ended in EOS (false: cut at max_length)
};

/// What the last decode() did.
struct DecodeStats {
  size_t steps = 0;  ///< selection rounds (tokens appended to the longest hypothesis)
  size_t runs = 0;   ///< Session::run calls, the prefix's included
  size_t forks = 0;  ///< copy_state_from calls (hypotheses that shared a parent)
};

/// Greedy and beam search over one shared Model. A Decoder owns K sessions
/// and every buffer of the search: decode() allocates nothing per step
/// (only its result). Use one Decoder per thread; the Model may be shared.
class NORMRT_API Decoder {
 public:
  /// Prepares once per session of a decode(): called after the session is
  /// reset and before the prefix is fed. Binds every input other than the
  /// token input (with memory that stays valid until decode() returns, e.g.
  /// an encoder's outputs) and may seed state with set_state(). Its state
  /// matters for the first hypothesis only: the others start as copies.
  using Prepare = std::function<Status(Session&)>;

  ~Decoder();

  /// Checks the options against the model (names, dtypes, shapes, sizes;
  /// the model must keep state) and creates beam_size sessions.
  static Expected<std::unique_ptr<Decoder>> create(std::shared_ptr<const Model> model,
                                                   DecodeOptions options,
                                                   const SessionOptions& session_options = {});

  /// Decodes after options().prefix; returns min(n_best, hypotheses) hypotheses,
  /// best first (docs/decoding.md: selection, ties, stopping).
  Expected<std::vector<Hypothesis>> decode(const Prepare& prepare = {});
  /// Decodes after `prefix` instead of options().prefix.
  Expected<std::vector<Hypothesis>> decode(const std::vector<int32_t>& prefix,
                                           const Prepare& prepare = {});

  const DecodeOptions& options() const;
  /// Counts of the last decode() (also of a failed one, up to the failure).
  const DecodeStats& stats() const;
  /// V: the logits' last dimension.
  size_t vocab_size() const;

  struct Impl;  // runtime/decode/decoder_impl.h

 private:
  explicit Decoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace normrt
