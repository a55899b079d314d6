#pragma once
// The stateful step models the decoding tests run, each with how the Decoder
// is set up for it and an independent way to get the next token's logits:
//   llama:    the tiny Llama decoder (KV caches), token input "input_ids";
//   seq2seq:  nn.Transformer built whole with a KV cache, "tgt_ids", the
//             source bound on "src_ids" through prepare;
//   parts:    the same as an encoder run once and a decoder step whose
//             cross-attention keys and values are bound through prepare
//             (the shape of an RNNSearch decoder);
//   toy_rnn:  a tanh RNN built here, token input "prev_id" [1] without S,
//             its state seeded with set_state and a "context" input bound
//             through prepare.
// The reference (next_logits) never copies state: it runs a fresh session
// from scratch over the whole history (teacher forcing).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "normrt/decode.hpp"

namespace normrt::test {

struct DecodeCase {
  std::string name;
  std::shared_ptr<const Model> model;  ///< what the Decoder runs
  DecodeOptions options;               ///< token_input, logits_output, prefix set
  Decoder::Prepare prepare;            ///< empty if the model needs none
  /// Logits [V] of the token after prefix + `generated`, from a fresh session.
  std::function<std::vector<float>(const std::vector<int32_t>& generated)> next_logits;
  /// An external greedy continuation (Hugging Face / PyTorch), if any.
  std::vector<int32_t> external_greedy;
  std::shared_ptr<void> owned;  ///< what the closures point into
};

/// `prompt` empty: the fixture's prompt.
DecodeCase llama_case(const std::vector<int32_t>& prompt = {});
DecodeCase seq2seq_case(const std::string& fixture);
DecodeCase seq2seq_parts_case(const std::string& fixture);
DecodeCase toy_rnn_case(size_t vocab, size_t dim, uint32_t seed);

/// All of them (seq2seq on its first fixture).
std::vector<DecodeCase> all_decode_cases();

}  // namespace normrt::test
