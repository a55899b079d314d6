// The replay driver of the fuzz targets (fuzz/fuzz_<name>.cc) without
// libFuzzer: every regular file of the directories named on the command line
// goes through LLVMFuzzerTestOneInput once, in name order. Built with the
// normal compiler (and under the sanitize preset), so the seed corpus and
// every crash reproducer of fuzz/regressions/ are re-run by CTest.
//
//   fuzz_replay_<name> <dir>...   exit 0 if every input ran; a bug aborts
//
// A directory that does not exist is skipped (fuzz/regressions/<name>/ until
// the target's first finding); no input at all is an error, so a wrong path
// cannot pass unnoticed. Each input is an exact-size heap copy, so a
// sanitizer sees a read one byte past its end.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

bool read_file(const std::filesystem::path& path, std::vector<uint8_t>* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  bytes->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const fs::path dir = argv[i];
    std::error_code error;
    if (!fs::is_directory(dir, error)) {
      std::printf("replay: %s: no such directory, skipped\n", dir.c_str());
      continue;
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::vector<uint8_t> bytes;
      if (!read_file(file, &bytes)) {
        std::fprintf(stderr, "replay: %s: cannot read\n", file.c_str());
        return 1;
      }
      std::printf("replay: %s (%zu bytes)\n", file.c_str(), bytes.size());
      std::fflush(stdout);  // the last name printed is the input that crashed
      // An exact-size array (a vector may hold spare capacity past the end);
      // non-null even when empty, as libFuzzer passes it.
      std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size()]);
      std::copy(bytes.begin(), bytes.end(), copy.get());
      LLVMFuzzerTestOneInput(copy.get(), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "replay: no input found in the directories given\n");
    return 1;
  }
  std::printf("replay: %zu inputs ran\n", replayed);
  return 0;
}
