#include "tools/text/wordpiece_vocab.h"

#include <fstream>
#include <iterator>

#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

constexpr size_t kMaxFileBytes = size_t{64} << 20;
constexpr size_t kMaxTokenBytes = 1024;
constexpr size_t kMaxTokens = size_t{1} << 24;

}  // namespace

Expected<WordPieceVocab> WordPieceVocab::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open the vocabulary");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::error(path + ": cannot read the vocabulary's size");
  if (static_cast<size_t>(size) > kMaxFileBytes)
    return Status::error(path + ": " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(kMaxFileBytes) + " a vocabulary may have");
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), size);
  if (!in) return Status::error(path + ": read failed");
  return parse(text, path);
}

Expected<WordPieceVocab> WordPieceVocab::parse(std::string_view text, const std::string& source) {
  WordPieceVocab vocab;
  size_t offset = 0;
  while (offset < text.size()) {
    const size_t end = std::min(text.find('\n', offset), text.size());
    std::string_view token = text.substr(offset, end - offset);
    if (!token.empty() && token.back() == '\r') token.remove_suffix(1);
    const std::string where = source + ": line " + std::to_string(vocab.tokens_.size() + 1) +
                              " (byte " + std::to_string(offset) + ")";
    if (token.empty()) return Status::error(where + ": empty token");
    if (token.size() > kMaxTokenBytes)
      return Status::error(where + ": token of " + std::to_string(token.size()) +
                           " bytes, more than " + std::to_string(kMaxTokenBytes));
    if (size_t bad = utf8_invalid_offset(token); bad != std::string_view::npos)
      return Status::error(source + ": line " + std::to_string(vocab.tokens_.size() + 1) +
                           ": invalid UTF-8 at byte " + std::to_string(offset + bad));
    if (vocab.tokens_.size() == kMaxTokens)
      return Status::error(where + ": more than " + std::to_string(kMaxTokens) + " tokens");
    const auto id = static_cast<int32_t>(vocab.tokens_.size());
    auto [it, inserted] = vocab.ids_.emplace(std::string(token), id);
    if (!inserted)
      return Status::error(where + ": token '" + std::string(token) + "' repeats line " +
                           std::to_string(it->second + 1));
    vocab.tokens_.emplace_back(token);
    offset = end + 1;
  }
  if (vocab.tokens_.empty()) return Status::error(source + ": the vocabulary is empty");
  return vocab;
}

Expected<WordPieceVocab> WordPieceVocab::from_tokens(std::vector<std::string> tokens,
                                                     const std::string& source) {
  if (tokens.empty()) return Status::error(source + ": the vocabulary is empty");
  if (tokens.size() > kMaxTokens)
    return Status::error(source + ": more than " + std::to_string(kMaxTokens) + " tokens");
  WordPieceVocab vocab;
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (tokens[id].empty())
      return Status::error(source + ": id " + std::to_string(id) + " has an empty token");
    auto [it, inserted] = vocab.ids_.emplace(tokens[id], static_cast<int32_t>(id));
    if (!inserted)
      return Status::error(source + ": token '" + tokens[id] + "' has ids " +
                           std::to_string(it->second) + " and " + std::to_string(id));
  }
  vocab.tokens_ = std::move(tokens);
  return vocab;
}

int32_t WordPieceVocab::find(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace normrt::text
