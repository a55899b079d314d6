#include "tools/text/byte_to_unicode.h"

#include <array>

#include "tools/text/utf8.h"

namespace normrt::text {
namespace {

bool maps_to_itself(unsigned b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Table {
  std::array<char32_t, 256> code_points;
  std::array<std::string, 256> utf8;
  Table() {
    char32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) {
      code_points[b] = maps_to_itself(b) ? b : next++;
      utf8_append(utf8[b], code_points[b]);
    }
  }
};

const Table& table() {
  static const Table instance;
  return instance;
}

}  // namespace

char32_t byte_to_unicode(unsigned char byte) { return table().code_points[byte]; }
const std::string& byte_to_unicode_utf8(unsigned char byte) { return table().utf8[byte]; }

}  // namespace normrt::text
