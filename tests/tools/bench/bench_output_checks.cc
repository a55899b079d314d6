#include "bench_output_checks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

namespace normrt::test {
namespace {

// The smallest sample with at least q of them at or below it.
double nearest_rank(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  for (size_t i = 0; i < samples.size(); ++i) {
    if (double(i + 1) >= q * double(samples.size())) return samples[i];
  }
  return samples.back();
}

size_t count_of(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

}  // namespace

std::string read_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  REQUIRE_MESSAGE(file.good(), "cannot read ", path);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void check_report(const nlohmann::json& report, const std::vector<std::string>& norms, bool unfused,
                  size_t rounds, size_t sequence_length) {
  REQUIRE(report["schema"] == "normrt-bench/1");
  CHECK_FALSE(report["machine"]["isa"].get<std::string>().empty());
  CHECK_FALSE(report["machine"]["cpu_model"].get<std::string>().empty());
  CHECK(report["machine"]["logical_cpus"].get<size_t>() >= 1);
  CHECK(report["settings"]["runs"] == rounds);
  CHECK(report["settings"]["unfused"] == unfused);
  CHECK(report["settings"]["norms"].get<std::vector<std::string>>() == norms);
  CHECK(report["elapsed_seconds"].get<double>() > 0);
  REQUIRE(report["models"].size() >= 1);

  for (const nlohmann::json& model : report["models"]) {
    CAPTURE(model["name"].get<std::string>());
    CHECK(model["sequence_length"] == sequence_length);
    CHECK(model["rounds"] == rounds);
    CHECK(model["stopped_by_time_budget"] == false);
    CHECK(model["isa"] == report["machine"]["isa"]);
    std::set<std::pair<std::string, bool>> expected, found;
    for (const std::string& norm : norms) {
      expected.insert({norm, true});
      if (unfused) expected.insert({norm, false});
    }
    std::map<bool, double> layer_norm_p50;
    for (const nlohmann::json& v : model["variants"]) {
      found.insert({v["label"].get<std::string>(), v["fused"].get<bool>()});
      if (v["norm"] == "layer_norm")
        layer_norm_p50[v["fused"].get<bool>()] = v["latency_ms"]["p50"];
    }
    CHECK(found == expected);
    REQUIRE(model["variants"].size() == expected.size());  // no duplicates

    for (const nlohmann::json& v : model["variants"]) {
      CAPTURE(v["label"].get<std::string>());
      CAPTURE(v["fused"].get<bool>());
      const auto samples = v["samples_ms"].get<std::vector<double>>();
      REQUIRE(samples.size() == rounds);
      CHECK(v["runs"] == rounds);
      const nlohmann::json& latency = v["latency_ms"];
      const double p50 = latency["p50"], p99 = latency["p99"];
      CHECK(p50 == nearest_rank(samples, 0.5));
      CHECK(p99 == nearest_rank(samples, 0.99));
      CHECK(latency["min"].get<double>() > 0);
      CHECK(latency["min"].get<double>() <= p50);
      CHECK(p50 <= p99);
      CHECK(p99 <= latency["max"].get<double>());
      const double mean = latency["mean"];
      CHECK(mean >= latency["min"].get<double>());
      CHECK(mean <= latency["max"].get<double>());

      const nlohmann::json& t = v["node_ms_per_run"];
      const double total = t["total"];
      const double sum = t["linear"].get<double>() + t["fused_linear"].get<double>() +
                         t["fused_with_norm"].get<double>() + t["attention"].get<double>() +
                         t["norm"].get<double>() + t["other"].get<double>();
      CHECK(total > 0);
      CHECK(sum == doctest::Approx(total).epsilon(1e-9));
      CHECK(total <= mean * (1 + 1e-9));  // node times are measured inside each run
      const double norm_share = v["norm_share"], fused_share = v["fused_with_norm_share"];
      CHECK(norm_share >= 0);
      CHECK(norm_share <= 1);
      CHECK(fused_share >= 0);
      CHECK(fused_share <= 1);
      CHECK(norm_share == doctest::Approx(t["norm"].get<double>() / total));
      CHECK(fused_share == doctest::Approx(t["fused_with_norm"].get<double>() / total));
      CHECK(v["nodes"]["total"].get<size_t>() >=
            v["nodes"]["norm"].get<size_t>() + v["nodes"]["fused_with_norm"].get<size_t>());
      CHECK((v["norm"] == "prms_norm") == v["p"].is_number());

      const bool fused = v["fused"];
      if (layer_norm_p50.count(fused) != 0) {
        CHECK(v["ratio_vs_layer_norm"].get<double>() ==
              doctest::Approx(p50 / layer_norm_p50[fused]));
      } else {
        CHECK(v["ratio_vs_layer_norm"].is_null());
      }
    }
  }
}

std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  size_t roots = 0;
  auto bad_amp = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      if (text[i] != '&') continue;
      const size_t semi = text.find(';', i);
      if (semi == std::string::npos || semi > to || semi == i + 1) return true;
      for (size_t j = i + 1; j < semi; ++j) {
        if (!std::isalnum(static_cast<unsigned char>(text[j])) && text[j] != '#') return true;
      }
    }
    return false;
  };
  size_t at = 0;
  while (at < text.size()) {
    const size_t lt = text.find('<', at);
    const size_t text_end = lt == std::string::npos ? text.size() : lt;
    if (bad_amp(at, text_end)) return "a bare '&' in text near byte " + std::to_string(at);
    if (text.find('>', at) < text_end) return "a bare '>' in text near byte " + std::to_string(at);
    if (lt == std::string::npos) break;
    if (text.compare(lt, 5, "<?xml") == 0) {
      const size_t end = text.find("?>", lt);
      if (end == std::string::npos || lt != 0) return "a bad XML declaration";
      at = end + 2;
      continue;
    }
    if (text.compare(lt, 4, "<!--") == 0) {
      const size_t end = text.find("-->", lt);
      if (end == std::string::npos) return "an unterminated comment";
      at = end + 3;
      continue;
    }
    // A tag: scan to its '>' outside quoted attribute values.
    size_t i = lt + 1;
    char quote = 0;
    for (; i < text.size(); ++i) {
      if (quote != 0) {
        if (text[i] == quote)
          quote = 0;
        else if (text[i] == '<')
          return "a '<' inside an attribute value at byte " + std::to_string(i);
      } else if (text[i] == '"' || text[i] == '\'') {
        quote = text[i];
      } else if (text[i] == '>') {
        break;
      } else if (text[i] == '<') {
        return "a '<' inside a tag at byte " + std::to_string(i);
      }
    }
    if (i >= text.size()) return "an unterminated tag at byte " + std::to_string(lt);
    std::string tag = text.substr(lt + 1, i - lt - 1);
    if (bad_amp(lt, i)) return "a bare '&' in tag <" + tag + ">";
    at = i + 1;
    const bool closing = !tag.empty() && tag[0] == '/';
    const bool empty = !tag.empty() && tag.back() == '/';
    const std::string body = closing ? tag.substr(1) : empty ? tag.substr(0, tag.size() - 1) : tag;
    const std::string name = body.substr(0, body.find_first_of(" \t\n/"));
    if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
      return "a tag without a name at byte " + std::to_string(lt);
    }
    // Attributes: name="value" pairs.
    const std::string attributes = closing ? "" : body.substr(name.size());
    size_t a = 0;
    while (a < attributes.size()) {
      if (std::isspace(static_cast<unsigned char>(attributes[a]))) {
        ++a;
        continue;
      }
      const size_t eq = attributes.find('=', a);
      if (eq == std::string::npos || eq + 1 >= attributes.size() ||
          (attributes[eq + 1] != '"' && attributes[eq + 1] != '\'')) {
        return "an unquoted attribute in <" + name + ">";
      }
      const size_t close = attributes.find(attributes[eq + 1], eq + 2);
      if (close == std::string::npos) return "an unterminated attribute in <" + name + ">";
      a = close + 1;
    }
    if (closing) {
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes " +
               (open.empty() ? std::string("nothing") : "<" + open.back() + ">");
      }
      open.pop_back();
    } else {
      if (open.empty()) ++roots;
      if (!empty) open.push_back(name);
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

void check_svg(const std::string& svg, const nlohmann::json& report) {
  const std::string problem = xml_problem(svg);
  INFO("SVG problem: ", problem);
  REQUIRE(problem.empty());
  const size_t root = svg.find("<svg ");
  REQUIRE(root != std::string::npos);
  CHECK(svg.find('<', svg.find("?>") + 2) == root);  // <svg> is the root element
  const nlohmann::json& variants = report["models"][0]["variants"];
  CHECK(count_of(svg, "class=\"series\"") == variants.size());
  for (const nlohmann::json& v : variants) {
    const std::string label = v["label"].get<std::string>() + (v["fused"] ? " fused" : " unfused");
    CAPTURE(label);
    const size_t series = svg.find("data-variant=\"" + label + "\"");
    REQUIRE(series != std::string::npos);
    const size_t end = svg.find("</g>", series);
    // A bar per model (and one more per model in the ratio panel), plus the legend key.
    CHECK(count_of(svg.substr(series, end - series), "<rect ") >= report["models"].size() + 1);
  }
}

}  // namespace normrt::test
