#include "tools/text/tokenizer_json.h"

#include "tools/text/byte_level_bpe.h"
#include "tools/text/json_access.h"
#include "tools/text/tokenizer_json_parts.h"
#include "tools/text/unigram_model.h"
#include "tools/text/wordpiece_model.h"

namespace normrt::text {
namespace {

#define NORMRT_TEXT_ASSIGN(var, expr)      \
  auto var##_or = (expr);                  \
  if (!var##_or) return var##_or.status(); \
  auto var = std::move(var##_or).value()

constexpr int64_t kMaxId = int64_t{1} << 24;

// {"token": id, ...} → tokens in id order; ids must be 0..n−1.
Expected<std::vector<std::string>> vocab_by_id(const Json& vocab, const std::string& path) {
  if (!vocab.is_object())
    return Status::error(path + ": expected an object, found " + json_type(vocab));
  std::vector<std::string> tokens(vocab.size());
  std::vector<bool> seen(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    NORMRT_TEXT_ASSIGN(id, json_int(it.value(), path + "[\"" + it.key() + "\"]"));
    if (id < 0 || static_cast<uint64_t>(id) >= tokens.size())
      return Status::error(path + ": token '" + it.key() + "' has id " + std::to_string(id) +
                           "; ids must run from 0 to " + std::to_string(tokens.size() - 1));
    if (seen[static_cast<size_t>(id)])
      return Status::error(path + ": id " + std::to_string(id) + " is given twice");
    seen[static_cast<size_t>(id)] = true;
    tokens[static_cast<size_t>(id)] = it.key();
  }
  return tokens;
}

Expected<std::shared_ptr<const TokenModel>> read_wordpiece(const Json& root, const Json& model,
                                                           const std::string& source) {
  WordPieceOptions options;
  const Json* normalizer = json_member(root, "normalizer");
  NORMRT_TEXT_ASSIGN(bert, read_bert_normalizer(normalizer, source + ": normalizer"));
  options.basic = bert;
  const Json* pre = json_member(root, "pre_tokenizer");
  if (pre == nullptr || !pre->is_object() || json_member(*pre, "type") == nullptr ||
      *json_member(*pre, "type") != "BertPreTokenizer")
    return Status::error(source +
                         ": pre_tokenizer: WordPiece is read with BertPreTokenizer only, found " +
                         (pre ? pre->dump().substr(0, 80) : std::string("none")));
  const std::string path = source + ": model";
  NORMRT_TEXT_ASSIGN(unk, json_string_or(model, "unk_token", "[UNK]", path));
  NORMRT_TEXT_ASSIGN(prefix, json_string_or(model, "continuing_subword_prefix", "##", path));
  options.unk_token = unk;
  options.prefix = prefix;
  if (const Json* max_chars = json_member(model, "max_input_chars_per_word")) {
    NORMRT_TEXT_ASSIGN(n, json_int(*max_chars, path + ".max_input_chars_per_word"));
    if (n < 1 || n > kMaxId)
      return Status::error(path + ".max_input_chars_per_word: " + std::to_string(n));
    options.max_chars_per_word = static_cast<size_t>(n);
  }
  const Json* vocab_json = json_member(model, "vocab");
  if (vocab_json == nullptr) return Status::error(path + ": no vocab");
  NORMRT_TEXT_ASSIGN(tokens, vocab_by_id(*vocab_json, path + ".vocab"));
  NORMRT_TEXT_ASSIGN(vocab, WordPieceVocab::from_tokens(std::move(tokens), path + ".vocab"));
  NORMRT_TEXT_ASSIGN(wordpiece, WordPieceModel::create(std::move(vocab), std::move(options)));
  return std::shared_ptr<const TokenModel>(std::make_shared<WordPieceModel>(std::move(wordpiece)));
}

Expected<std::pair<std::string, std::string>> read_merge(const Json& merge,
                                                         const std::string& path) {
  if (merge.is_string()) {  // "a b"
    const std::string& text = merge.get_ref<const std::string&>();
    const size_t space = text.find(' ');
    if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos)
      return Status::error(path + ": '" + text + "' is not two tokens separated by one space");
    return std::make_pair(text.substr(0, space), text.substr(space + 1));
  }
  if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string())
    return std::make_pair(merge[0].get<std::string>(), merge[1].get<std::string>());
  return Status::error(path + ": a merge is \"a b\" or [\"a\", \"b\"], found " + json_type(merge));
}

Expected<std::shared_ptr<const TokenModel>> read_bpe(const Json& root, const Json& model,
                                                     const std::string& source) {
  if (json_member(root, "normalizer") != nullptr)
    return Status::error(source + ": normalizer: byte-level BPE is read without a normalizer");
  NORMRT_TEXT_ASSIGN(byte_level, read_byte_level_pre_tokenizer(json_member(root, "pre_tokenizer"),
                                                               source + ": pre_tokenizer"));
  const std::string path = source + ": model";
  BpeOptions options;
  options.add_prefix_space = byte_level;
  NORMRT_TEXT_ASSIGN(ignore_merges, json_bool_or(model, "ignore_merges", false, path));
  options.ignore_merges = ignore_merges;
  NORMRT_TEXT_ASSIGN(unk, json_string_or(model, "unk_token", "", path));
  options.unk_token = unk;
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    NORMRT_TEXT_ASSIGN(affix, json_string_or(model, key, "", path));
    if (!affix.empty())
      return Status::error(path + "." + key + ": not supported in byte-level BPE");
  }
  if (const Json* dropout = json_member(model, "dropout"); dropout != nullptr)
    return Status::error(path + ".dropout: BPE dropout (random merges) is not supported");
  NORMRT_TEXT_ASSIGN(byte_fallback, json_bool_or(model, "byte_fallback", false, path));
  if (byte_fallback) return Status::error(path + ".byte_fallback: not supported in byte-level BPE");
  const Json* vocab_json = json_member(model, "vocab");
  if (vocab_json == nullptr) return Status::error(path + ": no vocab");
  NORMRT_TEXT_ASSIGN(tokens, vocab_by_id(*vocab_json, path + ".vocab"));
  std::vector<std::pair<std::string, std::string>> merges;
  if (const Json* merges_json = json_member(model, "merges")) {
    if (!merges_json->is_array())
      return Status::error(path + ".merges: expected an array, found " + json_type(*merges_json));
    merges.reserve(merges_json->size());
    for (size_t i = 0; i < merges_json->size(); ++i) {
      NORMRT_TEXT_ASSIGN(
          merge, read_merge((*merges_json)[i], path + ".merges[" + std::to_string(i) + "]"));
      merges.push_back(std::move(merge));
    }
  }
  NORMRT_TEXT_ASSIGN(bpe,
                     ByteLevelBpe::create(std::move(tokens), merges, std::move(options), path));
  return std::shared_ptr<const TokenModel>(std::make_shared<ByteLevelBpe>(std::move(bpe)));
}

Expected<std::shared_ptr<const TokenModel>> read_unigram(const Json& root, const Json& model,
                                                         const std::string& source) {
  UnigramOptions options;
  NORMRT_TEXT_ASSIGN(steps,
                     read_normalizers(json_member(root, "normalizer"), source + ": normalizer"));
  options.normalizer = std::move(steps);
  if (Status s = read_metaspace_pre_tokenizer(json_member(root, "pre_tokenizer"),
                                              source + ": pre_tokenizer", options);
      !s)
    return s;
  const std::string path = source + ": model";
  const Json* unk = json_member(model, "unk_id");
  if (unk == nullptr)
    return Status::error(path + ": no unk_id (a Unigram model without one is not supported)");
  NORMRT_TEXT_ASSIGN(unk_id, json_int(*unk, path + ".unk_id"));
  if (unk_id < 0 || unk_id >= kMaxId)
    return Status::error(path + ".unk_id: " + std::to_string(unk_id));
  options.unk_id = static_cast<int32_t>(unk_id);
  NORMRT_TEXT_ASSIGN(byte_fallback, json_bool_or(model, "byte_fallback", false, path));
  options.byte_fallback = byte_fallback;
  const Json* vocab = json_member(model, "vocab");
  if (vocab == nullptr || !vocab->is_array())
    return Status::error(path + ".vocab: expected an array of [piece, score]");
  std::vector<std::pair<std::string, double>> pieces;
  pieces.reserve(vocab->size());
  for (size_t i = 0; i < vocab->size(); ++i) {
    const Json& entry = (*vocab)[i];
    const std::string where = path + ".vocab[" + std::to_string(i) + "]";
    if (!entry.is_array() || entry.size() != 2)
      return Status::error(where + ": expected [piece, score]");
    NORMRT_TEXT_ASSIGN(piece, json_string(entry[0], where + "[0]"));
    NORMRT_TEXT_ASSIGN(score, json_number(entry[1], where + "[1]"));
    pieces.emplace_back(std::move(piece), score);
  }
  NORMRT_TEXT_ASSIGN(unigram, UnigramModel::create(std::move(pieces), std::move(options), path));
  return std::shared_ptr<const TokenModel>(std::make_shared<UnigramModel>(std::move(unigram)));
}

// The model's kind: its "type", or (older files) its shape.
Expected<std::string> model_type(const Json& model, const std::string& path) {
  if (const Json* type = json_member(model, "type")) return json_string(*type, path + ".type");
  const Json* vocab = json_member(model, "vocab");
  if (json_member(model, "merges") != nullptr) return std::string("BPE");
  if (vocab != nullptr && vocab->is_array()) return std::string("Unigram");
  if (vocab != nullptr && vocab->is_object()) return std::string("WordPiece");
  return Status::error(path + ": no type, and no vocab to tell the kind by");
}

}  // namespace

