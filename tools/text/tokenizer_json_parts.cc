#include "tools/text/tokenizer_json_parts.h"

#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

#define NORMRT_TEXT_ASSIGN(var, expr)      \
  auto var##_or = (expr);                  \
  if (!var##_or) return var##_or.status(); \
  auto var = std::move(var##_or).value()

constexpr int64_t kMaxId = int64_t{1} << 24;

Expected<std::string> type_of(const Json& value, const std::string& path) {
  if (!value.is_object())
    return Status::error(path + ": expected an object, found " + json_type(value));
  const Json* type = json_member(value, "type");
  if (type == nullptr) return Status::error(path + ": no type");
  return json_string(*type, path + ".type");
}

// A Sequence's members (`key`: "normalizers", "pretokenizers", "processors"), or the value alone.
Expected<std::vector<const Json*>> flatten(const Json& value, const char* key,
                                           const std::string& path) {
  NORMRT_TEXT_ASSIGN(type, type_of(value, path));
  if (type != "Sequence") return std::vector<const Json*>{&value};
  const Json* members = json_member(value, key);
  if (members == nullptr || !members->is_array())
    return Status::error(path + "." + key + ": expected an array");
  std::vector<const Json*> out;
  for (const Json& member : *members) out.push_back(&member);
  return out;
}

Expected<int32_t> resolve_special(const std::string& token, const TokenModel& model,
                                  const std::vector<AddedToken>& added, const std::string& path) {
  for (const AddedToken& a : added)
    if (a.content == token) return a.id;
  const int32_t id = model.token_id(token);
  if (id < 0)
    return Status::error(path + ": special token '" + token + "' is not in the vocabulary");
  return id;
}

// BertProcessing / RobertaProcessing's ["token", id].
Expected<int32_t> token_pair(const Json& processor, const char* key, const std::string& path) {
  const Json* pair = json_member(processor, key);
  if (pair == nullptr || !pair->is_array() || pair->size() != 2 || !(*pair)[0].is_string())
    return Status::error(path + "." + key + ": expected [\"token\", id]");
  NORMRT_TEXT_ASSIGN(id, json_int((*pair)[1], path + "." + key + "[1]"));
  if (id < 0 || id >= kMaxId) return Status::error(path + "." + key + ": id " + std::to_string(id));
  return static_cast<int32_t>(id);
}

Expected<std::vector<TemplatePiece>> read_template(const Json& pieces, const Json* specials,
                                                   const TokenModel& model,
                                                   const std::vector<AddedToken>& added, bool pair,
                                                   const std::string& path) {
  if (!pieces.is_array()) return Status::error(path + ": expected an array");
  std::vector<TemplatePiece> out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    const Json& piece = pieces[i];
    const Json* special = json_member(piece, "SpecialToken");
    const Json* sequence = json_member(piece, "Sequence");
    const Json* body = special ? special : sequence;
    if (body == nullptr) return Status::error(where + ": expected SpecialToken or Sequence");
    NORMRT_TEXT_ASSIGN(
        name,
        json_string(json_member(*body, "id") ? *json_member(*body, "id") : Json(), where + ".id"));
    int64_t type_id = 0;
    if (const Json* t = json_member(*body, "type_id")) {
      NORMRT_TEXT_ASSIGN(value, json_int(*t, where + ".type_id"));
      type_id = value;
    }
    if (type_id < 0 || type_id > 255)
      return Status::error(where + ".type_id: " + std::to_string(type_id));
    if (sequence != nullptr) {
      if (name != "A" && !(pair && name == "B"))
        return Status::error(where + ": sequence '" + name + "'");
      out.push_back({-1, static_cast<uint8_t>(name == "B"), static_cast<int32_t>(type_id)});
      continue;
    }
    // The special's ids from special_tokens (one or more), else its name.
    const Json* entry = specials ? json_member(*specials, name.c_str()) : nullptr;
    const Json* ids = entry ? json_member(*entry, "ids") : nullptr;
    if (ids != nullptr && ids->is_array()) {
      for (const Json& id : *ids) {
        NORMRT_TEXT_ASSIGN(value, json_int(id, where + ": special_tokens ids"));
        if (value < 0 || value >= kMaxId)
          return Status::error(where + ": id " + std::to_string(value));
        out.push_back({static_cast<int32_t>(value), 0, static_cast<int32_t>(type_id)});
      }
    } else {
      NORMRT_TEXT_ASSIGN(id, resolve_special(name, model, added, where));
      out.push_back({id, 0, static_cast<int32_t>(type_id)});
    }
  }
  return out;
}

}  // namespace

