//===- LayoutAgreementTest.cpp - Compiler and runtimes compare alike ------===//
//
// The compiler (areEquivalentLayouts, scaleLayoutSatisfies), fp8q_gemm_v2's
// contract check (scaleMeetsReq) and the fp8q_check_scale query answer
// "does this scale meet that layout" through the one equality of
// fp8q_scale_layouts.h. Swept over every layout pair, every kernel of the
// contract table and every small static shape, the answers agree, except
// where the runtime descriptor's kind decides: a strided descriptor never
// meets a padded requirement (or the reverse), whatever the bytes.
//
//===----------------------------------------------------------------------===//

#include "fp8q_gemm_v2_checks.h"

#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_runtime.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"
#include "fp8q/Target/KernelContracts.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

// The shared runtime checks report through these; the runtime library keeps
// its own hidden. This test reads answers, not messages.
int32_t fp8q::rt::fail(const char *, int32_t status, const char *, ...) {
  return status;
}
void fp8q::rt::warn(const char *, const char *, ...) {}

using namespace mlir;
using namespace fp8q;

namespace {

struct Layout {
  int code;
  int64_t align;
};

/// Every layout, with the aligns that make distinct layouts equal.
const Layout kLayouts[] = {
    {FP8Q_LAYOUT_ROW_MAJOR, 1},       {FP8Q_LAYOUT_COL_MAJOR, 1},
    {FP8Q_LAYOUT_COL_MAJOR, 2},       {FP8Q_LAYOUT_COL_MAJOR, 4},
    {FP8Q_LAYOUT_COL_MAJOR, 8},       {FP8Q_LAYOUT_COL_MAJOR_PACK4, 1},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 2}, {FP8Q_LAYOUT_COL_MAJOR_PACK4, 4},
    {FP8Q_LAYOUT_COL_MAJOR_PACK4, 8}, {FP8Q_LAYOUT_COL_MAJOR_PACK4, 128},
    {FP8Q_LAYOUT_SWIZZLE_32_4_4, 1},  {FP8Q_LAYOUT_CDNA4_MX, 1},
};

std::vector<int64_t> sizes() {
  std::vector<int64_t> ms;
  for (int64_t m = 1; m <= 9; ++m)
    ms.push_back(m);
  for (int64_t m : {16, 128, 129})
    ms.push_back(m);
  return ms;
}

/// The descriptor a runtime receives for an [M, G] scale in `l`: a padded
/// layout's whole allocation (strides (0, 0)) or the strided layout's own
/// strides, as checkScaleOperand fills it.
rt::ScaleView canonicalView(const Layout &l, int64_t M, int64_t G) {
  rt::ScaleView v;
  v.M = M;
  v.G = G;
  v.layout = l.code;
  v.align = l.align;
  v.padded = fp8q_scale_layout_bytes_only(l.code);
  if (!v.padded)
    fp8q_scale_layout_strides(l.code, l.align, M, G, &v.s0, &v.s1);
  v.alloc = fp8q_scale_layout_alloc(l.code, l.align, M, G);
  return v;
}

std::string describe(const Layout &l) {
  return std::string(fp8q_scale_layout_name(l.code)) + " align " +
         std::to_string(l.align);
}

class LayoutAgreementTest : public ::testing::Test {
protected:
  LayoutAgreementTest() { ctx.loadDialect<Fp8qDialect>(); }
  LayoutAttr attr(const Layout &l) {
    return getLayoutOfCode(&ctx, l.code, l.align);
  }
  MLIRContext ctx;
};

TEST_F(LayoutAgreementTest, EveryLayoutPairAnswersAlike) {
  int kindDecides = 0;
  for (const Layout &req : kLayouts)
    for (const Layout &have : kLayouts)
      for (int64_t M : sizes())
        for (int64_t G = 1; G <= 9; ++G) {
          const bool compiler =
              areEquivalentLayouts(attr(req), attr(have), {M, G});
          const bool sameKind = fp8q_scale_layout_bytes_only(req.code) ==
                                fp8q_scale_layout_bytes_only(have.code);
          const fp8q_scale_req r = FP8Q_REQ_LAYOUT(req.code, req.align);
          const bool runtime = rt::scaleMeetsReq(r, canonicalView(have, M, G));
          const std::string where = describe(have) + " for " + describe(req) +
                                    " on [" + std::to_string(M) + ", " +
                                    std::to_string(G) + "]";
          ASSERT_EQ(compiler,
                    bool(fp8q_scale_layouts_equal(req.code, req.align,
                                                  have.code, have.align, M, G)))
              << where;
          ASSERT_EQ(runtime, sameKind && compiler) << where;
          kindDecides += compiler && !sameKind;
        }
  // Equal bytes across the kinds exist (row_major [4k, 4] is pack4 align 4's
  // bytes): there the descriptor's kind, not the equality, says no.
  EXPECT_GT(kindDecides, 0);
}

TEST_F(LayoutAgreementTest, EveryKernelContractAnswersAlike) {
  const GemmOperand operands[2] = {GemmOperand::XScale, GemmOperand::WScale};
  int accepted = 0, rejected = 0;
  for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k)
    for (int op = 0; op < 2; ++op) {
      const fp8q_kernel_contract &c = fp8q_kernel_contracts[k];
      const fp8q_scale_req &r = op == 0 ? c.x_scale_layout : c.w_scale_layout;
      for (const Layout &have : kLayouts)
        for (int64_t M : sizes())
          for (int64_t G = 1; G <= 9; ++G) {
            const rt::ScaleView v = canonicalView(have, M, G);
            const bool runtime = rt::scaleMeetsReq(r, v);
            const int32_t query = fp8q_check_scale(k, op, have.code, have.align,
                                                   M, G, v.s0, v.s1);
            const bool compiler = scaleLayoutSatisfies(
                static_cast<Kernel>(k), operands[op], attr(have), {M, G});
            const bool sameKind =
                r.kind != FP8Q_SCALE_REQ_LAYOUT ||
                fp8q_scale_layout_bytes_only(r.layout) == v.padded;
            const std::string where =
                std::string(c.name) + " " + (op ? "w_scale" : "x_scale") + " " +
                describe(have) + " on [" + std::to_string(M) + ", " +
                std::to_string(G) + "]";
            ASSERT_TRUE(query == FP8Q_OK || query == FP8Q_ERR_CONTRACT)
                << where << ": " << fp8q_last_error();
            ASSERT_EQ(query == FP8Q_OK, runtime) << where;
            ASSERT_EQ(runtime, sameKind && compiler) << where;
            accepted += runtime;
            rejected += !runtime;
          }
    }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(rejected, 0);
}

} // namespace
