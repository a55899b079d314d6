#include "tools/text/tokenizer_folder.h"

#include <fstream>

#include "tools/text/byte_level_bpe.h"
#include "tools/text/json_access.h"
#include "tools/text/sentencepiece_model.h"
#include "tools/text/tokenizer_json.h"
#include "tools/text/wordpiece_model.h"

namespace normrt::text {
namespace {

#define NORMRT_TEXT_ASSIGN(var, expr)      \
  auto var##_or = (expr);                  \
  if (!var##_or) return var##_or.status(); \
  auto var = std::move(var##_or).value()

constexpr size_t kMaxFileBytes = size_t{256} << 20;

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// A JSON object file, or an empty object when absent.
Expected<Json> optional_json(const std::string& path, std::vector<std::string>& files) {
  if (!exists(path)) return Json::object();
  NORMRT_TEXT_ASSIGN(text, read_text_file(path));
  NORMRT_TEXT_ASSIGN(json, parse_json(text, path));
  if (!json.is_object()) return Status::error(path + ": expected an object");
  files.push_back(path);
  return json;
}

// An integer member when present, in (0, 10^6); 0 otherwise.
size_t length_member(const Json& object, const char* key) {
  const Json* value = json_member(object, key);
  if (value == nullptr || !value->is_number_integer()) return 0;
  const int64_t n = value->get<int64_t>();
  return n > 0 && n < 1000000 ? static_cast<size_t>(n) : 0;
}

// The added tokens of the fallback formats: those of `names` the model has.
std::vector<AddedToken> specials(const TokenModel& model, std::initializer_list<const char*> names,
                                 const char* lstrip_name) {
  std::vector<AddedToken> out;
  for (const char* name : names)
    if (int32_t id = model.token_id(name); id >= 0) {
      AddedToken token;
      token.content = name;
      token.id = id;
      token.lstrip = lstrip_name != nullptr && std::string(name) == lstrip_name;
      out.push_back(token);
    }
  return out;
}

Expected<Tokenizer> wordpiece_from_vocab_txt(const std::string& path, const Json& config) {
  NORMRT_TEXT_ASSIGN(vocab, WordPieceVocab::load(path));
  WordPieceOptions options;
  NORMRT_TEXT_ASSIGN(lowercase,
                     json_bool_or(config, "do_lower_case", true, "tokenizer_config.json"));
  NORMRT_TEXT_ASSIGN(strip,
                     json_bool_or(config, "strip_accents", lowercase, "tokenizer_config.json"));
  NORMRT_TEXT_ASSIGN(chinese,
                     json_bool_or(config, "tokenize_chinese_chars", true, "tokenizer_config.json"));
  options.basic = {lowercase, strip, chinese};
  NORMRT_TEXT_ASSIGN(model, WordPieceModel::create(std::move(vocab), options));
  auto shared = std::make_shared<const WordPieceModel>(std::move(model));
  const int32_t cls = shared->token_id("[CLS]"), sep = shared->token_id("[SEP]");
  if (cls < 0 || sep < 0) return Status::error(path + ": the vocabulary has no [CLS] or [SEP]");
  return Tokenizer::create(
      shared, specials(*shared, {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}, nullptr),
      PostProcessor::bert(cls, sep), {});
}

Expected<Tokenizer> bpe_from_vocab_merges(const std::string& dir, const Json& config) {
  NORMRT_TEXT_ASSIGN(vocab_text, read_text_file(dir + "/vocab.json"));
  NORMRT_TEXT_ASSIGN(vocab_json, parse_json(vocab_text, dir + "/vocab.json"));
  if (!vocab_json.is_object()) return Status::error(dir + "/vocab.json: expected an object");
  std::vector<std::string> tokens(vocab_json.size());
  std::vector<bool> seen(tokens.size(), false);
  for (auto it = vocab_json.begin(); it != vocab_json.end(); ++it) {
    NORMRT_TEXT_ASSIGN(id, json_int(it.value(), dir + "/vocab.json: \"" + it.key() + "\""));
    if (id < 0 || static_cast<size_t>(id) >= tokens.size() || seen[static_cast<size_t>(id)])
      return Status::error(dir + "/vocab.json: token '" + it.key() + "' has id " +
                           std::to_string(id) + "; ids must be 0 to " +
                           std::to_string(tokens.size() - 1) + ", each once");
    seen[static_cast<size_t>(id)] = true;
    tokens[static_cast<size_t>(id)] = it.key();
  }
  NORMRT_TEXT_ASSIGN(merges_text, read_text_file(dir + "/merges.txt"));
  NORMRT_TEXT_ASSIGN(merges, parse_merges_txt(merges_text, dir + "/merges.txt"));
  BpeOptions options;
  NORMRT_TEXT_ASSIGN(prefix,
                     json_bool_or(config, "add_prefix_space", false, "tokenizer_config.json"));
  options.add_prefix_space = prefix;
  NORMRT_TEXT_ASSIGN(model,
                     ByteLevelBpe::create(std::move(tokens), merges, options, dir + "/vocab.json"));
  auto shared = std::make_shared<const ByteLevelBpe>(std::move(model));
  NORMRT_TEXT_ASSIGN(tokenizer_class,
                     json_string_or(config, "tokenizer_class", "", "tokenizer_config.json"));
  const int32_t cls = shared->token_id("<s>"), sep = shared->token_id("</s>");
  const bool roberta = cls >= 0 && sep >= 0 && tokenizer_class.find("GPT2") == std::string::npos;
  return Tokenizer::create(
      shared,
      specials(*shared, {"<s>", "<pad>", "</s>", "<unk>", "<mask>", "<|endoftext|>"}, "<mask>"),
      roberta ? PostProcessor::roberta(cls, sep) : PostProcessor::none(), {});
}

Expected<Tokenizer> sentencepiece_fairseq(const std::string& path) {
  NORMRT_TEXT_ASSIGN(proto, read_text_file(path));
  NORMRT_TEXT_ASSIGN(
      model, SentencePieceModel::create(std::move(proto), SentencePieceIds::kFairseq, path));
  auto shared = std::make_shared<const SentencePieceModel>(std::move(model));
  return Tokenizer::create(shared,
                           specials(*shared, {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}, "<mask>"),
                           PostProcessor::roberta(0, 2), {});
}

}  // namespace

Expected<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::error(path + ": cannot read its size");
  if (static_cast<size_t>(size) > kMaxFileBytes)
    return Status::error(path + ": " + std::to_string(size) + " bytes, more than " +
                         std::to_string(kMaxFileBytes));
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), size);
  if (!in) return Status::error(path + ": read failed");
  return text;
}

