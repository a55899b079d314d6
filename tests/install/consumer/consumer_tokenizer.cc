// The installed tokenizer API (normrt/tokenizer.hpp, libnormrt_tokenizer):
// loads a tokenizer folder and checks the single-text cases of a fixture
// (tests/tools/text/fixtures/<name>.cases: max_length TAB text-hex TAB "-"
// TAB ids TAB type ids). Built by find_package (normrt::tokenizer) and by
// pkg-config (normrt-tokenizer). Usage: consumer_tokenizer <folder> <cases>
#include <cstdio>
#include <fstream>
#include <normrt/tokenizer.hpp>
#include <sstream>
#include <string>
#include <vector>

#if __cplusplus < 201703L
#error "normrt::tokenizer did not bring C++17"
#endif

static std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto tokenizer = normrt::Tokenizer::from_folder(argv[1]);
  if (!tokenizer) {
    std::fprintf(stderr, "%s\n", tokenizer.status().message().c_str());
    return 1;
  }
  // The fixture's max_length 0 is "no truncation".
  if (!tokenizer.value().set_max_length(0)) return 1;
  std::ifstream in(argv[2]);
  size_t checked = 0, wrong = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string max_length, text, second, ids;
    std::getline(fields, max_length, '\t');
    std::getline(fields, text, '\t');
    std::getline(fields, second, '\t');
    std::getline(fields, ids, '\t');
    if (second != "-" || max_length != "0") continue;  // single texts, untruncated
    std::vector<int32_t> expected;
    std::istringstream id_stream(ids);
    for (int32_t id; id_stream >> id;) expected.push_back(id);
    auto got = tokenizer.value().encode(from_hex(text));
    ++checked;
    if (!got || got.value().ids != expected) ++wrong;
  }
  std::printf("consumer_tokenizer: %s: %zu cases, %zu wrong\n",
              std::string(tokenizer.value().kind()).c_str(), checked, wrong);
  return checked > 0 && wrong == 0 ? 0 : 1;
}
