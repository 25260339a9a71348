//===- KernelContractsTest.cpp - The kernel-contract table ----------------===//

#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

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

TEST_F(KernelContractsTest, V2ScaleRequirementsFollowSpec) {
  auto swz = LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4);
  auto cdna = LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx);
  auto pack4 = LayoutAttr::getColMajorPack4(&ctx, 4);
  for (GemmOperand operand : {GemmOperand::XScale, GemmOperand::WScale}) {
    auto layoutOf = [&](Kernel k) {
      ScaleRequirement req = getScaleRequirement(k, operand, &ctx);
      EXPECT_EQ(req.kind, FP8Q_SCALE_REQ_LAYOUT);
      return req.layout;
    };
    EXPECT_EQ(layoutOf(Kernel::AiterMxfp4), cdna);
    EXPECT_EQ(layoutOf(Kernel::CublasMx), swz);
    EXPECT_EQ(layoutOf(Kernel::DeepGemmSm100), pack4);
    EXPECT_EQ(getScaleRequirement(Kernel::Reference, operand, &ctx).kind,
              FP8Q_SCALE_REQ_ANY);
  }
  // Triton: strided x_scale, row-major w_scale; the v1 kernels' weight
  // scales are row-major.
  EXPECT_EQ(getScaleRequirement(Kernel::Triton, GemmOperand::XScale, &ctx).kind,
            FP8Q_SCALE_REQ_STRIDED);
  for (Kernel k : {Kernel::CkBpreshuffle, Kernel::Ck, Kernel::Triton,
                   Kernel::DeepGemm, Kernel::Cublas})
    EXPECT_EQ(getScaleRequirement(k, GemmOperand::WScale, &ctx).layout, row());
  EXPECT_TRUE(readsPerRowWScale(Kernel::DeepGemmSm100));
  EXPECT_FALSE(readsPerRowWScale(Kernel::DeepGemm));
}

TEST_F(KernelContractsTest, V2SatisfiesComparesBytes) {
  auto swz = LayoutAttr::getTiled(&ctx, ScaleOrder::Swizzle32x4x4);
  auto cdna = LayoutAttr::getTiled(&ctx, ScaleOrder::Cdna4Mx);
  // Triton: any strided layout, no padded one.
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::Triton, col(4), {kDyn, 16}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::Triton, row(), {kDyn, 16}));
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::Triton, swz, {kDyn, 16}));
  EXPECT_FALSE(scaleLayoutSatisfies(
      Kernel::Triton, LayoutAttr::getColMajorPack4(&ctx, 4), {kDyn, 16}));
  // cublas_mx: swizzle_32_4_4 only (dynamic M: the formulas must match).
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::CublasMx, swz, {kDyn, 16}));
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::CublasMx, row(), {kDyn, 16}));
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::CublasMx, cdna, {128, 4}));
  EXPECT_TRUE(scaleLayoutSatisfies(Kernel::AiterMxfp4, GemmOperand::WScale,
                                   cdna, {64, 16}));
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::AiterMxfp4, GemmOperand::WScale,
                                    row(), {64, 16}));
  // deepgemm_sm100's packed layout with align 4 and M a multiple of 4 is
  // still not col_major align 4 (four scales share a word).
  EXPECT_FALSE(scaleLayoutSatisfies(Kernel::DeepGemmSm100, col(4), {64, 8}));
  EXPECT_TRUE(scaleLayoutSatisfies(
      Kernel::DeepGemmSm100, LayoutAttr::getColMajorPack4(&ctx, 4), {kDyn, 8}));
}