Expected<std::vector<std::pair<std::string, std::string>>> parse_merges_txt(
    std::string_view text, const std::string& source) {
  std::vector<std::pair<std::string, std::string>> merges;
  size_t line_number = 0;
  for (size_t offset = 0; offset < text.size();) {
    const size_t end = std::min(text.find('\n', offset), text.size());
    std::string_view line = text.substr(offset, end - offset);
    ++line_number;
    const size_t line_offset = offset;
    offset = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.rfind("#version", 0) == 0) continue;
    if (line.empty() && offset >= text.size()) break;  // the final newline
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      return Status::error(source + ": line " + std::to_string(line_number) + " (byte " +
                           std::to_string(line_offset) +
                           "): expected two tokens separated by one space");
    merges.emplace_back(std::string(line.substr(0, space)), std::string(line.substr(space + 1)));
  }
  return merges;
}

Expected<FolderTokenizer> load_tokenizer_folder(const std::string& dir, size_t max_length) {
  std::vector<std::string> files;
  NORMRT_TEXT_ASSIGN(config, optional_json(dir + "/tokenizer_config.json", files));
  NORMRT_TEXT_ASSIGN(sbert, optional_json(dir + "/sentence_bert_config.json", files));
  Expected<Tokenizer> tokenizer = Status::error("");
  std::string read;
  if (exists(dir + "/tokenizer.json")) {
    read = dir + "/tokenizer.json";
    NORMRT_TEXT_ASSIGN(text, read_text_file(read));
    tokenizer = parse_tokenizer_json(text, read);
  } else if (exists(dir + "/sentencepiece.bpe.model")) {
    read = dir + "/sentencepiece.bpe.model";
    tokenizer = sentencepiece_fairseq(read);
  } else if (exists(dir + "/vocab.json") && exists(dir + "/merges.txt")) {
    read = dir + "/vocab.json + merges.txt";
    tokenizer = bpe_from_vocab_merges(dir, config);
  } else if (exists(dir + "/vocab.txt")) {
    read = dir + "/vocab.txt";
    tokenizer = wordpiece_from_vocab_txt(read, config);
  } else {
    return Status::error(dir +
                         ": no tokenizer.json, sentencepiece.bpe.model, vocab.json + "
                         "merges.txt or vocab.txt");
  }
  if (!tokenizer) return tokenizer.status();
  files.insert(files.begin(), read);
  Tokenizer result = std::move(tokenizer).value();

  std::string length_source = "the caller";
  if (max_length == 0 && (max_length = length_member(sbert, "max_seq_length")) != 0)
    length_source = "sentence_bert_config.json max_seq_length";
  if (max_length == 0 && (max_length = result.truncation().max_length) != 0)
    length_source = "tokenizer.json truncation";
  if (max_length == 0 && (max_length = length_member(config, "model_max_length")) != 0)
    length_source = "tokenizer_config.json model_max_length";
  if (max_length == 0) max_length = 512, length_source = "the default";
  if (Status s = result.set_max_length(max_length); !s) return s;

  std::string summary = read + ": " + tokenizer_kind_name(result.kind()) + ", " +
                        std::to_string(result.model().vocab_size()) + " ids, " +
                        std::to_string(result.added_tokens().size()) + " added tokens, " +
                        std::to_string(PostProcessor::added(result.post_processor().single)) +
                        " specials per text, max_length " + std::to_string(max_length) + " (" +
                        length_source + ")";
  return FolderTokenizer{std::move(result), std::move(files), std::move(summary)};
}

}  // namespace normrt::text