Expected<std::string> decode_base64(std::string_view text, const std::string& path) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] != '='; ++i) {
    const int v = value(text[i]);
    if (v < 0) return Status::error(path + ": not base64 at character " + std::to_string(i));
    bits = bits << 6 | static_cast<uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8);
      out += static_cast<char>(bits);
      bits = 0, count = 0;
    }
  }
  if (count == 1) return Status::error(path + ": base64 ends inside a byte");
  if (count == 2) out += static_cast<char>(bits >> 4);
  if (count == 3) {
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2);
  }
  for (; i < text.size(); ++i)
    if (text[i] != '=')
      return Status::error(path + ": not base64 at character " + std::to_string(i));
  return out;
}

Expected<BasicTokenizerOptions> read_bert_normalizer(const Json* normalizer,
                                                     const std::string& path) {
  if (normalizer == nullptr)
    return Status::error(path + ": WordPiece is read with BertNormalizer only, found none");
  NORMRT_TEXT_ASSIGN(type, type_of(*normalizer, path));
  if (type != "BertNormalizer")
    return Status::error(path + ": WordPiece is read with BertNormalizer only, found " + type);
  BasicTokenizerOptions options;
  NORMRT_TEXT_ASSIGN(clean, json_bool_or(*normalizer, "clean_text", true, path));
  if (!clean) return Status::error(path + ".clean_text: false is not supported");
  NORMRT_TEXT_ASSIGN(chinese, json_bool_or(*normalizer, "handle_chinese_chars", true, path));
  NORMRT_TEXT_ASSIGN(lowercase, json_bool_or(*normalizer, "lowercase", true, path));
  NORMRT_TEXT_ASSIGN(strip, json_bool_or(*normalizer, "strip_accents", lowercase, path));
  options.handle_chinese_chars = chinese;
  options.lowercase = lowercase;
  options.strip_accents = strip;
  return options;
}

Expected<bool> read_byte_level_pre_tokenizer(const Json* pre, const std::string& path) {
  if (pre == nullptr)
    return Status::error(path + ": BPE is read with the ByteLevel pre-tokenizer only, found none");
  NORMRT_TEXT_ASSIGN(members, flatten(*pre, "pretokenizers", path));
  if (members.size() != 1)
    return Status::error(path + ": a Sequence of " + std::to_string(members.size()) +
                         " pre-tokenizers; only ByteLevel alone is supported");
  NORMRT_TEXT_ASSIGN(type, type_of(*members[0], path));
  if (type != "ByteLevel")
    return Status::error(path + ": BPE is read with ByteLevel only, found " + type);
  NORMRT_TEXT_ASSIGN(use_regex, json_bool_or(*members[0], "use_regex", true, path));
  if (!use_regex) return Status::error(path + ".use_regex: false is not supported");
  return json_bool_or(*members[0], "add_prefix_space", true, path);
}

Expected<std::vector<NormalizerStep>> read_normalizers(const Json* normalizer,
                                                       const std::string& path) {
  std::vector<NormalizerStep> steps;
  if (normalizer == nullptr) return steps;
  NORMRT_TEXT_ASSIGN(members, flatten(*normalizer, "normalizers", path));
  for (size_t i = 0; i < members.size(); ++i) {
    const std::string where =
        members.size() > 1 ? path + ".normalizers[" + std::to_string(i) + "]" : path;
    const Json& member = *members[i];
    NORMRT_TEXT_ASSIGN(type, type_of(member, where));
    NormalizerStep step;
    if (type == "Precompiled") {
      const Json* map = json_member(member, "precompiled_charsmap");
      if (map == nullptr) continue;  // none: the identity
      NORMRT_TEXT_ASSIGN(encoded, json_string(*map, where + ".precompiled_charsmap"));
      NORMRT_TEXT_ASSIGN(blob, decode_base64(encoded, where + ".precompiled_charsmap"));
      auto charsmap = PrecompiledCharsmap::parse(blob);
      if (!charsmap) return Status::error(where + ": " + charsmap.status().message());
      step.kind = NormalizerKind::kPrecompiled;
      step.charsmap = std::make_shared<const PrecompiledCharsmap>(std::move(charsmap).value());
    } else if (type == "Replace") {
      const Json* pattern = json_member(member, "pattern");
      const Json* content = json_member(member, "content");
      if (pattern == nullptr || content == nullptr)
        return Status::error(where + ": needs pattern and content");
      NORMRT_TEXT_ASSIGN(text, json_string(*content, where + ".content"));
      step.content = text;
      if (const Json* literal = json_member(*pattern, "String")) {
        NORMRT_TEXT_ASSIGN(p, json_string(*literal, where + ".pattern.String"));
        step.kind = NormalizerKind::kReplaceLiteral;
        step.pattern = p;
      } else if (const Json* regex = json_member(*pattern, "Regex")) {
        NORMRT_TEXT_ASSIGN(r, json_string(*regex, where + ".pattern.Regex"));
        if (r == " {2,}") {
          step.kind = NormalizerKind::kReplaceSpaceRuns;
        } else if (r == "\\A +| +\\z" && text.empty()) {
          step.kind = NormalizerKind::kStripSpaces;
        } else if (r.compare(0, 2, "\\A") == 0 && r.size() > 2 &&
                   r.find_first_of("\\^$.|?*+()[]{}", 2) == std::string::npos) {
          step.kind = NormalizerKind::kReplaceStart;
          step.pattern = r.substr(2);
        } else {
          return Status::error(where + ".pattern.Regex: '" + r +
                               "' is not one of the expressions normrt reads (\" {2,}\", "
                               "\"\\A +| +\\z\", \"\\A<literal>\")");
        }
      } else {
        return Status::error(where + ".pattern: expected String or Regex");
      }
    } else if (type == "Strip") {
      NORMRT_TEXT_ASSIGN(left, json_bool_or(member, "strip_left", true, where));
      NORMRT_TEXT_ASSIGN(right, json_bool_or(member, "strip_right", true, where));
      step.kind = NormalizerKind::kStrip;
      step.left = left;
      step.right = right;
    } else if (type == "NFC") {
      step.kind = NormalizerKind::kNfc;
    } else if (type == "NFD") {
      step.kind = NormalizerKind::kNfd;
    } else if (type == "NFKC") {
      step.kind = NormalizerKind::kNfkc;
    } else if (type == "NFKD") {
      step.kind = NormalizerKind::kNfkd;
    } else if (type == "Lowercase") {
      step.kind = NormalizerKind::kLowercase;
    } else {
      return Status::error(where + ": normalizer " + type + " is not supported");
    }
    if (utf8_invalid_offset(step.pattern) != std::string::npos)
      return Status::error(where + ": pattern not UTF-8");
    steps.push_back(std::move(step));
  }
  return steps;
}

