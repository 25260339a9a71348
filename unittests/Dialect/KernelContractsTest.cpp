//===- KernelContractsTest.cpp - The kernel-contract table ----------------===//

#include "fp8q/Target/KernelContracts.h"

#include "mlir/IR/MLIRContext.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace fp8q;

namespace {
class KernelContractsTest : public ::testing::Test {
protected:
  KernelContractsTest() { ctx.loadDialect<Fp8qDialect>(); }
  MLIRContext ctx;
  LayoutAttr row() { return LayoutAttr::getRowMajor(&ctx); }
  LayoutAttr col(int64_t align = 1) {
    return LayoutAttr::getColMajor(&ctx, align);
  }
  static constexpr int64_t kDyn = ShapedType::kDynamic;
};

TEST_F(KernelContractsTest, ScaleRequirementsFollowSpec) {
  EXPECT_EQ(getRequiredScaleLayout(Kernel::CkBpreshuffle, &ctx), col());
  EXPECT_EQ(getRequiredScaleLayout(Kernel::Ck, &ctx), row());
  EXPECT_EQ(getRequiredScaleLayout(Kernel::Triton, &ctx), LayoutAttr());
  EXPECT_EQ(getRequiredScaleLayout(Kernel::DeepGemm, &ctx), col(4));
  EXPECT_EQ(getRequiredScaleLayout(Kernel::Cublas, &ctx), col());
  EXPECT_EQ(getRequiredScaleLayout(Kernel::Reference, &ctx), LayoutAttr());
}

TEST_F(KernelContractsTest, SatisfiesComparesBytes) {
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::CkBpreshuffle, row(), {kDyn, 56}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::CkBpreshuffle, col(), {kDyn, 56}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::CkBpreshuffle, row(), {1, 56}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::Ck, col(), {64, 1}));
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::DeepGemm, col(), {kDyn, 56}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::DeepGemm, col(), {64, 56}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::Triton, col(4), {13, 56}));
}

TEST_F(KernelContractsTest, WeightRequirements) {
  auto pre = WeightLayoutAttr::get(&ctx, WeightLayout::Preshuffle16x16);
  EXPECT_TRUE(weightLayoutSatisfies(Kernel::CkBpreshuffle, pre));
  EXPECT_FALSE(weightLayoutSatisfies(Kernel::CkBpreshuffle, Attribute()));
  EXPECT_FALSE(weightLayoutSatisfies(Kernel::Ck, pre));
  EXPECT_TRUE(weightLayoutSatisfies(Kernel::Ck, Attribute()));
  EXPECT_TRUE(weightLayoutSatisfies(Kernel::Reference, pre));
}

TEST_F(KernelContractsTest, TargetsAndFp8Flavours) {
  auto gfx950 = TargetAttr::get(&ctx, "gfx950", "7.2");
  auto gfx950Old = TargetAttr::get(&ctx, "gfx950", "7.0");
  auto gfx942 = TargetAttr::get(&ctx, "gfx942", "");
  Type fn = Float8E4M3FNType::get(&ctx), fnuz = Float8E4M3FNUZType::get(&ctx);
  std::string why;
  EXPECT_TRUE(kernelRunsOn(Kernel::CkBpreshuffle, gfx950, fn, why));
  EXPECT_FALSE(kernelRunsOn(Kernel::CkBpreshuffle, gfx950Old, fn, why));
  EXPECT_NE(why.find("ROCm >= 7.2"), std::string::npos);
  EXPECT_FALSE(kernelRunsOn(Kernel::CkBpreshuffle, gfx942, fnuz, why));
  EXPECT_TRUE(kernelRunsOn(Kernel::Triton, gfx942, fnuz, why));
  EXPECT_FALSE(kernelRunsOn(Kernel::Triton, gfx942, fn, why));
  EXPECT_EQ(getTargetFp8Type(gfx942), fnuz);
  EXPECT_EQ(getTargetFp8Type(gfx950), fn);
}

TEST(ContractStrides, RuntimeCheckMatchesTable) {
  // ck_bpreshuffle reads (1, M); deepgemm (1, roundup(M, 4)).
  EXPECT_TRUE(fp8q_scale_strides_ok(FP8Q_KERNEL_CK_BPRESHUFFLE, 64, 56, 1, 64));
  EXPECT_FALSE(
      fp8q_scale_strides_ok(FP8Q_KERNEL_CK_BPRESHUFFLE, 64, 56, 56, 1));
  EXPECT_TRUE(fp8q_scale_strides_ok(FP8Q_KERNEL_CK_BPRESHUFFLE, 1, 56, 56, 1));
  EXPECT_TRUE(fp8q_scale_strides_ok(FP8Q_KERNEL_DEEPGEMM, 13, 56, 1, 16));
  EXPECT_FALSE(fp8q_scale_strides_ok(FP8Q_KERNEL_DEEPGEMM, 13, 56, 1, 13));
  EXPECT_TRUE(fp8q_scale_strides_ok(FP8Q_KERNEL_CK, 64, 56, 56, 1));
  EXPECT_TRUE(fp8q_scale_strides_ok(FP8Q_KERNEL_TRITON, 64, 56, 1, 64));
}
} // namespace
