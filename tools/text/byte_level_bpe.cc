#include "tools/text/byte_level_bpe.h"

#include <queue>
#include <tuple>

#include "tools/text/byte_to_unicode.h"
#include "tools/text/gpt2_pretokenizer.h"
#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

constexpr size_t kMaxTokens = size_t{1} << 24;

}  // namespace

Expected<ByteLevelBpe> ByteLevelBpe::create(
    std::vector<std::string> tokens, const std::vector<std::pair<std::string, std::string>>& merges,
    BpeOptions options, const std::string& source) {
  if (tokens.empty()) return Status::error(source + ": the vocabulary is empty");
  if (tokens.size() > kMaxTokens)
    return Status::error(source + ": more than " + std::to_string(kMaxTokens) + " tokens");
  if (merges.size() > kMaxTokens)
    return Status::error(source + ": more than " + std::to_string(kMaxTokens) + " merges");
  ByteLevelBpe bpe;
  bpe.ids_.reserve(tokens.size());
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (tokens[id].empty())
      return Status::error(source + ": id " + std::to_string(id) + " has an empty token");
    auto [it, inserted] = bpe.ids_.emplace(tokens[id], static_cast<int32_t>(id));
    if (!inserted)
      return Status::error(source + ": token '" + tokens[id] + "' has ids " +
                           std::to_string(it->second) + " and " + std::to_string(id));
  }
  bpe.tokens_ = std::move(tokens);
  bpe.merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [a, b] = merges[rank];
    const int32_t id_a = bpe.token_id(a), id_b = bpe.token_id(b), result = bpe.token_id(a + b);
    for (auto [token, id] : {std::pair<std::string, int32_t>{a, id_a}, {b, id_b}, {a + b, result}})
      if (id < 0)
        return Status::error(source + ": merge " + std::to_string(rank) + " ('" + a + "' '" + b +
                             "'): '" + token + "' is not in the vocabulary");
    // A repeated pair keeps its last rank, as Hugging Face's map does.
    bpe.merges_[pair_key(id_a, id_b)] = {static_cast<int32_t>(rank), result};
    bpe.merge_list_.emplace_back(id_a, id_b);
  }
  if (!options.unk_token.empty()) {
    bpe.unk_ = bpe.token_id(options.unk_token);
    if (bpe.unk_ < 0)
      return Status::error(source + ": the unk token '" + options.unk_token +
                           "' is not in the vocabulary");
  }
  bpe.options_ = std::move(options);
  return bpe;
}

int32_t ByteLevelBpe::token_id(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

const ByteLevelBpe::Merge* ByteLevelBpe::find_merge(int32_t a, int32_t b) const {
  auto it = merges_.find(pair_key(a, b));
  return it == merges_.end() ? nullptr : &it->second;
}

void ByteLevelBpe::encode_word(std::string_view word, std::vector<int32_t>& ids) const {
  std::string mapped;
  for (char byte : word) mapped += byte_to_unicode_utf8(static_cast<unsigned char>(byte));
  if (options_.ignore_merges) {
    if (int32_t id = token_id(mapped); id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  // Symbols as a linked list; a merged-away symbol has id -1.
  struct Symbol {
    int32_t id;
    int prev, next;
  };
  std::vector<Symbol> symbols;
  for (char byte : word) {
    const int32_t id = token_id(byte_to_unicode_utf8(static_cast<unsigned char>(byte)));
    if (id < 0 && unk_ < 0) continue;  // dropped, as Hugging Face does without an unk token
    const int index = static_cast<int>(symbols.size());
    symbols.push_back({id < 0 ? unk_ : id, index - 1, index + 1});
  }
  if (symbols.empty()) return;
  symbols.back().next = -1;

  // (rank, left position): lowest rank first, leftmost on a tie.
  using Entry = std::tuple<int32_t, int, int32_t>;  // rank, position, result
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  auto push = [&](int left) {
    if (left < 0 || symbols[left].next < 0) return;
    if (const Merge* m = find_merge(symbols[left].id, symbols[symbols[left].next].id))
      queue.emplace(m->rank, left, m->result);
  };
  for (int i = 0; i + 1 < static_cast<int>(symbols.size()); ++i) push(i);
  while (!queue.empty()) {
    auto [rank, left, result] = queue.top();
    queue.pop();
    Symbol& a = symbols[left];
    if (a.id < 0 || a.next < 0) continue;  // merged away meanwhile
    const Merge* current = find_merge(a.id, symbols[a.next].id);
    if (current == nullptr || current->rank != rank || current->result != result) continue;
    Symbol& b = symbols[a.next];
    a.id = result;
    b.id = -1;
    a.next = b.next;
    if (a.next >= 0) symbols[a.next].prev = left;
    push(a.prev);
    push(left);
  }
  for (int i = 0; i >= 0; i = symbols[i].next) ids.push_back(symbols[i].id);
}

Status ByteLevelBpe::tokenize(std::string_view segment, bool /*at_start*/,
                              std::vector<int32_t>& ids) const {
  std::string prefixed;
  if (options_.add_prefix_space && (segment.empty() || segment.front() != ' ')) {
    prefixed = " ";
    prefixed += segment;
    segment = prefixed;
  }
  for (std::string_view word : gpt2_pretokenize(segment)) encode_word(word, ids);
  return Status::ok();
}

void ByteLevelBpe::serialize(ByteWriter& out) const {
  out.u8(static_cast<uint8_t>(options_.add_prefix_space | options_.ignore_merges << 1));
  out.str(options_.unk_token);
  out.u32(static_cast<uint32_t>(tokens_.size()));
  for (const std::string& token : tokens_) out.str(token);
  out.u32(static_cast<uint32_t>(merge_list_.size()));
  for (auto [a, b] : merge_list_) {
    out.i32(a);
    out.i32(b);
  }
}

Expected<ByteLevelBpe> ByteLevelBpe::deserialize(ByteReader& in) {
  BpeOptions options;
  const size_t start = in.offset();
  const uint8_t flags = in.u8("BPE flags");
  if (flags > 3) in.fail(start, "unknown BPE flags " + std::to_string(flags));
  options.add_prefix_space = flags & 1;
  options.ignore_merges = flags & 2;
  options.unk_token = in.str("BPE unk token");
  std::vector<std::string> tokens(in.count("BPE vocabulary size", 5));
  for (std::string& token : tokens) {
    const size_t at = in.offset();
    token = in.str("BPE token");
    if (in.ok() && utf8_invalid_offset(token) != std::string_view::npos)
      in.fail(at, "BPE token is not UTF-8");
  }
  std::vector<std::pair<std::string, std::string>> merges(in.count("BPE merge count", 8));
  for (auto& [a, b] : merges) {
    const size_t at = in.offset();
    const int32_t id_a = in.i32("BPE merge"), id_b = in.i32("BPE merge");
    if (!in.ok()) break;
    for (int32_t id : {id_a, id_b})
      if (id < 0 || static_cast<size_t>(id) >= tokens.size()) {
        in.fail(at, "BPE merge id " + std::to_string(id) + " outside the vocabulary of " +
                        std::to_string(tokens.size()));
        return in.status();
      }
    a = tokens[static_cast<size_t>(id_a)];
    b = tokens[static_cast<size_t>(id_b)];
  }
  if (!in.ok()) return in.status();
  auto bpe = create(std::move(tokens), merges, std::move(options), "BPE");
  if (!bpe) in.fail(start, bpe.status().message());
  return bpe;
}

}  // namespace normrt::text
