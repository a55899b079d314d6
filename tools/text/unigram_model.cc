#include "tools/text/unigram_model.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "tools/text/unicode_class.h"
#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

constexpr size_t kMaxPieces = size_t{1} << 24;
constexpr double kUnkPenalty = 10.0;  // Hugging Face's and SentencePiece's

size_t utf8_length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

struct Piece {
  std::string text;
  size_t offset;  // in the normalized segment
};

// WhitespaceSplit: runs of non-White_Space characters.
std::vector<Piece> whitespace_split(const std::vector<Piece>& pieces) {
  std::vector<Piece> out;
  for (const Piece& piece : pieces) {
    std::u32string cps = utf8_decode(piece.text);
    std::string word;
    size_t offset = piece.offset, word_offset = 0, byte = 0;
    for (char32_t c : cps) {
      std::string encoded;
      utf8_append(encoded, c);
      if (is_white_space(c)) {
        if (!word.empty()) out.push_back({std::move(word), word_offset});
        word.clear();
      } else {
        if (word.empty()) word_offset = offset + byte;
        word += encoded;
      }
      byte += encoded.size();
    }
    if (!word.empty()) out.push_back({std::move(word), word_offset});
  }
  return out;
}

}  // namespace

Expected<UnigramModel> UnigramModel::create(std::vector<std::pair<std::string, double>> pieces,
                                            UnigramOptions options, const std::string& source) {
  if (pieces.empty()) return Status::error(source + ": the Unigram vocabulary is empty");
  if (pieces.size() > kMaxPieces)
    return Status::error(source + ": more than " + std::to_string(kMaxPieces) + " pieces");
  if (options.unk_id < 0 || static_cast<size_t>(options.unk_id) >= pieces.size())
    return Status::error(source + ": unk_id " + std::to_string(options.unk_id) +
                         " outside the vocabulary of " + std::to_string(pieces.size()));
  if (options.metaspace && options.replacement.empty())
    return Status::error(source + ": Metaspace with an empty replacement");
  UnigramModel model;
  double min_score = std::numeric_limits<double>::infinity();
  for (size_t id = 0; id < pieces.size(); ++id) {
    const auto& [text, score] = pieces[id];
    if (text.empty()) return Status::error(source + ": piece " + std::to_string(id) + " is empty");
    if (!std::isfinite(score))
      return Status::error(source + ": piece " + std::to_string(id) + " has a non-finite score");
    auto [it, inserted] = model.ids_.emplace(text, static_cast<int32_t>(id));
    if (!inserted)
      return Status::error(source + ": piece '" + text + "' has ids " + std::to_string(it->second) +
                           " and " + std::to_string(id));
    model.max_piece_bytes_ = std::max(model.max_piece_bytes_, text.size());
    min_score = std::min(min_score, score);
  }
  model.unk_score_ = min_score - kUnkPenalty;
  model.pieces_ = std::move(pieces);
  model.options_ = std::move(options);
  return model;
}

