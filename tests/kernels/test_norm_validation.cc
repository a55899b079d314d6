// Invalid arguments are rejected by norm_validate() and by norm(), with a
// message that names the offending argument (as a whole word, so "n" is not
// satisfied by the "n" in "stride"). Valid aliasing is accepted.

#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "tests/kernels/norm_test_support.h"

namespace normrt::testing {
namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// True if `word` occurs in `text` not embedded in a longer identifier.
bool names_word(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool starts = at == 0 || !is_identifier_char(text[at - 1]);
    const size_t end = at + word.size();
    const bool ends = end == text.size() || !is_identifier_char(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

// Two rows of n = 16 with every operand present and valid; tests break one thing.
struct Operands {
  static constexpr size_t kRows = 2, kN = 16;
  std::vector<float> src = std::vector<float>(kRows * kN + 8, 1.0f);
  std::vector<float> dst = std::vector<float>(kRows * kN + 8, 0.0f);
  std::vector<float> residual = std::vector<float>(kRows * kN, 0.5f);
  std::vector<float> sum = std::vector<float>(kRows * kN, 0.0f);
  std::vector<float> gain = std::vector<float>(kN, 1.0f);
  std::vector<float> bias = std::vector<float>(kN, 0.0f);
  NormParams params;
  NormRows rows;

  Operands() {
    src[1] = 2.0f;  // not a constant row
    rows.rows = kRows;
    rows.n = kN;
    rows.src = src.data();
    rows.src_stride = kN;
    rows.dst = dst.data();
    rows.dst_stride = kN;
    rows.gain = gain.data();
    rows.bias = bias.data();
    rows.residual = residual.data();
    rows.residual_stride = kN;
    rows.sum_dst = sum.data();
    rows.sum_stride = kN;
  }
};

// Both entry points must refuse, naming one of `names`. norm() is only called
// once norm_validate() has refused, so a validation gap cannot crash the run.
void check_rejected(const NormParams& params, const NormRows& rows,
                    std::initializer_list<const char*> names) {
  const Status validated = norm_validate(params, rows);
  REQUIRE_MESSAGE(!validated.is_ok(), "norm_validate accepted it");
  const auto names_one = [&names](const std::string& message) {
    for (const char* name : names) {
      if (names_word(message, name)) return true;
    }
    return false;
  };
  std::string wanted;
  for (const char* name : names)
    wanted += std::string(wanted.empty() ? "" : " or ") + "'" + name + "'";
  CHECK_MESSAGE(names_one(validated.message()), "norm_validate's message \"" << validated.message()
                                                                             << "\" does not name "
                                                                             << wanted);
  const Status ran = norm(params, rows);
  REQUIRE_MESSAGE(!ran.is_ok(), "norm accepted it");
  CHECK_MESSAGE(names_one(ran.message()),
                "norm's message \"" << ran.message() << "\" does not name " << wanted);
}

void check_accepted(const NormParams& params, const NormRows& rows) {
  const Status validated = norm_validate(params, rows);
  CHECK_MESSAGE(validated.is_ok(), "norm_validate rejected it: " << validated.message());
}

}  // namespace

TEST_SUITE("validation") {
  TEST_CASE("the valid operands used below are accepted") {
    Operands o;
    check_accepted(o.params, o.rows);
    o.params.kind = NormKind::kPRmsNorm;
    o.params.p = 0.25;
    check_accepted(o.params, o.rows);
  }

  TEST_CASE("n = 0 is rejected naming n") {
    Operands o;
    o.rows.n = 0;
    check_rejected(o.params, o.rows, {"n"});
  }

  TEST_CASE("p outside (0, 1] is rejected naming p") {
    for (double p : {0.0, -0.5, 1.5, static_cast<double>(NAN)}) {
      CAPTURE(p);
      Operands o;
      o.params.kind = NormKind::kPRmsNorm;
      o.params.p = p;
      check_rejected(o.params, o.rows, {"p"});
    }
  }

  TEST_CASE("p is ignored by layer_norm and rms_norm") {
    for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm}) {
      Operands o;
      o.params.kind = kind;
      o.params.p = 1.5;
      check_accepted(o.params, o.rows);
    }
  }

