#include "tools/text/normalizer_steps.h"

#include <utf8proc.h>

#include <cstdlib>

#include "tools/text/unicode_class.h"
#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

std::string replace_all(std::string_view text, std::string_view pattern, std::string_view content) {
  if (pattern.empty()) return std::string(text);
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(pattern); at != std::string_view::npos;
       at = text.find(pattern, from)) {
    out.append(text.substr(from, at - from));
    out.append(content);
    from = at + pattern.size();
  }
  out.append(text.substr(from));
  return out;
}

std::string replace_space_runs(std::string_view text, std::string_view content) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    size_t end = i;
    while (end < text.size() && text[end] == ' ') ++end;
    if (end - i >= 2) {
      out.append(content);
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string strip(std::string_view text, bool left, bool right) {
  std::u32string cps = utf8_decode(text);
  size_t begin = 0, end = cps.size();
  if (left)
    while (begin < end && is_white_space(cps[begin])) ++begin;
  if (right)
    while (end > begin && is_white_space(cps[end - 1])) --end;
  std::string out;
  for (size_t i = begin; i < end; ++i) utf8_append(out, cps[i]);
  return out;
}

std::string utf8proc_transform(std::string_view text, int options) {
  utf8proc_uint8_t* mapped = nullptr;
  const utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                   static_cast<utf8proc_ssize_t>(text.size()), &mapped,
                   static_cast<utf8proc_option_t>(options | UTF8PROC_STABLE));
  if (n < 0) return std::string(text);  // not reached for valid UTF-8
  std::string out(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
  std::free(mapped);
  return out;
}

std::string lowercase(std::string_view text) {
  std::string out;
  for (char32_t c : utf8_decode(text))
    utf8_append(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
  return out;
}

// Whether `step` deletes the first character of `text` (non-empty): a strip,
// an empty replacement of a pattern at the start, or a charsmap rule to "".
bool deletes_first(std::string_view text, const NormalizerStep& step) {
  const char32_t first = utf8_decode(text.substr(0, 4))[0];
  switch (step.kind) {
    case NormalizerKind::kStripSpaces:
      return first == U' ';
    case NormalizerKind::kStrip:
      return step.left && is_white_space(first);
    case NormalizerKind::kReplaceLiteral:
    case NormalizerKind::kReplaceStart:
      return step.content.empty() && !step.pattern.empty() &&
             text.compare(0, step.pattern.size(), step.pattern) == 0;
    case NormalizerKind::kPrecompiled: {
      std::string encoded;
      utf8_append(encoded, first);
      return step.charsmap->normalize(encoded).empty();
    }
    default:
      return false;
  }
}

}  // namespace

std::string normalize(std::string_view text, const std::vector<NormalizerStep>& steps,
                      bool* start_removed) {
  std::string current(text);
  for (const NormalizerStep& step : steps) {
    if (start_removed != nullptr && !current.empty() && deletes_first(current, step))
      *start_removed = true;
    switch (step.kind) {
      case NormalizerKind::kPrecompiled:
        current = step.charsmap->normalize(current);
        break;
      case NormalizerKind::kReplaceLiteral:
        current = replace_all(current, step.pattern, step.content);
        break;
      case NormalizerKind::kReplaceSpaceRuns:
        current = replace_space_runs(current, step.content);
        break;
      case NormalizerKind::kStripSpaces: {
        size_t begin = current.find_first_not_of(' ');
        if (begin == std::string::npos) {
          current.clear();
        } else {
          current = current.substr(begin, current.find_last_not_of(' ') + 1 - begin);
        }
        break;
      }
      case NormalizerKind::kReplaceStart:
        if (!step.pattern.empty() && current.compare(0, step.pattern.size(), step.pattern) == 0)
          current = step.content + current.substr(step.pattern.size());
        break;
      case NormalizerKind::kStrip:
        current = strip(current, step.left, step.right);
        break;
      case NormalizerKind::kNfc:
        current = utf8proc_transform(current, UTF8PROC_COMPOSE);
        break;
      case NormalizerKind::kNfd:
        current = utf8proc_transform(current, UTF8PROC_DECOMPOSE);
        break;
      case NormalizerKind::kNfkc:
        current = utf8proc_transform(current, UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
        break;
      case NormalizerKind::kNfkd:
        current = utf8proc_transform(current, UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
        break;
      case NormalizerKind::kLowercase:
        current = lowercase(current);
        break;
    }
  }
  return current;
}

void write_normalizer_steps(ByteWriter& out, const std::vector<NormalizerStep>& steps) {
  out.u32(static_cast<uint32_t>(steps.size()));
  for (const NormalizerStep& step : steps) {
    out.u8(static_cast<uint8_t>(step.kind));
    out.str(step.pattern);
    out.str(step.content);
    out.u8(static_cast<uint8_t>(step.left | step.right << 1));
    out.str(step.charsmap ? step.charsmap->blob() : std::string());
  }
}

std::vector<NormalizerStep> read_normalizer_steps(ByteReader& in) {
  std::vector<NormalizerStep> steps(in.count("normalizer count", 14));
  for (NormalizerStep& step : steps) {
    const size_t at = in.offset();
    const uint8_t kind = in.u8("normalizer kind");
    step.pattern = in.str("normalizer pattern");
    step.content = in.str("normalizer content");
    const uint8_t flags = in.u8("normalizer flags");
    const size_t map_at = in.offset();
    const std::string charsmap = in.str("precompiled charsmap");
    if (!in.ok()) return {};
    if (kind < 1 || kind > static_cast<uint8_t>(NormalizerKind::kLowercase)) {
      in.fail(at, "unknown normalizer kind " + std::to_string(kind));
      return {};
    }
    if (flags > 3) in.fail(at, "unknown normalizer flags " + std::to_string(flags));
    for (const std::string* s : {&step.pattern, &step.content})
      if (utf8_invalid_offset(*s) != std::string_view::npos)
        in.fail(at, "normalizer pattern or content is not UTF-8");
    step.kind = static_cast<NormalizerKind>(kind);
    step.left = flags & 1;
    step.right = flags & 2;
    if (step.kind == NormalizerKind::kPrecompiled) {
      auto map = PrecompiledCharsmap::parse(charsmap);
      if (!map) {
        in.fail(map_at, map.status().message());
        return {};
      }
      step.charsmap = std::make_shared<const PrecompiledCharsmap>(std::move(map).value());
    }
  }
  return steps;
}

}  // namespace normrt::text