TEST_F(KernelContractsTest, V2TargetsAndFormats) {
  auto gfx950 = TargetAttr::get(&ctx, "gfx950", "7.0");
  auto gfx950Old = TargetAttr::get(&ctx, "gfx950", "6.4");
  auto gfx942 = TargetAttr::get(&ctx, "gfx942", "");
  auto sm100 = TargetAttr::get(&ctx, "sm100", "");
  auto sm90 = TargetAttr::get(&ctx, "sm90", "");
  Type fp4 = Float4E2M1FNType::get(&ctx), fn = Float8E4M3FNType::get(&ctx);
  std::string why;
  EXPECT_TRUE(kernelRunsOn(Kernel::AiterMxfp4, gfx950, fp4, why));
  EXPECT_FALSE(kernelRunsOn(Kernel::AiterMxfp4, gfx950Old, fp4, why));
  EXPECT_NE(why.find("ROCm >= 7.0"), std::string::npos) << why;
  EXPECT_FALSE(kernelRunsOn(Kernel::AiterMxfp4, sm100, fp4, why));
  EXPECT_TRUE(kernelRunsOn(Kernel::CublasMx, sm100, fn, why));
  EXPECT_FALSE(kernelRunsOn(Kernel::CublasMx, sm90, fn, why));
  EXPECT_TRUE(kernelRunsOn(Kernel::DeepGemmSm100, sm100, fn, why));
  EXPECT_FALSE(kernelRunsOn(Kernel::DeepGemmSm100, sm90, fn, why));
  // Triton on every GPU target; MXFP8's OCP E4M3 on gfx942 is the format's,
  // not the target's FP8 1x128 flavour.
  for (TargetAttr t : {gfx950, gfx942, sm90, sm100})
    EXPECT_TRUE(kernelRunsOn(Kernel::Triton, t, fp4, why)) << why;
  EXPECT_TRUE(
      kernelRunsOn(Kernel::Triton, gfx942, fn, why, BlockFormat::MxFp8));
  EXPECT_FALSE(
      kernelRunsOn(Kernel::Triton, gfx942, fn, why, BlockFormat::Fp8Block));
  // Formats, as SPEC v2's table lists them.
  EXPECT_TRUE(kernelReadsFormat(Kernel::AiterMxfp4, BlockFormat::MxFp4));
  EXPECT_FALSE(kernelReadsFormat(Kernel::AiterMxfp4, BlockFormat::MxFp8));
  EXPECT_TRUE(kernelReadsFormat(Kernel::CublasMx, BlockFormat::MxFp8));
  EXPECT_TRUE(kernelReadsFormat(Kernel::CublasMx, BlockFormat::NvFp4));
  EXPECT_FALSE(kernelReadsFormat(Kernel::CublasMx, BlockFormat::MxFp4));
  EXPECT_TRUE(
      kernelReadsFormat(Kernel::DeepGemmSm100, BlockFormat::Fp8BlockE8M0));
  EXPECT_FALSE(kernelReadsFormat(Kernel::DeepGemmSm100, BlockFormat::Fp8Block));
  for (BlockFormat f :
       {BlockFormat::Fp8Block, BlockFormat::MxFp8, BlockFormat::MxFp4})
    EXPECT_TRUE(kernelReadsFormat(Kernel::Triton, f));
  EXPECT_FALSE(kernelReadsFormat(Kernel::Triton, BlockFormat::NvFp4));
  EXPECT_EQ(describeFormats(Kernel::CublasMx), "MXFP8, NVFP4");
}

TEST(ContractTable, V1SpellingAgreesWithLayouts) {
  // The runtimes read x_scale / x_scale_align; the compiler x_scale_layout.
  for (int k = 0; k < FP8Q_KERNEL_COUNT; ++k) {
    const fp8q_kernel_contract &c = fp8q_kernel_contracts[k];
    const fp8q_scale_req &x = c.x_scale_layout;
    SCOPED_TRACE(c.name);
    switch (c.x_scale) {
    case FP8Q_SCALE_ANY:
      EXPECT_NE(x.kind, FP8Q_SCALE_REQ_LAYOUT);
      break;
    case FP8Q_SCALE_ROW_MAJOR:
      EXPECT_EQ(x.kind, FP8Q_SCALE_REQ_LAYOUT);
      EXPECT_EQ(x.layout, FP8Q_LAYOUT_ROW_MAJOR);
      break;
    case FP8Q_SCALE_COL_MAJOR:
      EXPECT_EQ(x.kind, FP8Q_SCALE_REQ_LAYOUT);
      EXPECT_EQ(x.layout, FP8Q_LAYOUT_COL_MAJOR);
      EXPECT_EQ(x.align, c.x_scale_align);
      break;
    case FP8Q_SCALE_PADDED:
      EXPECT_EQ(x.kind, FP8Q_SCALE_REQ_LAYOUT);
      EXPECT_TRUE(fp8q_scale_layout_bytes_only(x.layout));
      EXPECT_EQ(c.formats & FP8Q_FORMAT_FP8_1X128, 0u);
      break;
    }
    for (const fp8q_scale_req *r : {&c.x_scale_layout, &c.w_scale_layout}) {
      EXPECT_GE(r->align, 1);
      if (r->kind == FP8Q_SCALE_REQ_LAYOUT &&
          !fp8q_scale_layout_has_align(r->layout))
        EXPECT_EQ(r->align, 1);
    }
  }
  EXPECT_STREQ(fp8q_kernel_contracts[FP8Q_KERNEL_AITER_MXFP4].name,
               "aiter_mxfp4");
  EXPECT_STREQ(fp8q_kernel_contracts[FP8Q_KERNEL_CUBLAS_MX].name, "cublas_mx");
  EXPECT_STREQ(fp8q_kernel_contracts[FP8Q_KERNEL_DEEPGEMM_SM100].name,
               "deepgemm_sm100");
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
  // The padded layouts have no strides: the v1 check never passes them.
  EXPECT_FALSE(fp8q_scale_strides_ok(FP8Q_KERNEL_CUBLAS_MX, 64, 56, 56, 1));
  EXPECT_FALSE(
      fp8q_scale_strides_ok(FP8Q_KERNEL_DEEPGEMM_SM100, 64, 56, 1, 64));
}
} // namespace