  TEST_CASE("p with floor(p·n) = 0 is rejected naming p") {
    Operands o;
    o.params.kind = NormKind::kPRmsNorm;
    o.params.p = 0.1;
    o.rows.n = 5;
    o.rows.rows = 1;
    check_rejected(o.params, o.rows, {"p", "p"});
  }

  TEST_CASE("negative or NaN eps is rejected naming eps") {
    for (float eps : {-1e-5f, NAN}) {
      CAPTURE(eps);
      Operands o;
      o.params.eps = eps;
      check_rejected(o.params, o.rows, {"eps"});
    }
  }

  TEST_CASE("null src or dst is rejected naming it") {
    Operands o;
    o.rows.src = nullptr;
    check_rejected(o.params, o.rows, {"src"});
    Operands p;
    p.rows.dst = nullptr;
    check_rejected(p.params, p.rows, {"dst"});
  }

  TEST_CASE("a stride shorter than n with several rows is rejected naming the stride") {
    {
      Operands o;
      o.rows.src_stride = Operands::kN - 1;
      check_rejected(o.params, o.rows, {"src_stride"});
    }
    {
      Operands o;
      o.rows.dst_stride = Operands::kN - 1;
      check_rejected(o.params, o.rows, {"dst_stride"});
    }
    {
      Operands o;
      o.rows.residual_stride = Operands::kN - 1;
      check_rejected(o.params, o.rows, {"residual_stride"});
    }
    {
      Operands o;
      o.rows.sum_stride = Operands::kN - 1;
      check_rejected(o.params, o.rows, {"sum_stride"});
    }
  }

  TEST_CASE("a single row needs no stride") {
    Operands o;
    o.rows.rows = 1;
    o.rows.src_stride = o.rows.dst_stride = o.rows.residual_stride = o.rows.sum_stride = 0;
    check_accepted(o.params, o.rows);
  }

  TEST_CASE("the 1 + g gain convention without a gain is rejected naming the gain") {
    Operands o;
    o.params.gain_convention = GainConvention::kOnePlus;
    o.rows.gain = nullptr;
    check_rejected(o.params, o.rows, {"gain", "gain_convention"});
  }

  TEST_CASE("sum_dst equal to dst is rejected naming sum_dst") {
    Operands o;
    o.rows.sum_dst = o.rows.dst;
    o.rows.sum_stride = o.rows.dst_stride;
    check_rejected(o.params, o.rows, {"sum_dst"});
  }

  TEST_CASE("partially overlapping operands are rejected naming them") {
    {
      Operands o;  // dst starts one float into src
      o.rows.dst = o.src.data() + 1;
      check_rejected(o.params, o.rows, {"dst", "src"});
    }
    {
      Operands o;  // dst == src, but the rows step differently
      o.rows.dst = o.src.data();
      o.rows.dst_stride = Operands::kN + 1;
      check_rejected(o.params, o.rows, {"dst", "src", "dst_stride", "src_stride"});
    }
    {
      Operands o;  // sum_dst starts one float into src
      o.rows.sum_dst = o.src.data() + 1;
      check_rejected(o.params, o.rows, {"sum_dst", "src"});
    }
  }

  TEST_CASE("the documented aliasing is accepted") {
    {
      Operands o;  // dst == src
      o.rows.dst = o.src.data();
      check_accepted(o.params, o.rows);
    }
    {
      Operands o;  // sum_dst == src
      o.rows.sum_dst = o.src.data();
      check_accepted(o.params, o.rows);
    }
    {
      Operands o;  // sum_dst == residual, dst == src
      o.rows.sum_dst = o.residual.data();
      o.rows.dst = o.src.data();
      check_accepted(o.params, o.rows);
    }
  }