int32_t UnigramModel::token_id(std::string_view token) const {
  auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

void UnigramModel::encode_piece(std::string_view piece, std::vector<int32_t>& ids) const {
  if (piece.empty()) return;
  const size_t n = piece.size();
  struct Node {
    double score = 0.0;
    size_t start = 0;
    int32_t id = -1;
    bool reached = false;
  };
  std::vector<Node> best(n + 1);
  best[0].reached = true;
  std::string key;
  for (size_t start = 0; start < n;) {
    const size_t char_bytes =
        std::min(utf8_length(static_cast<unsigned char>(piece[start])), n - start);
    if (!best[start].reached) {  // cannot happen: every character is covered
      start += char_bytes;
      continue;
    }
    const double base = best[start].score;
    bool single = false;
    for (size_t end = start + 1; end <= n && end - start <= max_piece_bytes_; ++end) {
      if (end < n && (static_cast<unsigned char>(piece[end]) & 0xC0) == 0x80) continue;
      key.assign(piece.substr(start, end - start));
      auto it = ids_.find(key);
      if (it == ids_.end()) continue;
      const double score = base + pieces_[static_cast<size_t>(it->second)].second;
      Node& node = best[end];
      if (!node.reached || score > node.score) node = {score, start, it->second, true};
      if (end - start == char_bytes) single = true;
    }
    if (!single) {
      Node& node = best[start + char_bytes];
      const double score = base + unk_score_;
      if (!node.reached || score > node.score) node = {score, start, options_.unk_id, true};
    }
    start += char_bytes;
  }
  // Back from the end; consecutive unknowns fuse into one string.
  std::vector<std::string_view> tokens;
  size_t unk_end = 0;
  bool in_unk = false;
  for (size_t end = n; end > 0;) {
    const Node& node = best[end];
    if (node.id == options_.unk_id) {
      if (!in_unk) unk_end = end;
      in_unk = true;
    } else {
      if (in_unk) tokens.push_back(piece.substr(end, unk_end - end));
      in_unk = false;
      tokens.push_back(piece.substr(node.start, end - node.start));
    }
    end = node.start;
  }
  if (in_unk) tokens.push_back(piece.substr(0, unk_end));
  for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
    if (int32_t id = token_id(*it); id >= 0) {
      ids.push_back(id);
      continue;
    }
    if (options_.byte_fallback) {
      std::vector<int32_t> bytes;
      for (char byte : *it) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(byte));
        const int32_t id = token_id(name);
        if (id < 0) break;
        bytes.push_back(id);
      }
      if (bytes.size() == it->size()) {
        ids.insert(ids.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    ids.push_back(options_.unk_id);
  }
}

Status UnigramModel::tokenize(std::string_view segment, bool at_start,
                              std::vector<int32_t>& ids) const {
  bool start_removed = false;
  std::vector<Piece> pieces = {{normalize(segment, options_.normalizer, &start_removed), 0}};
  if (options_.whitespace_split) pieces = whitespace_split(pieces);
  if (options_.metaspace) {
    const std::string& r = options_.replacement;
    std::vector<Piece> split;
    for (Piece& piece : pieces) {
      std::string text;
      for (char c : piece.text) {
        if (c == ' ')
          text += r;
        else
          text += c;
      }
      const bool starts_with_r = text.compare(0, r.size(), r) == 0;
      if (!starts_with_r && (options_.prepend == PrependScheme::kAlways ||
                             (options_.prepend == PrependScheme::kFirst && at_start &&
                              !start_removed && piece.offset == 0)))
        text.insert(0, r);
      if (!options_.split) {
        split.push_back({std::move(text), piece.offset});
        continue;
      }
      // Before each replacement (MergedWithNext): "▁a▁▁b" → "▁a" "▁" "▁b".
      size_t from = 0;
      for (size_t at = text.find(r, 1); at != std::string::npos; at = text.find(r, at + r.size())) {
        if (at > from) split.push_back({text.substr(from, at - from), 0});
        from = at;
      }
      if (from < text.size()) split.push_back({text.substr(from), 0});
    }
    pieces = std::move(split);
  }
  for (const Piece& piece : pieces) encode_piece(piece.text, ids);
  return Status::ok();
}

void UnigramModel::serialize(ByteWriter& out) const {
  write_normalizer_steps(out, options_.normalizer);
  out.u8(static_cast<uint8_t>(options_.whitespace_split | options_.metaspace << 1 |
                              options_.split << 2 | options_.byte_fallback << 3));
  out.str(options_.replacement);
  out.u8(static_cast<uint8_t>(options_.prepend));
  out.i32(options_.unk_id);
  out.u32(static_cast<uint32_t>(pieces_.size()));
  for (const auto& [text, score] : pieces_) {
    out.str(text);
    out.f64(score);
  }
}

Expected<UnigramModel> UnigramModel::deserialize(ByteReader& in) {
  const size_t start = in.offset();
  UnigramOptions options;
  options.normalizer = read_normalizer_steps(in);
  const size_t flags_at = in.offset();
  const uint8_t flags = in.u8("Unigram flags");
  if (flags > 15) in.fail(flags_at, "unknown Unigram flags " + std::to_string(flags));
  options.whitespace_split = flags & 1;
  options.metaspace = flags & 2;
  options.split = flags & 4;
  options.byte_fallback = flags & 8;
  const size_t replacement_at = in.offset();
  options.replacement = in.str("Metaspace replacement");
  if (in.ok() && utf8_invalid_offset(options.replacement) != std::string_view::npos)
    in.fail(replacement_at, "Metaspace replacement is not UTF-8");
  const size_t prepend_at = in.offset();
  const uint8_t prepend = in.u8("Metaspace prepend scheme");
  if (prepend > 2) in.fail(prepend_at, "unknown prepend scheme " + std::to_string(prepend));
  options.prepend = static_cast<PrependScheme>(prepend);
  options.unk_id = in.i32("Unigram unk id");
  std::vector<std::pair<std::string, double>> pieces(in.count("Unigram piece count", 12));
  for (auto& [text, score] : pieces) {
    const size_t at = in.offset();
    text = in.str("Unigram piece");
    score = in.f64("Unigram score");
    if (!in.ok()) break;
    if (utf8_invalid_offset(text) != std::string_view::npos) in.fail(at, "piece is not UTF-8");
  }
  if (!in.ok()) return in.status();
  auto model = create(std::move(pieces), std::move(options), "Unigram");
  if (!model) in.fail(start, model.status().message());
  if (!in.ok()) return in.status();
  return model;
}

}  // namespace normrt::text
