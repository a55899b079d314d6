#include "tools/text/wordpiece_split.h"

#include <string>

namespace normrt::text {

void wordpiece_split(const WordPieceVocab& vocab, std::string_view word, std::string_view prefix,
                     size_t max_chars, int32_t unk, std::vector<int32_t>& ids) {
  // Piece boundaries are code point boundaries: byte offsets of each one.
  std::vector<size_t> starts;
  for (size_t i = 0; i < word.size(); ++i)
    if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() > max_chars) {
    ids.push_back(unk);
    return;
  }
  starts.push_back(word.size());

  const size_t first = ids.size();
  std::string candidate;
  for (size_t begin = 0; begin + 1 < starts.size();) {
    int32_t found = -1;
    size_t end = starts.size() - 1;
    for (; end > begin; --end) {  // longest first
      candidate.assign(begin > 0 ? prefix : std::string_view());
      candidate.append(word.substr(starts[begin], starts[end] - starts[begin]));
      found = vocab.find(candidate);
      if (found >= 0) break;
    }
    if (found < 0) {
      ids.resize(first);
      ids.push_back(unk);
      return;
    }
    ids.push_back(found);
    begin = end;
  }
}

}  // namespace normrt::text