  TEST_CASE("norm_stat_count is n, or floor(p·n) for prms_norm") {
    for (size_t n = 1; n <= 300; ++n) {
      for (double p : {1.0 / 16, 0.1, 0.25, 1.0 / 3, 0.5, 2.0 / 3, 0.9, 1.0}) {
        for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm}) {
          NormParams params;
          params.kind = kind;
          params.p = p;
          const size_t want = oracle_stat_count(params, n);
          if (want == 0) continue;
          const size_t got = norm_stat_count(params, n);
          if (got != want) {
            FAIL_CHECK(kind_name(kind) << " n=" << n << " p=" << p << ": norm_stat_count gave "
                                       << got << ", want " << want);
          }
        }
      }
    }
  }

  // What a plan checks once per node: the parameters for a row length,
  // without buffers. It must refuse exactly what norm_validate() refuses for
  // the parameters, with the same message, and accept every valid one.
  TEST_CASE("norm_params_validate refuses the parameter errors norm_validate refuses") {
    struct Case {
      const char* what;
      NormParams params;
      size_t n;
      bool has_gain;
      const char* names;
    };
    auto params = [](NormKind kind, float eps, double p, GainConvention gain) {
      NormParams out;
      out.kind = kind;
      out.eps = eps;
      out.p = p;
      out.gain_convention = gain;
      return out;
    };
    const GainConvention as_stored = GainConvention::kAsStored;
    const Case cases[] = {
        {"n = 0", params(NormKind::kLayerNorm, 1e-5f, 1.0, as_stored), 0, true, "n"},
        {"eps < 0", params(NormKind::kRmsNorm, -1e-5f, 1.0, as_stored), 16, true, "eps"},
        {"eps NaN", params(NormKind::kRmsNorm, NAN, 1.0, as_stored), 16, true, "eps"},
        {"eps inf", params(NormKind::kLayerNorm, INFINITY, 1.0, as_stored), 16, true, "eps"},
        {"p = 0", params(NormKind::kPRmsNorm, 1e-5f, 0.0, as_stored), 16, true, "p"},
        {"p > 1", params(NormKind::kPRmsNorm, 1e-5f, 1.5, as_stored), 16, true, "p"},
        {"floor(p·n) = 0", params(NormKind::kPRmsNorm, 1e-5f, 0.1, as_stored), 9, true, "p"},
        {"1 + g without a gain", params(NormKind::kLayerNorm, 1e-5f, 1.0, GainConvention::kOnePlus),
         16, false, "gain"},
    };
    for (const Case& c : cases) {
      CAPTURE(c.what);
      const Status planned = norm_params_validate(c.params, c.n, c.has_gain);
      REQUIRE_FALSE(planned.is_ok());
      CHECK_MESSAGE(names_word(planned.message(), c.names), planned.message());
      Operands o;
      o.rows.rows = 1;
      o.rows.n = c.n;
      if (!c.has_gain) o.rows.gain = nullptr;
      const Status called = norm_validate(c.params, o.rows);
      REQUIRE_FALSE(called.is_ok());
      CHECK(called.message() == planned.message());
    }
  }

  TEST_CASE("norm_params_validate accepts valid parameters for every row length") {
    for (size_t n : {size_t{1}, size_t{7}, size_t{16}, size_t{4097}}) {
      for (NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm, NormKind::kPRmsNorm}) {
        for (GainConvention gain : {GainConvention::kAsStored, GainConvention::kOnePlus}) {
          NormParams params;
          params.kind = kind;
          params.eps = 0.0f;
          params.p = 1.0;  // floor(1·n) = n ≥ 1
          params.gain_convention = gain;
          CAPTURE(n);
          CHECK(norm_params_validate(params, n, true).is_ok());
          if (gain == GainConvention::kAsStored)
            CHECK(norm_params_validate(params, n, false).is_ok());
        }
      }
    }
  }
}

}  // namespace normrt::testing
