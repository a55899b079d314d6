// The normalization codec (runtime/graph/norm_attributes.h): the spellings
// are the model file format, so they are pinned here; encoding then decoding
// is the identity for every convention; bad spellings are refused naming the
// field.

#include <doctest/doctest.h>

#include <cfloat>
#include <string>
#include <vector>

#include "runtime/graph/norm_attributes.h"

namespace normrt {
namespace {

constexpr NormKind kKinds[] = {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm};

Node node_with(OpType op, std::vector<Attribute> attributes) {
  Node node;
  node.name = "n";
  node.op = op;
  node.attributes = std::move(attributes);
  return node;
}

bool same(const NormParams& a, const NormParams& b) {
  return a.kind == b.kind && a.eps == b.eps && a.eps_placement == b.eps_placement &&
         a.gain_convention == b.gain_convention && (a.kind != NormKind::kPRmsNorm || a.p == b.p);
}

const AttributeValue* find(const std::vector<Attribute>& attributes, const std::string& name) {
  for (const Attribute& a : attributes) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("norm_attributes") {
  // Model files store attribute names and values as text and ops as codes:
  // these spellings may never change.
  TEST_CASE("the spellings files hold are pinned") {
    CHECK(std::string(norm_kind_name(NormKind::kLayerNorm)) == "layer_norm");
    CHECK(std::string(norm_kind_name(NormKind::kRmsNorm)) == "rms_norm");
    CHECK(std::string(norm_kind_name(NormKind::kPRmsNorm)) == "prms_norm");
    CHECK(static_cast<int>(norm_op_type(NormKind::kLayerNorm)) == 1);
    CHECK(static_cast<int>(norm_op_type(NormKind::kRmsNorm)) == 2);
    CHECK(static_cast<int>(norm_op_type(NormKind::kPRmsNorm)) == 3);
    CHECK(std::string(eps_placement_name(EpsPlacement::kInsideSqrt)) == "inside_sqrt");
    CHECK(std::string(eps_placement_name(EpsPlacement::kAddedToRms)) == "added_to_rms");
    CHECK(std::string(gain_convention_name(GainConvention::kAsStored)) == "as_stored");
    CHECK(std::string(gain_convention_name(GainConvention::kOnePlus)) == "one_plus");
    CHECK(kDefaultNormEps == 1e-5);
  }

  TEST_CASE("every kind's names lead back to it: name, op, op kind") {
    for (NormKind kind : kKinds) {
      CAPTURE(norm_kind_name(kind));
      Expected<NormKind> parsed = norm_kind_from_name(norm_kind_name(kind));
      REQUIRE(parsed.is_ok());
      CHECK(*parsed == kind);
      REQUIRE(norm_kind_of_op(norm_op_type(kind)).has_value());
      CHECK(*norm_kind_of_op(norm_op_type(kind)) == kind);
      CHECK(std::string(norm_op_kind(norm_op_type(kind))) == norm_kind_name(kind));
    }
    for (OpType op : {OpType::kLinear, OpType::kFusedLinear, OpType::kConv2d, OpType::kGruCellBa}) {
      CHECK_FALSE(norm_kind_of_op(op).has_value());
      CHECK(norm_op_kind(op) == nullptr);
    }
    Expected<NormKind> bad = norm_kind_from_name("batch_norm");
    REQUIRE_FALSE(bad.is_ok());
    CHECK(bad.status().message().find("unknown norm 'batch_norm'") != std::string::npos);
    CHECK_FALSE(norm_kind_from_name("none").is_ok());  // "none" is not a kind
  }

  TEST_CASE("encoding then decoding is the identity, for norm ops and selectable norms") {
    for (NormKind kind : kKinds) {
      for (EpsPlacement placement : {EpsPlacement::kInsideSqrt, EpsPlacement::kAddedToRms}) {
        for (GainConvention gain : {GainConvention::kAsStored, GainConvention::kOnePlus}) {
          for (double eps : {0.0, 1e-12, 1e-5, 0.5}) {
            NormConfig config;
            config.kind = kind;
            config.eps = eps;
            config.eps_placement = placement;
            config.gain_convention = gain;
            config.p = kind == NormKind::kPRmsNorm ? 0.0625 : 0.0;
            CAPTURE(norm_kind_name(kind));
            CAPTURE(eps);
            const NormParams want = config.params();
            CHECK(want.eps == static_cast<float>(eps));

            Node norm_op = node_with(norm_op_type(kind), norm_attributes(config));
            Expected<NormParams> decoded = norm_params_from_attributes(norm_op, kind);
            REQUIRE_MESSAGE(decoded.is_ok(), decoded.status().message());
            CHECK(same(*decoded, want));

            std::vector<Attribute> selectable = norm_attributes(config);
            selectable.push_back(norm_selection_attribute(config));
            for (OpType op : {OpType::kFusedLinear, OpType::kConv2d, OpType::kLstmCell,
                              OpType::kGruCellBa, OpType::kGruRecurrenceCho}) {
              Expected<NormSelection> selection = node_norm(node_with(op, selectable));
              REQUIRE_MESSAGE(selection.is_ok(), selection.status().message());
              CHECK(selection->enabled);
              CHECK(same(selection->params, want));
            }
            Expected<NormSelection> from_op = node_norm(norm_op);
            REQUIRE(from_op.is_ok());
            CHECK(from_op->enabled);
            CHECK(same(from_op->params, want));
          }
        }
      }
    }
  }

  TEST_CASE("the attributes written are eps as a double, the names, and p for pRMSNorm only") {
    NormConfig config;
    config.eps = 1e-12;  // BERT's: kept exactly, not rounded to float
    std::vector<Attribute> written = norm_attributes(config);
    REQUIRE(written.size() == 3);
    CHECK(written[0].name == "eps");
    CHECK(std::get<double>(written[0].value) == 1e-12);
    CHECK(written[1].name == "eps_placement");
    CHECK(std::get<std::string>(written[1].value) == "inside_sqrt");
    CHECK(written[2].name == "gain_convention");
    CHECK(std::get<std::string>(written[2].value) == "as_stored");
    CHECK(find(written, "p") == nullptr);
    CHECK(find(written, "axes") == nullptr);

    config.kind = NormKind::kPRmsNorm;
    config.p = 0.25;
    written = norm_attributes(config, NormAxes::kSpatial);
    REQUIRE(find(written, "p") != nullptr);
    CHECK(std::get<double>(*find(written, "p")) == 0.25);
    REQUIRE(find(written, "axes") != nullptr);
    CHECK(std::get<std::string>(*find(written, "axes")) == "spatial");
    CHECK(std::get<std::string>(norm_selection_attribute(config).value) == "prms_norm");
    config.enabled = false;
    CHECK(std::get<std::string>(norm_selection_attribute(config).value) == "none");
    CHECK(find(norm_attributes(config), "p") == nullptr);  // none has no p
  }

  TEST_CASE("absent attributes decode to the defaults; no norm decodes to none") {
    Expected<NormParams> params =
        norm_params_from_attributes(node_with(OpType::kLayerNorm, {}), NormKind::kLayerNorm);
    REQUIRE(params.is_ok());
    CHECK(params->eps == static_cast<float>(kDefaultNormEps));
    CHECK(params->eps_placement == EpsPlacement::kInsideSqrt);
    CHECK(params->gain_convention == GainConvention::kAsStored);
    Expected<NormSelection> none = node_norm(node_with(OpType::kFusedLinear, {}));
    REQUIRE(none.is_ok());
    CHECK_FALSE(none->enabled);
    Expected<NormSelection> linear = node_norm(node_with(OpType::kLinear, {}));
    REQUIRE(linear.is_ok());
    CHECK_FALSE(linear->enabled);
  }

  TEST_CASE("config spellings are parsed once, errors naming the field") {
    Expected<NormConfig> none = norm_config_from_names("none", 1e-5, "inside_sqrt", "as_stored", 0);
    REQUIRE(none.is_ok());
    CHECK_FALSE(none->enabled);
    Expected<NormConfig> partial =
        norm_config_from_names("prms_norm", 1e-8, "added_to_rms", "one_plus", 0.125);
    REQUIRE(partial.is_ok());
    CHECK(partial->is(NormKind::kPRmsNorm));
    CHECK(partial->eps == 1e-8);
    CHECK(partial->eps_placement == EpsPlacement::kAddedToRms);
    CHECK(partial->gain_convention == GainConvention::kOnePlus);
    CHECK(partial->p == 0.125);

    struct Case {
      const char* norm;
      double eps;
      const char* placement;
      const char* gain;
      double p;
      const char* expected;
    };
    const Case cases[] = {
        {"batch_norm", 1e-5, "inside_sqrt", "as_stored", 0,
         "config: norm 'batch_norm' is not one of layer_norm, rms_norm, prms_norm, none"},
        {"rms_norm", 1e-5, "outside", "as_stored", 0, "config: eps_placement 'outside'"},
        {"rms_norm", 1e-5, "inside_sqrt", "two_plus", 0, "config: gain_convention 'two_plus'"},
        {"rms_norm", -1, "inside_sqrt", "as_stored", 0, "config: eps = -1.000000 must be finite"},
        {"rms_norm", 1e39, "inside_sqrt", "as_stored", 0, "must be finite and >= 0"},
        {"prms_norm", 1e-5, "inside_sqrt", "as_stored", 0,
         "config: p = 0.000000 must be in (0, 1]"},
        {"prms_norm", 1e-5, "inside_sqrt", "as_stored", 1.5, "must be in (0, 1] for prms_norm"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.expected);
      Expected<NormConfig> bad = norm_config_from_names(c.norm, c.eps, c.placement, c.gain, c.p);
      REQUIRE_FALSE(bad.is_ok());
      CHECK_MESSAGE(bad.status().message().find(c.expected) != std::string::npos,
                    bad.status().message());
    }
    CHECK(norm_eps_valid(0.0));
    CHECK(norm_eps_valid(FLT_MAX));
    CHECK_FALSE(norm_eps_valid(-1e-30));
    CHECK_FALSE(norm_eps_valid(static_cast<double>(FLT_MAX) * 2));
  }

  TEST_CASE("a fused op takes the norm's kind and convention, never its axes") {
    NormConfig config;
    config.kind = NormKind::kPRmsNorm;
    config.eps = 1e-6;
    config.p = 0.5;
    const Node norm = node_with(OpType::kPRmsNorm, norm_attributes(config, NormAxes::kSpatial));
    Node fused = node_with(OpType::kConv2d, {});
    copy_norm_attributes(norm, fused);
    CHECK(fused.find_attribute("axes") == nullptr);
    Expected<NormSelection> selection = node_norm(fused);
    REQUIRE(selection.is_ok());
    CHECK(selection->enabled);
    CHECK(same(selection->params, config.params()));
  }

  TEST_CASE("setting a kind writes p for pRMSNorm only and keeps the convention") {
    NormConfig config;
    config.gain_convention = GainConvention::kOnePlus;
    std::vector<Attribute> attributes = norm_attributes(config);
    attributes.push_back(norm_selection_attribute(config));
    set_norm_kind_attributes(attributes, NormKind::kPRmsNorm, 0.25, true);
    Node node = node_with(OpType::kFusedLinear, attributes);
    Expected<NormSelection> partial = node_norm(node);
    REQUIRE(partial.is_ok());
    CHECK(partial->params.kind == NormKind::kPRmsNorm);
    CHECK(partial->params.p == 0.25);
    CHECK(partial->params.gain_convention == GainConvention::kOnePlus);
    set_norm_kind_attributes(node.attributes, NormKind::kRmsNorm, 0.25, true);
    CHECK(node.find_attribute("p") == nullptr);
    set_gain_convention(node, GainConvention::kAsStored);
    Expected<NormSelection> rms = node_norm(node);
    REQUIRE(rms.is_ok());
    CHECK(rms->params.kind == NormKind::kRmsNorm);
    CHECK(rms->params.gain_convention == GainConvention::kAsStored);
  }
}

}  // namespace normrt
