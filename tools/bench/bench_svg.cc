#include "tools/bench/bench_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tools/bench/append_format.h"

namespace normrt::bench {
namespace {

constexpr double kWidth = 960, kPanelHeight = 300, kLeft = 80, kRight = 20, kTop = 80;
constexpr double kPanelGap = 70, kLegendRow = 22;
const char* const kColors[] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52",
                               "#8172b3", "#937860", "#da8bc3", "#8c8c8c"};

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Round tick spacing (1, 2 or 5 × 10^k) giving about `ticks` intervals over `range`.
double tick_step(double range, int ticks) {
  const double raw = range / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

// One panel: an axis from `low` to `high`, bars from `base` to each value.
struct Panel {
  double top, low, high, base;
  double y(double value) const { return top + kPanelHeight * (1 - (value - low) / (high - low)); }
};

void draw_axes(std::string& out, const Panel& panel, const std::string& title,
               const std::string& y_label, const std::vector<std::string>& groups) {
  const double plot_width = kWidth - kLeft - kRight;
  append(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" font-weight=\"bold\">%s</text>\n",
         kLeft, panel.top - 12, escape(title).c_str());
  const double step = tick_step(panel.high - panel.low, 8);
  for (double v = std::ceil(panel.low / step) * step; v <= panel.high + step * 1e-9; v += step) {
    append(out,
           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>\n"
           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n",
           kLeft, panel.y(v), kLeft + plot_width, panel.y(v), kLeft - 6, panel.y(v) + 4,
           std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  append(out,
         "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n"
         "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
         kLeft, panel.top, kLeft, panel.top + kPanelHeight, kLeft, panel.y(panel.base),
         kLeft + plot_width, panel.y(panel.base));
  const double mid = panel.top + kPanelHeight / 2;
  append(out,
         "<text x=\"20\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
         "transform=\"rotate(-90 20 %.1f)\">%s</text>\n",
         mid, mid, escape(y_label).c_str());
  const double group_width = plot_width / double(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    append(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
           kLeft + group_width * (g + 0.5), panel.top + kPanelHeight + 18,
           escape(groups[g]).c_str());
  }
}

}  // namespace

std::string format_svg(const BenchReport& report) {
  std::vector<std::string> groups;
  for (const ModelResult& m : report.models) {
    groups.push_back(m.width != 0 ? "width " + std::to_string(m.width) : m.name);
  }
  const std::vector<VariantResult> no_variants;
  const std::vector<VariantResult>& series =
      report.models.empty() ? no_variants : report.models.front().variants;
  bool have_ratio = false;
  double max_ms = 0, low_ratio = 1, high_ratio = 1;
  for (const ModelResult& m : report.models) {
    for (const VariantResult& v : m.variants) {
      max_ms = std::max(max_ms, v.p50_ms);
      if (v.ratio_vs_layer_norm < 0) continue;
      have_ratio = true;
      low_ratio = std::min(low_ratio, v.ratio_vs_layer_norm);
      high_ratio = std::max(high_ratio, v.ratio_vs_layer_norm);
    }
  }
  const double ratio_pad = std::max(0.01, (high_ratio - low_ratio) * 0.15);
  const Panel latency{kTop, 0, max_ms > 0 ? max_ms * 1.08 : 1, 0};
  const Panel ratio{kTop + kPanelHeight + kPanelGap, low_ratio - ratio_pad, high_ratio + ratio_pad,
                    1};
  const size_t panels = have_ratio ? 2 : 1;
  const size_t legend_rows = (series.size() + 3) / 4;
  const double height = kTop + panels * (kPanelHeight + kPanelGap) + legend_rows * kLegendRow + 10;

  std::string out;
  append(out,
         "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
         "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
         "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
         kWidth, height, kWidth, height);
  const size_t s_len = report.models.empty() ? 0 : report.models.front().sequence_length;
  append(out, "<text x=\"%.1f\" y=\"24\" font-size=\"16\">%s</text>\n", kLeft,
         escape("normrt-bench: batch-1 latency per normalization (S = " + std::to_string(s_len) +
                ", isa " + report.machine.isa + ", " + report.machine.cpu_model + ")")
             .c_str());
  draw_axes(out, latency, "p50 latency", "p50 latency (ms)", groups);
  if (have_ratio) {
    draw_axes(out, ratio, "p50 relative to LayerNorm in the same mode (below 1: faster)",
              "p50 / LayerNorm p50", groups);
  }

  const double group_width = (kWidth - kLeft - kRight) / double(std::max<size_t>(1, groups.size()));
  const double bar = group_width * 0.8 / double(std::max<size_t>(1, series.size()));
  for (size_t s = 0; s < series.size(); ++s) {
    const VariantResult& key = series[s];
    const char* color = kColors[(s / (report.settings.unfused ? 2 : 1)) % 8];
    const char* opacity = key.fused ? "1" : "0.4";
    append(
        out,
        "<g class=\"series\" data-variant=\"%s\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\">\n",
        escape(key.label()).c_str(), color, opacity, color);
    for (size_t g = 0; g < report.models.size(); ++g) {
      if (s >= report.models[g].variants.size()) continue;
      const VariantResult& v = report.models[g].variants[s];
      const double x = kLeft + group_width * (g + 0.1) + bar * s;
      const double top = latency.y(v.p50_ms);
      append(out,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s, %s: p50 %.3f "
             "ms, p99 %.3f ms</title></rect>\n",
             x, top, bar * 0.9, latency.y(0) - top, escape(v.label()).c_str(),
             escape(groups[g]).c_str(), v.p50_ms, v.p99_ms);
      if (!have_ratio || v.ratio_vs_layer_norm < 0) continue;
      const double y0 = ratio.y(1), y1 = ratio.y(v.ratio_vs_layer_norm);
      append(out,
             "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s, %s: %.3f × "
             "LayerNorm</title></rect>\n",
             x, std::min(y0, y1), bar * 0.9, std::max(0.5, std::fabs(y1 - y0)),
             escape(v.label()).c_str(), escape(groups[g]).c_str(), v.ratio_vs_layer_norm);
    }
    const double legend_y = kTop + panels * (kPanelHeight + kPanelGap) + kLegendRow * (s / 4);
    const double legend_x = kLeft + (kWidth - kLeft - kRight) / 4 * double(s % 4);
    append(out,
           "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\"/>\n"
           "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#000000\" fill-opacity=\"1\" "
           "stroke=\"none\">%s</text>\n</g>\n",
           legend_x, legend_y - 11, legend_x + 20, legend_y, escape(key.label()).c_str());
  }
  out += "</svg>\n";
  return out;
}

}  // namespace normrt::bench
