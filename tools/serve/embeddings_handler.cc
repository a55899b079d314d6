// POST /v1/embeddings, OpenAI-like:
//   {"input": "text" | ["text", ...], "model"?, "user"?, "encoding_format"?: "float"}
//   → {"object": "list", "data": [{"object": "embedding", "index": i,
//       "embedding": [...], "tokens": n, "truncated": bool}], "model": name,
//      "usage": {"prompt_tokens": n, "total_tokens": n, "tokens": n,
//                "truncated_inputs": k}, "latency_ms": x}
// Each text is tokenized (BERT WordPiece: [CLS] ... [SEP], truncated to the
// model's max_sequence_length; "truncated" says whether it was) and run alone
// at batch 1; "embedding" is the model's output of that name (mean-pooled,
// L2-normalized by the graph). "model" and "user" are accepted and ignored
// (one model per server). "truncated" and "truncated_inputs" are extensions
// that OpenAI clients ignore.
//
// Between texts the handler stops when the request's deadline has passed
// (504) or its client has gone (499, no reply).
#include <chrono>
#include <vector>

#include "base/status.h"
#include "tools/serve/model_service.h"
#include "tools/serve/request_json.h"
#include "tools/serve/tensor_response.h"
#include "tools/text/utf8.h"

namespace normrt::serve {
namespace {

using nlohmann::json;

constexpr const char* kEmbeddingOutput = "embedding";

ApiError bad_request(const std::string& message) { return {400, "invalid_request", message}; }

// The texts of "input": a string or a non-empty array of strings.
ApiResult<std::vector<std::string>> input_texts(json& request, size_t max_inputs) {
  auto input = request.find("input");
  if (input == request.end()) return bad_request("/v1/embeddings: missing \"input\"");
  if (input->is_string()) {
    return std::vector<std::string>{std::move(input->get_ref<std::string&>())};
  }
  if (!input->is_array() || input->empty()) {
    return bad_request("\"input\" must be a string or a non-empty array of strings, got " +
                       std::string(input->type_name()) + (input->is_array() ? " (empty)" : ""));
  }
  if (input->size() > max_inputs) {
    return bad_request("\"input\" has " + std::to_string(input->size()) + " texts, at most " +
                       std::to_string(max_inputs) + " per request");
  }
  std::vector<std::string> texts;
  for (size_t i = 0; i < input->size(); ++i) {
    json& text = (*input)[i];
    if (!text.is_string()) {
      return bad_request("input[" + std::to_string(i) + "] is " + text.type_name() +
                         ", expected a string (token arrays are not accepted: send text)");
    }
    texts.push_back(std::move(text.get_ref<std::string&>()));  // the DOM's copy is not needed
  }
  return texts;
}

// The ids of `text` cut to the model's `max_length`, and whether it was cut.
// `tokenizer` yields up to max_length + 1 ids (load_tokenizer), so a cut
// shows as one id too many. Memory: BERT's tokenizer lists every word of
// the text it is given; a long text of short words would cost ~16x its size.
// It is given growing prefixes that end at ASCII whitespace instead — BERT's
// tokenization is the concatenation of its whitespace-separated words', so a
// prefix that already fills max_length + 1 ids gives the whole text's ids.
struct Encoded {
  std::vector<int32_t> ids;
  bool truncated = false;
};
Expected<Encoded> encode_cut(const text::BertTokenizer& tokenizer, std::string_view text,
                             size_t max_length) {
  // Checked whole first, as encode() does, so that the error's byte offset
  // counts from the start and a bad byte past the cut is still refused.
  if (size_t bad = text::utf8_invalid_offset(text); bad != std::string_view::npos) {
    return Status::error("text: invalid UTF-8 at byte " + std::to_string(bad));
  }
  Expected<std::vector<int32_t>> ids = std::vector<int32_t>{};
  size_t prefix = std::max<size_t>(4096, 16 * max_length);
  bool done = false;
  while (!done && prefix < text.size()) {
    const size_t cut = text.find_first_of(" \t\n\r", prefix);
    if (cut == std::string_view::npos) break;
    ids = tokenizer.encode(text.substr(0, cut));
    done = !ids || ids->size() > max_length;
    prefix = 2 * cut;
  }
  if (!done) ids = tokenizer.encode(text);
  if (!ids) return ids.status();
  Encoded encoded;
  encoded.ids = std::move(ids).value();
  if (encoded.ids.size() > max_length) {  // [CLS] + max_length − 1 pieces: cut the last piece
    const int32_t sep = encoded.ids.back();
    encoded.ids.resize(max_length);
    encoded.ids.back() = sep;
    encoded.truncated = true;
  }
  return encoded;
}

}  // namespace

Expected<text::BertTokenizer> load_tokenizer(const std::string& vocab_path, const Model& model,
                                             bool keep_case) {
  NORMRT_ASSIGN_OR_RETURN(text::WordPieceVocab vocab, text::WordPieceVocab::load(vocab_path));
  text::BertTokenizerOptions options;
  options.basic.lowercase = !keep_case;
  options.basic.strip_accents = !keep_case;
  options.max_length = model.max_sequence_length() + 1;  // one more: a cut shows
  return text::BertTokenizer::create(std::move(vocab), options);
}

Reply ModelService::embeddings(std::string_view body, const RequestControl& control) {
  const std::shared_ptr<const ModelGeneration> generation = current();
  const text::BertTokenizer* tokenizer = generation->tokenizer();
  if (tokenizer == nullptr) {
    return error_reply({404, "embeddings_disabled",
                        "/v1/embeddings is off: start normrt-serve with --vocab vocab.txt"});
  }
  JsonLimits limits;
  limits.max_values = options_.max_embedding_inputs + 64;
  const std::string why =
      "a request has at most " + std::to_string(options_.max_embedding_inputs) + " texts";
  limits.why = why;
  ApiResult<json> request = parse_json_object(body, limits);
  if (!request) return error_reply(request.error());
  auto keys =
      check_keys(request.value(), {"input", "model", "user", "encoding_format"}, "/v1/embeddings");
  if (!keys) return error_reply(keys.error());
  auto format = request->find("encoding_format");
  if (format != request->end() && !(format->is_string() && format->get<std::string>() == "float")) {
    return error_reply(bad_request("\"encoding_format\": only \"float\" is supported"));
  }
  ApiResult<std::vector<std::string>> texts =
      input_texts(request.value(), options_.max_embedding_inputs);
  if (!texts) return error_reply(texts.error());
  request.value() = json();  // the texts were moved out; free the rest

  const size_t max_length = generation->model().max_sequence_length();
  std::vector<Encoded> encoded;
  size_t tokens = 0, truncated = 0;
  for (size_t i = 0; i < texts->size(); ++i) {
    Expected<Encoded> one = encode_cut(*tokenizer, texts.value()[i], max_length);
    if (!one) {
      return error_reply(
          bad_request("input[" + std::to_string(i) + "]: " + one.status().message()));
    }
    std::string().swap(texts.value()[i]);  // its ids are all that is needed now
    tokens += one->ids.size();
    truncated += one->truncated ? 1 : 0;
    encoded.push_back(std::move(one).value());
  }

  ApiResult<SessionPool::Lease> lease = this->lease(*generation, control);
  if (!lease) return error_reply(lease.error());
  Session& session = lease->session();
  const auto start = std::chrono::steady_clock::now();
  Reply reply;
  reply.inputs_done = 0;
  reply.body = "{\"object\": \"list\", \"data\": [";
  for (size_t i = 0; i < encoded.size(); ++i) {
    // Stop between texts: the work is for no one, or too late.
    if (control.abandoned()) return client_gone_reply(static_cast<long>(i));
    if (control.expired()) {
      Reply late = error_reply(deadline_error(
          control,
          std::to_string(i) + " of " + std::to_string(encoded.size()) + " texts were embedded"));
      late.inputs_done = static_cast<long>(i);
      return late;
    }
    const std::vector<int32_t>& ids = encoded[i].ids;
    Status s = session.set_input(generation->id_input(), ids.data(), ids.size() * sizeof(int32_t));
    if (s) s = session.run();
    if (!s) {
      return error_reply(
          {400, "invalid_input", "input[" + std::to_string(i) + "]: " + s.message()});
    }
    Expected<TensorRef> embedding = session.output(kEmbeddingOutput);
    if (!embedding) return error_reply({500, "internal", embedding.status().message()});
    const float* values = embedding->f32();
    if (auto bad = first_non_finite(values, embedding->elements())) {
      return error_reply({422, "non_finite_output",
                          "input[" + std::to_string(i) +
                              "]: the embedding has a non-finite value at index " +
                              std::to_string(*bad)});
    }
    reply.body += std::string(i > 0 ? ", " : "") +
                  "{\"object\": \"embedding\", \"index\": " + std::to_string(i) +
                  ", \"tokens\": " + std::to_string(ids.size()) +
                  ", \"truncated\": " + (encoded[i].truncated ? "true" : "false") +
                  ", \"embedding\": ";
    append_f32_array(reply.body, values, embedding->elements());
    reply.body += '}';
    reply.inputs_done = static_cast<long>(i + 1);
  }
  const std::string latency = milliseconds_text(std::chrono::steady_clock::now() - start);
  const std::string count = std::to_string(tokens);
  reply.body += "], \"model\": " + json_quote(options_.model_name) +
                ", \"usage\": {\"prompt_tokens\": " + count + ", \"total_tokens\": " + count +
                ", \"tokens\": " + count + ", \"truncated_inputs\": " + std::to_string(truncated) +
                "}, \"latency_ms\": " + latency + "}";
  return reply;
}

}  // namespace normrt::serve
