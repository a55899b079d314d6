// Writes the .npy inputs of normrt-run's tests (tests/tools/run/CMakeLists.txt):
//   from the C API fixture's x (raw f32 [3, 48]): the same values as f32 and
//   f64 .npy (a run must print what the raw file gives), and broken variants
//   (a wrong shape, rank or dtype, a value beyond f32, NaN, Inf, a truncated
//   file); the tiny Llama prompt as i64 .npy, and one with an id beyond i32.
// usage: make_run_fixtures <c_api fixture dir> <output dir>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

// A version 1.0 .npy of `values` (bytes of `descr` elements) with `shape`.
bool write_npy(const std::string& path, const std::string& descr, const std::string& shape,
               const void* values, size_t bytes, size_t keep_bytes = SIZE_MAX) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file = "\x93NUMPY";
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(static_cast<const char*>(values), bytes);
  if (keep_bytes < file.size()) file.resize(keep_bytes);
  std::ofstream out(path, std::ios::binary);
  out.write(file.data(), static_cast<std::streamsize>(file.size()));
  return static_cast<bool>(out);
}

template <typename T>
bool write(const std::string& path, const std::string& descr, const std::string& shape,
           const std::vector<T>& values) {
  return write_npy(path, descr, shape, values.data(), values.size() * sizeof(T));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_run_fixtures <c_api fixture dir> <output dir>\n");
    return 2;
  }
  const std::string in = argv[1], out = std::string(argv[2]) + "/";
  std::ifstream raw(in + "/c_api_x.f32", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
  if (bytes.size() != 3 * 48 * 4) {
    std::fprintf(stderr, "%s/c_api_x.f32: expected 576 bytes, found %zu\n", in.c_str(),
                 bytes.size());
    return 1;
  }
  std::vector<float> x(144);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(x.data()));
  const std::vector<double> x64(x.begin(), x.end());

  std::vector<double> huge = x64;
  huge[5] = 1e39;
  std::vector<float> nan = x, inf = x;
  nan[2] = std::nanf("");
  inf[7] = -INFINITY;
  const std::vector<int32_t> x_as_i32(144, 1);
  const std::vector<int64_t> prompt = {3, 41, 7, 88, 12, 0, 96};
  std::vector<int64_t> beyond = prompt;
  beyond[1] = int64_t{1} << 40;

  bool ok = write(out + "x_f32.npy", "<f4", "(3, 48)", x) &&
            write(out + "x_f64.npy", "<f8", "(3, 48)", x64) &&
            write(out + "x_bad_shape.npy", "<f4", "(4, 36)", x) &&
            write(out + "x_rank1.npy", "<f4", "(144,)", x) &&
            write(out + "x_i32.npy", "<i4", "(3, 48)", x_as_i32) &&
            write(out + "x_huge_f64.npy", "<f8", "(3, 48)", huge) &&
            write(out + "x_nan.npy", "<f4", "(3, 48)", nan) &&
            write(out + "x_inf.npy", "<f4", "(3, 48)", inf) &&
            write_npy(out + "x_truncated.npy", "<f4", "(3, 48)", x.data(), 576, 64 + 100) &&
            write(out + "prompt_i64.npy", "<i8", "(7,)", prompt) &&
            write(out + "prompt_beyond_i32.npy", "<i8", "(7,)", beyond);
  if (!ok) {
    std::fprintf(stderr, "cannot write the fixtures in %s\n", out.c_str());
    return 1;
  }
  return 0;
}
