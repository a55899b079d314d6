// Decoder::create(): every option checked against the model before any
// session exists, then K sessions and the search's buffers, sized once.
#include <cmath>
#include <string>
#include <utility>

#include "base/status.h"
#include "runtime/decode/decoder_impl.h"

namespace normrt {
namespace {

// Bounds that keep the preallocated search state small and its indices in
// 32 bits: K sessions, a tree of max_length·K nodes.
constexpr size_t kMaxBeamSize = 1024;
constexpr size_t kMaxTreeNodes = size_t{1} << 24;  // 128 MiB of tree

Status error(const std::string& message) { return Status::error("Decoder: " + message); }

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    text += (i ? ", " : "") + (shape[i] < 0 ? std::string("S") : std::to_string(shape[i]));
  }
  return text + "]";
}

const TensorInfo* find(const std::vector<TensorInfo>& infos, const std::string& name,
                       std::string* known) {
  for (const TensorInfo& info : infos) {
    if (info.name == name) return &info;
    *known += (known->empty() ? "" : ", ") + info.name;
  }
  return nullptr;
}

// The token input: i32 holding one element once S = 1.
Status check_token_input(const Model& model, const DecodeOptions& options, bool* has_sequence) {
  std::string known;
  const TensorInfo* input = find(model.inputs(), options.token_input, &known);
  if (input == nullptr) {
    return error("the model has no input '" + options.token_input + "' (inputs: " + known +
                 "); set DecodeOptions::token_input");
  }
  int64_t elements = 1;
  *has_sequence = false;
  for (int64_t dim : input->shape) {
    *has_sequence = *has_sequence || dim < 0;
    elements *= dim < 0 ? 1 : dim;
  }
  if (input->dtype != "i32" || elements != 1) {
    return error("token input '" + input->name +
                 "' must be i32 with one token per step ([S] or [1]), found " + input->dtype + " " +
                 shape_text(input->shape));
  }
  return Status::ok();
}

// The logits output: f32 [rows, V] with V fixed.
Expected<size_t> check_logits_output(const Model& model, const DecodeOptions& options) {
  std::string known;
  const TensorInfo* output = find(model.outputs(), options.logits_output, &known);
  if (output == nullptr) {
    return error("the model has no output '" + options.logits_output + "' (outputs: " + known +
                 "); set DecodeOptions::logits_output");
  }
  if (output->dtype != "f32" || output->shape.size() != 2 || output->shape[1] <= 0) {
    return error("logits output '" + output->name + "' must be f32 [S, V] or [1, V], found " +
                 output->dtype + " " + shape_text(output->shape));
  }
  return static_cast<size_t>(output->shape[1]);
}

Status check_search_options(const DecodeOptions& options, size_t vocab) {
  const size_t k = options.beam_size;
  if (k == 0 || k > kMaxBeamSize) {
    return error("beam_size must be in [1, " + std::to_string(kMaxBeamSize) + "], found " +
                 std::to_string(k));
  }
  if (options.max_length == 0 || options.max_length > kMaxTreeNodes / k) {
    return error("max_length must be in [1, " + std::to_string(kMaxTreeNodes / k) +
                 "] for beam_size " + std::to_string(k) + ", found " +
                 std::to_string(options.max_length));
  }
  if (options.n_best == 0 || options.n_best > k) {
    return error("n_best must be in [1, beam_size = " + std::to_string(k) + "], found " +
                 std::to_string(options.n_best));
  }
  if (!std::isfinite(options.length_alpha) || options.length_alpha < 0) {
    return error("length_alpha must be finite and ≥ 0, found " +
                 std::to_string(options.length_alpha));
  }
  if (options.eos_id >= 0 && static_cast<size_t>(options.eos_id) >= vocab) {
    return error("eos_id " + std::to_string(options.eos_id) +
                 " is not a token of the logits (V = " + std::to_string(vocab) + ")");
  }
  return Status::ok();
}

// "": the name the model's builder recorded (metadata `key`), else `fallback`
// (files written before the builders recorded them).
void resolve_name(const Model& model, const char* key, const char* fallback, std::string* name) {
  if (!name->empty()) return;
  *name = model.metadata(key);
  if (name->empty()) *name = fallback;
}

}  // namespace

std::vector<int32_t> HypothesisTree::ids(uint32_t node) const {
  size_t length = 0;
  for (uint32_t n = node; n != kNoNode; n = parent[n]) ++length;
  std::vector<int32_t> out(length);
  for (uint32_t n = node; n != kNoNode; n = parent[n]) out[--length] = token[n];
  return out;
}

Decoder::Decoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Decoder::~Decoder() = default;

Expected<std::unique_ptr<Decoder>> Decoder::create(std::shared_ptr<const Model> model,
                                                   DecodeOptions options,
                                                   const SessionOptions& session_options) {
  if (!model) return error("the model is null");
  resolve_name(*model, "decode_token_input", "ids", &options.token_input);
  resolve_name(*model, "decode_logits_output", "logits", &options.logits_output);
  bool has_sequence = false;
  NORMRT_RETURN_IF_ERROR(check_token_input(*model, options, &has_sequence));
  NORMRT_ASSIGN_OR_RETURN(size_t vocab, check_logits_output(*model, options));
  NORMRT_RETURN_IF_ERROR(check_search_options(options, vocab));
  if (model->states().empty()) {
    return error(
        "the model keeps no state (no KV cache, no RNN state): each run feeds one "
        "token, so the model must carry the history in session state");
  }

  const size_t k = options.beam_size;
  auto impl = std::make_unique<Impl>(k);
  impl->model = model;
  impl->vocab = vocab;
  impl->token_input_has_sequence = has_sequence;
  for (size_t i = 0; i < k; ++i) {
    Expected<std::unique_ptr<Session>> session = Session::create(model, session_options);
    if (!session) return error("session " + std::to_string(i) + ": " + session.status().message());
    impl->sessions.push_back(std::move(session).value());
  }
  impl->free_sessions.reserve(k);
  impl->session_handed_on.resize(k);
  impl->rows.resize(k);
  impl->log_norm.resize(k);
  impl->tree.reserve(options.max_length * k);
  impl->ended.reserve(2 * k);
  impl->options = std::move(options);
  return std::unique_ptr<Decoder>(new Decoder(std::move(impl)));
}

Expected<std::vector<Hypothesis>> Decoder::decode(const Prepare& prepare) {
  return decode(impl_->options.prefix, prepare);
}

Expected<std::vector<Hypothesis>> Decoder::decode(const std::vector<int32_t>& prefix,
                                                  const Prepare& prepare) {
  if (prefix.empty()) {
    return error(
        "the prefix is empty: give at least one token to feed before the first step "
        "(a BOS, a prompt, or -1 for a zero embedding)");
  }
  return run_beam_search(*impl_, prefix, prepare);
}

const DecodeOptions& Decoder::options() const { return impl_->options; }
const DecodeStats& Decoder::stats() const { return impl_->stats; }
size_t Decoder::vocab_size() const { return impl_->vocab; }

}  // namespace normrt
