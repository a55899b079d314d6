#include "tests/tools/text/tokenizer_cases.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "tests/support/hex.h"

namespace normrt::text {
namespace {

std::vector<int32_t> parse_ids(const std::string& text) {
  std::vector<int32_t> ids;
  std::istringstream stream(text);
  for (int32_t id; stream >> id;) ids.push_back(id);
  return ids;
}

}  // namespace

std::vector<TokenizerCase> read_cases(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot open " << path);
  std::vector<TokenizerCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string max_length, first, second, ids, type_ids;
    std::getline(fields, max_length, '\t');
    std::getline(fields, first, '\t');
    std::getline(fields, second, '\t');
    std::getline(fields, ids, '\t');
    std::getline(fields, type_ids, '\t');
    TokenizerCase c;
    c.max_length = std::stoul(max_length);
    c.first = test::decode_hex(first);
    c.second = test::decode_hex_or_none(second);
    c.ids = parse_ids(ids);
    c.type_ids = parse_ids(type_ids);
    std::getline(fields, c.reference);
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string ids_text(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) out += std::to_string(id) + " ";
  return out;
}

size_t check_cases(Tokenizer tokenizer, const std::vector<TokenizerCase>& cases,
                   const std::string& name) {
  size_t matched = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const TokenizerCase& c = cases[i];
    REQUIRE(tokenizer.set_max_length(c.max_length).is_ok());
    auto got = c.second ? tokenizer.encode_pair(c.first, *c.second) : tokenizer.encode(c.first);
    REQUIRE_MESSAGE(got.is_ok(), name << " case " << i << ": " << got.status().message());
    const bool same = got.value().ids == c.ids && got.value().type_ids == c.type_ids;
    CHECK_MESSAGE(same, name << " case " << i << " '" << c.first << "'"
                             << (c.second ? " + '" + *c.second + "'" : std::string())
                             << " max_length " << c.max_length << "\n  got  "
                             << ids_text(got.value().ids) << "| " << ids_text(got.value().type_ids)
                             << "\n  want " << ids_text(c.ids) << "| " << ids_text(c.type_ids));
    matched += same;
  }
  return matched;
}

}  // namespace normrt::text
