// attention_validate() names what is wrong; calls with nothing to compute
// are fine; attention() runs the kernel of the selected ISA.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/kernels/attention_test_support.h"

namespace normrt::testing {
namespace {

bool mentions(const Status& status, const std::string& part) {
  return !status.is_ok() && status.message().find(part) != std::string::npos;
}

// A valid call: 2 heads on 1 kv head, d 4, 3 queries, 5 keys, dense.
struct ValidCall {
  AttentionParams params{2, 1, 4, 0.5f, false};
  std::vector<float> q = std::vector<float>(3 * 8, 0.5f);
  std::vector<float> k = std::vector<float>(5 * 4, 0.25f);
  std::vector<float> v = std::vector<float>(5 * 4, 1.0f);
  std::vector<float> out = std::vector<float>(3 * 8, 0.0f);
  AttentionArgs args;
  ValidCall() {
    args.query_rows = 3;
    args.key_rows = 5;
    args.q = q.data();
    args.k = k.data();
    args.v = v.data();
    args.out = out.data();
    args = attention_dense(params, args);
  }
};

TEST_SUITE("attention") {
  TEST_CASE("attention_validate accepts a valid call and names each bad parameter") {
    ValidCall c;
    CHECK(attention_validate(c.params, c.args).is_ok());
    auto with = [&](auto change) {
      ValidCall bad;
      change(bad.params, bad.args);
      return attention_validate(bad.params, bad.args);
    };
    CHECK(mentions(with([](auto& p, auto&) { p.head_dim = 0; }), "head_dim"));
    CHECK(mentions(with([](auto& p, auto&) { p.heads = 0; }), "heads must be at least 1"));
    CHECK(mentions(with([](auto& p, auto&) { p.kv_heads = 0; }), "kv_heads"));
    CHECK(mentions(with([](auto& p, auto&) { p.kv_heads = 3; }), "multiple of kv_heads (3)"));
    CHECK(mentions(with([](auto& p, auto&) { p.scale = INFINITY; }), "scale"));
    CHECK(mentions(with([](auto& p, auto&) { p.scale = NAN; }), "scale"));
    CHECK(mentions(with([](auto&, auto& a) { a.q = nullptr; }), "q is null"));
    CHECK(mentions(with([](auto&, auto& a) { a.k = nullptr; }), "k is null"));
    CHECK(mentions(with([](auto&, auto& a) { a.v = nullptr; }), "v is null"));
    CHECK(mentions(with([](auto&, auto& a) { a.out = nullptr; }), "out is null"));
    CHECK(mentions(with([](auto&, auto& a) { a.q_row_stride = 7; }), "q_row_stride (7)"));
    CHECK(mentions(with([](auto&, auto& a) { a.out_row_stride = 7; }), "out_row_stride (7)"));
    CHECK(mentions(with([](auto&, auto& a) { a.kv_row_stride = 3; }), "kv_row_stride (3)"));
    CHECK(mentions(with([](auto&, auto& a) { a.batch = 2, a.q_batch_stride = 20; }),
                   "q_batch_stride (20)"));
    CHECK(mentions(with([](auto&, auto& a) { a.batch = 2, a.out_batch_stride = 10; }),
                   "out_batch_stride (10)"));
  }

  TEST_CASE("attention_validate rejects key lengths past key_rows, short mask strides, overlaps") {
    // Two sequences: q, out (2, 3, 8), k, v (2, 5, 4).
    std::vector<float> q(48, 0.5f), k(40, 0.25f), v(40, 1.0f), out(48);
    const AttentionParams params{2, 1, 4, 0.5f, false};
    AttentionArgs a;
    a.batch = 2;
    a.query_rows = 3;
    a.key_rows = 5;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.out = out.data();
    a = attention_dense(params, a);
    const uint32_t lengths[2] = {5, 6};
    a.key_lengths = lengths;
    CHECK(mentions(attention_validate(params, a), "key_lengths[1] (6) exceeds key_rows (5)"));
    a.key_lengths = nullptr;
    a.kv_batch_stride = 12;
    CHECK(mentions(attention_validate(params, a), "kv_batch_stride (12)"));
    a.kv_batch_stride = 20;
    const std::vector<uint8_t> mask(10, 1);
    a.key_mask = mask.data();
    a.key_mask_stride = 4;
    CHECK(mentions(attention_validate(params, a), "key_mask_stride (4)"));
    a.key_mask_stride = 5;
    CHECK(attention_validate(params, a).is_ok());

    ValidCall o;
    o.args.out = o.q.data() + 4;
    CHECK(mentions(attention_validate(o.params, o.args), "out overlaps q"));
    std::vector<float> shared(64);
    o.args.k = shared.data();
    o.args.out = shared.data() + 10;
    o.args.q = o.q.data();
    CHECK(mentions(attention_validate(o.params, o.args), "out overlaps k"));
  }

  TEST_CASE("nothing to compute: no sequences, no query rows; no keys gives zeros") {
    // Valid with null operands, and a kernel run touches nothing.
    ValidCall c;
    c.args.batch = 0;
    c.args.q = c.args.k = c.args.v = nullptr;
    c.args.out = nullptr;
    CHECK(attention_validate(c.params, c.args).is_ok());
    CHECK(attention_task_count(c.params, c.args) == 0);
    attention_run(attention_kernel_for(Isa::kScalar), c.params, c.args, nullptr);
    ValidCall r;
    r.args.query_rows = 0;
    std::fill(r.out.begin(), r.out.end(), 9.0f);
    CHECK(attention_validate(r.params, r.args).is_ok());
    CHECK(attention_task_count(r.params, r.args) == 0);
    attention_run(attention_kernel_for(Isa::kScalar), r.params, r.args, nullptr);
    for (float x : r.out) CHECK(x == 9.0f);
    for (const AttentionVariant* variant : attention_variants_under_test()) {
      ValidCall z;
      z.args.key_rows = 0;
      z.args.k = z.args.v = nullptr;
      std::fill(z.out.begin(), z.out.end(), 9.0f);
      REQUIRE(attention_validate(z.params, z.args).is_ok());
      attention_run(variant->kernel, z.params, z.args, nullptr);
      const std::string name = variant->name;
      CAPTURE(name);
      for (float x : z.out) CHECK(x == 0.0f);
    }
  }

  TEST_CASE("attention() runs the selected ISA's kernel") {
    Expected<Isa> isa = selected_isa();
    if (!isa) {
      // NORMRT_ISA names an ISA this CPU cannot run: attention() says so.
      ValidCall c;
      CHECK_FALSE(attention(c.params, c.args).is_ok());
      return;
    }
    const AttentionKernel kernel = attention_kernel_for(*isa);
    const bool has_kernel = kernel != nullptr;
    REQUIRE(has_kernel);
    AttentionData data = random_attention({4, 2, 24, 0.3f, true}, 2, 9, 40, 17);
    data.query_position = 31;
    const std::vector<float> want = run_attention(kernel, data).out;
    std::vector<float> got(want.size());
    AttentionArgs a;
    a.batch = 2;
    a.query_rows = 9;
    a.key_rows = 40;
    a.q = data.q.data();
    a.k = data.k.data();
    a.v = data.v.data();
    a.out = got.data();
    a.query_position = 31;
    REQUIRE(attention(data.params, attention_dense(data.params, a)).is_ok());
    CAPTURE(isa_name(*isa));
    CHECK(got == want);
  }
}

}  // namespace
}  // namespace normrt::testing