Expected<Tokenizer> parse_tokenizer_json(std::string_view text, const std::string& source) {
  NORMRT_TEXT_ASSIGN(root, parse_json(text, source));
  if (!root.is_object())
    return Status::error(source + ": expected an object, found " + json_type(root));
  const Json* model = json_member(root, "model");
  if (model == nullptr || !model->is_object()) return Status::error(source + ": no model object");
  NORMRT_TEXT_ASSIGN(type, model_type(*model, source + ": model"));
  Expected<std::shared_ptr<const TokenModel>> token_model = Status::error("");
  if (type == "WordPiece") {
    token_model = read_wordpiece(root, *model, source);
  } else if (type == "BPE") {
    token_model = read_bpe(root, *model, source);
  } else if (type == "Unigram") {
    token_model = read_unigram(root, *model, source);
  } else {
    return Status::error(source + ": model.type '" + type +
                         "' is not supported (WordPiece, BPE or Unigram)");
  }
  if (!token_model) return token_model.status();
  std::shared_ptr<const TokenModel> shared = std::move(token_model).value();
  NORMRT_TEXT_ASSIGN(
      added, read_added_tokens_json(json_member(root, "added_tokens"), source + ": added_tokens"));
  NORMRT_TEXT_ASSIGN(post, read_post_processor_json(json_member(root, "post_processor"), *shared,
                                                    added, source + ": post_processor"));
  NORMRT_TEXT_ASSIGN(
      truncation, read_truncation_json(json_member(root, "truncation"), source + ": truncation"));
  auto tokenizer = Tokenizer::create(shared, std::move(added), std::move(post), truncation);
  if (!tokenizer) return Status::error(source + ": " + tokenizer.status().message());
  return tokenizer;
}

}  // namespace normrt::text
