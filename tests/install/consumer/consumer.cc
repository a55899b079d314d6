// Loads a model with the installed C++ API, runs it on a raw float32 input
// file and compares with the expected output file. Usage:
//   consumer_cpp <model> <input.f32> <expected.f32>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <normrt/normrt.hpp>
#include <vector>

// The consumer's CMakeLists asks for C++11: normrt::normrt must raise it.
#if __cplusplus < 201703L
#error "normrt::normrt did not bring C++17 (target_compile_features INTERFACE cxx_std_17)"
#endif

static std::vector<float> read_floats(const char* path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::vector<float> values(bytes.size() / sizeof(float));
  std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(float),
            reinterpret_cast<char*>(values.data()));
  return values;
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  auto model = normrt::Model::load(argv[1]);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.status().message().c_str());
    return 1;
  }
  auto session = normrt::Session::create(model.value());
  std::vector<float> x = read_floats(argv[2]), expected = read_floats(argv[3]);
  const auto& input = model.value()->inputs().at(0);
  if (!session || !session.value()->set_input(input.name, x.data(), x.size() * 4) ||
      !session.value()->run()) {
    std::fprintf(stderr, "run failed\n");
    return 1;
  }
  auto out = session.value()->output(model.value()->outputs().at(0).name);
  if (!out || out->elements() != expected.size()) return 1;
  double worst = 0;  // NaN once an output is NaN: std::fmax would drop it and pass
  for (size_t i = 0; i < expected.size() && !std::isnan(worst); ++i) {
    const double error = std::fabs(out->f32()[i] - expected[i]);
    worst = std::isnan(error) ? error : std::fmax(worst, error);
  }
  std::printf("consumer_cpp: %zu outputs, isa %s, worst error %.3g\n", expected.size(),
              std::string(model.value()->isa()).c_str(), worst);
  return worst <= 1e-4 ? 0 : 1;
}
