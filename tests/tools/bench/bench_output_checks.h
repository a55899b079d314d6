#pragma once
// Checks of normrt-bench's outputs written from the documented schema
// (docs/bench.md), independent of the code that writes them.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace normrt::test {

std::string read_text(const std::string& path);

/// The JSON report: schema, machine and settings; per model S, rounds and
/// exactly the (norm × mode) variants asked for; per variant p50/p99 equal to
/// the nearest-rank percentiles of its own samples, min ≤ p50 ≤ p99 ≤ max,
/// shares in [0, 1] and equal to their node times over the total, node kinds
/// adding up to the total and the total ≤ the mean end-to-end latency, and
/// ratio_vs_layer_norm = p50 / LayerNorm's p50 in the same mode (or null).
void check_report(const nlohmann::json& report, const std::vector<std::string>& norms, bool unfused,
                  size_t rounds, size_t sequence_length);

/// An error message, or "" if `text` is well-formed XML: one root element,
/// every tag closed in order, attributes quoted, '<' and '&' only as markup
/// or entities.
std::string xml_problem(const std::string& text);

/// The SVG is well-formed, its root is <svg>, and it has one
/// <g class="series" data-variant="..."> per variant of the report, labelled
/// "<norm> fused" / "<norm> unfused", each with a bar per model.
void check_svg(const std::string& svg, const nlohmann::json& report);

}  // namespace normrt::test
