#include "bench/linear_bench_summary.h"

#include <cstdio>
#include <set>
#include <tuple>

namespace normrt::bench {
namespace {

// Targets of the linear kernels (m = 1): see kernels/linear/linear.h.
constexpr double kFloorTarget = 1.1;  // gemv ÷ read floor, weights beyond L2
constexpr double kBf16Target = 0.55;  // bf16 ÷ f32 time, weights beyond L2

struct Key {
  std::string dtype;
  size_t k, n, m;
  bool operator<(const Key& o) const {
    return std::tie(dtype, k, n, m) < std::tie(o.dtype, o.k, o.n, o.m);
  }
  std::string shape() const { return std::to_string(k) + "x" + std::to_string(n); }
  std::string suffix() const { return dtype + "/" + shape() + "/" + std::to_string(m); }
};

// Parses "<impl>/<dtype>/<K>x<N>/<M>".
bool parse(const std::string& name, std::string* impl, Key* key) {
  char impl_buf[128], dtype_buf[16];
  size_t k, n, m;
  if (std::sscanf(name.c_str(), "%127[^/]/%15[^/]/%zux%zu/%zu", impl_buf, dtype_buf, &k, &n, &m) !=
      5) {
    return false;
  }
  *impl = impl_buf;
  *key = {dtype_buf, k, n, m};
  return true;
}

}  // namespace

void print_linear_summary(const LinearSummaryInput& in, std::ostream& out) {
  std::set<Key> keys;
  for (const auto& [name, time] : in.times) {
    std::string impl;
    Key key;
    if (parse(name, &impl, &key) && impl == "gemv") keys.insert(key);
  }
  if (keys.empty()) return;
  auto time_of = [&](const std::string& impl, const Key& key) -> double {
    auto it = in.times.find(impl + "/" + key.suffix());
    return it == in.times.end() ? 0.0 : it->second.cpu_ns;
  };
  auto ratio = [](double a, double b) -> std::string {
    if (a <= 0 || b <= 0) return "    -";
    char text[16];
    std::snprintf(text, sizeof text, "%5.2f", a / b);
    return text;
  };

  out << "\nLinear summary (CPU time per call, median of repetitions if run; bandwidth = packed "
         "weight bytes / time;\n"
         "  'L2+' = f32 weights beyond L2: both dtypes rotated through copies exceeding the L3)\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-5s %-10s %4s %4s %10s %8s %10s %9s %9s %9s  %s\n", "dtype",
                "KxN", "m", "L2+", "gemv_us", "GB/s", "floor_us", "gemv/flr", "dnnl/gemv",
                "bf16/f32", "oneDNN impl");
  out << line;
  int floor_pass = 0, floor_total = 0, bf16_pass = 0, bf16_total = 0, dnnl_pass = 0, dnnl_total = 0;
  for (const Key& key : keys) {
    const double gemv = time_of("gemv", key), floor = time_of("read_floor", key);
    const double dnnl = time_of("onednn_matmul", key);
    Key f32 = key;
    f32.dtype = "f32";
    const double gemv_f32 = key.dtype == "bf16" ? time_of("gemv", f32) : 0.0;
    auto bytes_it = in.weight_bytes.find(key.dtype + "/" + key.shape());
    const double bytes = bytes_it == in.weight_bytes.end() ? 0.0 : bytes_it->second;
    const bool beyond_l2 = in.beyond_l2.count(key.dtype + "/" + key.shape()) > 0;
    auto impl_it = in.onednn_impl.find(key.suffix());
    std::string marks;
    if (key.m == 1 && beyond_l2 && floor > 0) {
      const bool ok = gemv / floor <= kFloorTarget;
      floor_pass += ok;
      ++floor_total;
      if (!ok) marks += " FAIL(floor)";
    }
    if (key.m == 1 && dnnl > 0) {
      const bool ok = dnnl > gemv;
      dnnl_pass += ok;
      ++dnnl_total;
      if (!ok) marks += " FAIL(onednn faster)";
    }
    if (key.m == 1 && key.dtype == "bf16" && gemv_f32 > 0 && beyond_l2) {
      const bool ok = gemv / gemv_f32 <= kBf16Target;
      bf16_pass += ok;
      ++bf16_total;
      if (!ok) marks += " FAIL(bf16/f32)";
    }
    std::snprintf(line, sizeof line, "%-5s %-10s %4zu %4s %10.2f %8.1f %10.2f %9s %9s %9s  %s%s\n",
                  key.dtype.c_str(), key.shape().c_str(), key.m, beyond_l2 ? "yes" : "", gemv / 1e3,
                  gemv > 0 ? bytes / gemv : 0.0, floor / 1e3, ratio(gemv, floor).c_str(),
                  ratio(dnnl, gemv).c_str(), ratio(gemv, gemv_f32).c_str(),
                  impl_it == in.onednn_impl.end() ? "-" : impl_it->second.c_str(), marks.c_str());
    out << line;
  }
  out << "\nTargets (m = 1): gemv/floor <= " << kFloorTarget << " beyond L2: " << floor_pass << "/"
      << floor_total << " pass; faster than oneDNN: " << dnnl_pass << "/" << dnnl_total
      << " pass; bf16/f32 <= " << kBf16Target << " beyond L2: " << bf16_pass << "/" << bf16_total
      << " pass\n";
}

}  // namespace normrt::bench
