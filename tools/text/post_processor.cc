#include "tools/text/post_processor.h"

#include <string>

namespace normrt::text {

size_t PostProcessor::added(const std::vector<TemplatePiece>& pieces) {
  size_t n = 0;
  for (const TemplatePiece& piece : pieces) n += piece.special_id >= 0;
  return n;
}

PostProcessor PostProcessor::bert(int32_t cls, int32_t sep) {
  return {{{cls, 0, 0}, {-1, 0, 0}, {sep, 0, 0}},
          {{cls, 0, 0}, {-1, 0, 0}, {sep, 0, 0}, {-1, 1, 1}, {sep, 0, 1}}};
}

PostProcessor PostProcessor::roberta(int32_t cls, int32_t sep) {
  return {{{cls, 0, 0}, {-1, 0, 0}, {sep, 0, 0}},
          {{cls, 0, 0}, {-1, 0, 0}, {sep, 0, 0}, {sep, 0, 0}, {-1, 1, 0}, {sep, 0, 0}}};
}

PostProcessor PostProcessor::none() { return {{{-1, 0, 0}}, {{-1, 0, 0}, {-1, 1, 1}}}; }

namespace {

void write_template(ByteWriter& out, const std::vector<TemplatePiece>& pieces) {
  out.u32(static_cast<uint32_t>(pieces.size()));
  for (const TemplatePiece& piece : pieces) {
    out.i32(piece.special_id);
    out.u8(piece.sequence);
    out.i32(piece.type_id);
  }
}

std::vector<TemplatePiece> read_template(ByteReader& in, size_t vocab_size, bool pair) {
  const char* what = pair ? "pair template" : "single template";
  std::vector<TemplatePiece> pieces(in.count(what, 9));
  bool seen[2] = {false, false};
  for (TemplatePiece& piece : pieces) {
    const size_t at = in.offset();
    piece.special_id = in.i32(what);
    piece.sequence = in.u8(what);
    piece.type_id = in.i32(what);
    if (!in.ok()) return {};
    if (piece.special_id >= 0 && static_cast<size_t>(piece.special_id) >= vocab_size)
      in.fail(at, std::string(what) + ": special id " + std::to_string(piece.special_id) +
                      " outside the vocabulary of " + std::to_string(vocab_size));
    if (piece.special_id < -1) in.fail(at, std::string(what) + ": negative special id");
    if (piece.sequence > (pair ? 1 : 0)) {
      in.fail(at, std::string(what) + ": sequence " + std::to_string(piece.sequence));
      return {};
    }
    if (piece.type_id < 0 || piece.type_id > 255)
      in.fail(at, std::string(what) + ": type id " + std::to_string(piece.type_id));
    if (piece.special_id < 0) {
      if (seen[piece.sequence]) in.fail(at, std::string(what) + ": a sequence appears twice");
      seen[piece.sequence] = true;
    }
  }
  if (in.ok() && (!seen[0] || (pair && !seen[1])))
    in.fail(in.offset(), std::string(what) + " lacks a sequence");
  return pieces;
}

}  // namespace

void write_post_processor(ByteWriter& out, const PostProcessor& post) {
  write_template(out, post.single);
  write_template(out, post.pair);
}

PostProcessor read_post_processor(ByteReader& in, size_t vocab_size) {
  PostProcessor post;
  post.single = read_template(in, vocab_size, false);
  post.pair = read_template(in, vocab_size, true);
  return post;
}

}  // namespace normrt::text