Status read_metaspace_pre_tokenizer(const Json* pre, const std::string& path,
                                    UnigramOptions& options) {
  options.metaspace = false;
  if (pre == nullptr) return Status::ok();
  auto members = flatten(*pre, "pretokenizers", path);
  if (!members) return members.status();
  for (const Json* member : members.value()) {
    auto type = type_of(*member, path);
    if (!type) return type.status();
    if (type.value() == "WhitespaceSplit") {
      if (options.metaspace)
        return Status::error(path + ": WhitespaceSplit after Metaspace is not supported");
      options.whitespace_split = true;
      continue;
    }
    if (type.value() != "Metaspace")
      return Status::error(path + ": pre-tokenizer " + type.value() +
                           " is not supported with Unigram (Metaspace, WhitespaceSplit)");
    if (options.metaspace) return Status::error(path + ": two Metaspace pre-tokenizers");
    options.metaspace = true;
    auto replacement = json_string_or(*member, "replacement", "\xE2\x96\x81", path);
    if (!replacement) return replacement.status();
    if (utf8_decode(replacement.value()).size() != 1)
      return Status::error(path + ".replacement: '" + replacement.value() +
                           "' is not one character");
    options.replacement = replacement.value();
    auto add_prefix = json_bool_or(*member, "add_prefix_space", true, path);
    if (!add_prefix) return add_prefix.status();
    options.prepend = add_prefix.value() ? PrependScheme::kAlways : PrependScheme::kNever;
    if (const Json* scheme = json_member(*member, "prepend_scheme")) {
      auto name = json_string(*scheme, path + ".prepend_scheme");
      if (!name) return name.status();
      if (name.value() == "always")
        options.prepend = PrependScheme::kAlways;
      else if (name.value() == "first")
        options.prepend = PrependScheme::kFirst;
      else if (name.value() == "never")
        options.prepend = PrependScheme::kNever;
      else
        return Status::error(path + ".prepend_scheme: '" + name.value() + "'");
    }
    auto split = json_bool_or(*member, "split", true, path);
    if (!split) return split.status();
    options.split = split.value();
  }
  return Status::ok();
}

