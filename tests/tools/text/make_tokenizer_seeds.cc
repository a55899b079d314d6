// Writes fuzz_tokenizer_bytes' seeds: each argument after the output folder
// (a tokenizer.json file or a model folder) loaded and serialized to
// <output>/<name>.nrtk. Run by hand (fuzz/make_tokenizer_seeds.py says how).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tools/text/tokenizer_folder.h"
#include "tools/text/tokenizer_json.h"
#include "tools/text/tokenizer_serialize.h"

int main(int argc, char** argv) {
  using namespace normrt::text;
  namespace fs = std::filesystem;
  if (argc < 3) {
    std::fprintf(stderr, "usage: make_tokenizer_seeds OUTPUT_DIR (tokenizer.json | FOLDER)...\n");
    return 2;
  }
  fs::create_directories(argv[1]);
  for (int i = 2; i < argc; ++i) {
    const fs::path input = argv[i];
    normrt::Expected<Tokenizer> tokenizer = normrt::Status::error("");
    if (fs::is_directory(input)) {
      auto loaded = load_tokenizer_folder(input.string());
      tokenizer = loaded ? normrt::Expected<Tokenizer>(loaded.value().tokenizer) : loaded.status();
    } else {
      auto text = read_text_file(input.string());
      tokenizer = text ? parse_tokenizer_json(text.value(), input.string()) : text.status();
    }
    if (!tokenizer) {
      std::fprintf(stderr, "%s\n", tokenizer.status().message().c_str());
      return 1;
    }
    const fs::path output = fs::path(argv[1]) / (input.stem().string() + ".nrtk");
    std::ofstream(output, std::ios::binary) << serialize(tokenizer.value());
    std::printf("%s\n", output.c_str());
  }
  return 0;
}