Expected<std::vector<AddedToken>> read_added_tokens_json(const Json* tokens,
                                                         const std::string& path) {
  std::vector<AddedToken> out;
  if (tokens == nullptr) return out;
  if (!tokens->is_array()) return Status::error(path + ": expected an array");
  for (size_t i = 0; i < tokens->size(); ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    const Json& entry = (*tokens)[i];
    if (!entry.is_object()) return Status::error(where + ": expected an object");
    AddedToken token;
    const Json* id = json_member(entry, "id");
    const Json* content = json_member(entry, "content");
    if (id == nullptr || content == nullptr) return Status::error(where + ": needs id and content");
    NORMRT_TEXT_ASSIGN(id_value, json_int(*id, where + ".id"));
    if (id_value < 0 || id_value >= kMaxId)
      return Status::error(where + ".id: " + std::to_string(id_value));
    token.id = static_cast<int32_t>(id_value);
    NORMRT_TEXT_ASSIGN(text, json_string(*content, where + ".content"));
    if (text.empty()) return Status::error(where + ".content: empty");
    token.content = text;
    NORMRT_TEXT_ASSIGN(lstrip, json_bool_or(entry, "lstrip", false, where));
    NORMRT_TEXT_ASSIGN(rstrip, json_bool_or(entry, "rstrip", false, where));
    NORMRT_TEXT_ASSIGN(single, json_bool_or(entry, "single_word", false, where));
    NORMRT_TEXT_ASSIGN(special, json_bool_or(entry, "special", false, where));
    token.lstrip = lstrip;
    token.rstrip = rstrip;
    token.single_word = single;
    token.special = special;
    out.push_back(std::move(token));
  }
  return out;
}

Expected<PostProcessor> read_post_processor_json(const Json* post, const TokenModel& model,
                                                 const std::vector<AddedToken>& added,
                                                 const std::string& path) {
  if (post == nullptr) return PostProcessor::none();
  NORMRT_TEXT_ASSIGN(members, flatten(*post, "processors", path));
  const Json* chosen = nullptr;
  for (const Json* member : members) {
    NORMRT_TEXT_ASSIGN(type, type_of(*member, path));
    if (type == "ByteLevel") continue;  // offsets only
    if (chosen != nullptr)
      return Status::error(path + ": more than one post-processor adds tokens");
    chosen = member;
  }
  if (chosen == nullptr) return PostProcessor::none();
  NORMRT_TEXT_ASSIGN(type, type_of(*chosen, path));
  if (type == "BertProcessing" || type == "RobertaProcessing") {
    NORMRT_TEXT_ASSIGN(cls, token_pair(*chosen, "cls", path));
    NORMRT_TEXT_ASSIGN(sep, token_pair(*chosen, "sep", path));
    return type == "BertProcessing" ? PostProcessor::bert(cls, sep)
                                    : PostProcessor::roberta(cls, sep);
  }
  if (type != "TemplateProcessing")
    return Status::error(path + ": post-processor " + type + " is not supported");
  const Json* single = json_member(*chosen, "single");
  const Json* pair = json_member(*chosen, "pair");
  if (single == nullptr || pair == nullptr) return Status::error(path + ": needs single and pair");
  const Json* specials = json_member(*chosen, "special_tokens");
  PostProcessor out;
  NORMRT_TEXT_ASSIGN(s, read_template(*single, specials, model, added, false, path + ".single"));
  NORMRT_TEXT_ASSIGN(p, read_template(*pair, specials, model, added, true, path + ".pair"));
  out.single = std::move(s);
  out.pair = std::move(p);
  int sequences[2] = {0, 0};
  for (const TemplatePiece& piece : out.pair) sequences[piece.sequence] += piece.special_id < 0;
  int single_sequences = 0;
  for (const TemplatePiece& piece : out.single) single_sequences += piece.special_id < 0;
  if (single_sequences != 1 || sequences[0] != 1 || sequences[1] != 1)
    return Status::error(path + ": a template must hold $A once (and $B once in pair)");
  return out;
}

Expected<Truncation> read_truncation_json(const Json* truncation, const std::string& path) {
  Truncation out;
  out.max_length = 0;
  if (truncation == nullptr) return out;
  if (!truncation->is_object()) return Status::error(path + ": expected an object");
  const Json* max_length = json_member(*truncation, "max_length");
  if (max_length == nullptr) return Status::error(path + ": no max_length");
  NORMRT_TEXT_ASSIGN(n, json_int(*max_length, path + ".max_length"));
  if (n < 1 || n > kMaxId) return Status::error(path + ".max_length: " + std::to_string(n));
  out.max_length = static_cast<size_t>(n);
  NORMRT_TEXT_ASSIGN(strategy, json_string_or(*truncation, "strategy", "LongestFirst", path));
  if (strategy == "LongestFirst")
    out.strategy = TruncationStrategy::kLongestFirst;
  else if (strategy == "OnlyFirst")
    out.strategy = TruncationStrategy::kOnlyFirst;
  else if (strategy == "OnlySecond")
    out.strategy = TruncationStrategy::kOnlySecond;
  else
    return Status::error(path + ".strategy: '" + strategy + "'");
  NORMRT_TEXT_ASSIGN(direction, json_string_or(*truncation, "direction", "Right", path));
  if (direction != "Right" && direction != "Left")
    return Status::error(path + ".direction: '" + direction + "'");
  out.from_left = direction == "Left";
  return out;
}

}  // namespace normrt::text
