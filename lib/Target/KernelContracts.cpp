//===- KernelContracts.cpp - Kernel contracts for the compiler ------------===//

#include "fp8q/Target/KernelContracts.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace fp8q {

static_assert(
    static_cast<int>(Kernel::CkBpreshuffle) == FP8Q_KERNEL_CK_BPRESHUFFLE &&
        static_cast<int>(Kernel::Ck) == FP8Q_KERNEL_CK &&
        static_cast<int>(Kernel::Triton) == FP8Q_KERNEL_TRITON &&
        static_cast<int>(Kernel::DeepGemm) == FP8Q_KERNEL_DEEPGEMM &&
        static_cast<int>(Kernel::Cublas) == FP8Q_KERNEL_CUBLAS &&
        static_cast<int>(Kernel::Reference) == FP8Q_KERNEL_REFERENCE &&
        static_cast<int>(Kernel::AiterMxfp4) == FP8Q_KERNEL_AITER_MXFP4 &&
        static_cast<int>(Kernel::CublasMx) == FP8Q_KERNEL_CUBLAS_MX &&
        static_cast<int>(Kernel::DeepGemmSm100) == FP8Q_KERNEL_DEEPGEMM_SM100,
    "fp8q::Kernel and fp8q_kernel must agree");

static_assert(FP8Q_FORMAT_FP8_1X128 == 1u << int(BlockFormat::Fp8Block) &&
                  FP8Q_FORMAT_FP8_1X128_E8M0 ==
                      1u << int(BlockFormat::Fp8BlockE8M0) &&
                  FP8Q_FORMAT_MXFP8 == 1u << int(BlockFormat::MxFp8) &&
                  FP8Q_FORMAT_MXFP4 == 1u << int(BlockFormat::MxFp4) &&
                  FP8Q_FORMAT_NVFP4 == 1u << int(BlockFormat::NvFp4),
              "BlockFormat and FP8Q_FORMAT_* must agree");

const fp8q_kernel_contract &getKernelContract(Kernel kernel) {
  return fp8q_kernel_contracts[static_cast<int>(kernel)];
}

LayoutAttr getLayoutOfCode(MLIRContext *ctx, int code, int64_t align) {
  switch (code) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return LayoutAttr::getRowMajor(ctx);
  case FP8Q_LAYOUT_COL_MAJOR:
    return LayoutAttr::getColMajor(ctx, align);
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return LayoutAttr::getColMajorPack4(ctx, align);
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return LayoutAttr::getTiled(ctx, ScaleOrder::Swizzle32x4x4);
  case FP8Q_LAYOUT_CDNA4_MX:
    return LayoutAttr::getTiled(ctx, ScaleOrder::Cdna4Mx);
  }
  llvm_unreachable("unknown fp8q_scale_layout code");
}

ScaleRequirement getScaleRequirement(Kernel kernel, GemmOperand operand,
                                     MLIRContext *ctx) {
  assert(operand != GemmOperand::Weight && "not a scale operand");
  const fp8q_kernel_contract &c = getKernelContract(kernel);
  const fp8q_scale_req &req =
      operand == GemmOperand::XScale ? c.x_scale_layout : c.w_scale_layout;
  ScaleRequirement result;
  result.kind = req.kind;
  if (req.kind == FP8Q_SCALE_REQ_LAYOUT)
    result.layout = getLayoutOfCode(ctx, req.layout, req.align);
  return result;
}

LayoutAttr getRequiredScaleLayout(Kernel kernel, MLIRContext *ctx) {
  return getScaleRequirement(kernel, GemmOperand::XScale, ctx).layout;
}

bool scaleLayoutSatisfies(Kernel kernel, GemmOperand operand, LayoutAttr layout,
                          ArrayRef<int64_t> shape) {
  ScaleRequirement req =
      getScaleRequirement(kernel, operand, layout.getContext());
  switch (req.kind) {
  case FP8Q_SCALE_REQ_ANY:
    return true;
  case FP8Q_SCALE_REQ_STRIDED:
    return layout.isStrided();
  case FP8Q_SCALE_REQ_LAYOUT:
    return areEquivalentLayouts(req.layout, layout, shape);
  }
  llvm_unreachable("unknown scale requirement");
}

bool scaleLayoutSatisfies(Kernel kernel, LayoutAttr layout,
                          ArrayRef<int64_t> shape) {
  return scaleLayoutSatisfies(kernel, GemmOperand::XScale, layout, shape);
}

bool readsPerRowWScale(Kernel kernel) {
  return getKernelContract(kernel).w_scale_per_row != 0;
}

bool weightLayoutSatisfies(Kernel kernel, Attribute encoding) {
  switch (getKernelContract(kernel).weight) {
  case FP8Q_WEIGHT_ANY:
    return true;
  case FP8Q_WEIGHT_PLAIN:
    return !encoding;
  case FP8Q_WEIGHT_PRESHUFFLE_16X16:
    return isa_and_nonnull<WeightLayoutAttr>(encoding);
  }
  llvm_unreachable("unknown weight requirement");
}

std::string describeRequirement(Kernel kernel, GemmOperand operand) {
  const fp8q_kernel_contract &c = getKernelContract(kernel);
  if (operand == GemmOperand::Weight) {
    switch (c.weight) {
    case FP8Q_WEIGHT_ANY:
      return "any weight layout";
    case FP8Q_WEIGHT_PLAIN:
      return "plain [N, K] weight";
    case FP8Q_WEIGHT_PRESHUFFLE_16X16:
      return "#fp8q.weight_layout<preshuffle_16x16>";
    }
  }
  const fp8q_scale_req &req =
      operand == GemmOperand::XScale ? c.x_scale_layout : c.w_scale_layout;
  switch (req.kind) {
  case FP8Q_SCALE_REQ_ANY:
    return "any layout";
  case FP8Q_SCALE_REQ_STRIDED:
    return "a strided layout (row_major, col_major or col_major align; not "
           "pack = 4 or a swizzle)";
  case FP8Q_SCALE_REQ_LAYOUT:
    break;
  }
  switch (req.layout) {
  case FP8Q_LAYOUT_ROW_MAJOR:
    return "#fp8q.layout<row_major> (strides (G, 1))";
  case FP8Q_LAYOUT_COL_MAJOR:
    if (req.align == 1)
      return "#fp8q.layout<col_major> (strides (1, M))";
    return llvm::formatv("#fp8q.layout<col_major, align = {0}> (strides (1, "
                         "roundup(M, {0})))",
                         req.align)
        .str();
  case FP8Q_LAYOUT_COL_MAJOR_PACK4:
    return llvm::formatv("#fp8q.layout<col_major, align = {0}, pack = 4> (four "
                         "1-byte scales per 32-bit word along G, words "
                         "MN-major with leading dimension roundup(M, {0}))",
                         req.align)
        .str();
  case FP8Q_LAYOUT_SWIZZLE_32_4_4:
    return "#fp8q.layout<swizzle_32_4_4> (128x4 tiles of 512 bytes)";
  case FP8Q_LAYOUT_CDNA4_MX:
    return "#fp8q.layout<cdna4_mx> (AITER e8m0_shuffle)";
  }
  llvm_unreachable("unknown fp8q_scale_layout code");
}

bool kernelReadsFormat(Kernel kernel, BlockFormat format) {
  return getKernelContract(kernel).formats & (1u << int(format));
}

std::string describeFormats(Kernel kernel) {
  std::string text;
  for (BlockFormat format :
       {BlockFormat::Fp8Block, BlockFormat::Fp8BlockE8M0, BlockFormat::MxFp8,
        BlockFormat::MxFp4, BlockFormat::NvFp4}) {
    if (!kernelReadsFormat(kernel, format))
      continue;
    if (!text.empty())
      text += ", ";
    text += getBlockFormatName(format).str();
  }
  return text;
}

unsigned getArchBit(TargetAttr target) {
  return llvm::StringSwitch<unsigned>(target.getArch())
      .Case("gfx942", FP8Q_ARCH_GFX942)
      .Case("gfx950", FP8Q_ARCH_GFX950)
      .Case("sm90", FP8Q_ARCH_SM90)
      .Case("sm100", FP8Q_ARCH_SM100)
      .Default(0);
}

Type getTargetFp8Type(TargetAttr target) {
  MLIRContext *ctx = target.getContext();
  if (fp8q_arch_fp8(getArchBit(target)) == FP8Q_F8E4M3FNUZ)
    return Float8E4M3FNUZType::get(ctx);
  return Float8E4M3FNType::get(ctx);
}

Type getRequiredFp8Type(Kernel kernel, TargetAttr target) {
  switch (getKernelContract(kernel).fp8) {
  case FP8Q_FP8_ANY:
    return {};
  case FP8Q_FP8_E4M3FN:
    return Float8E4M3FNType::get(target.getContext());
  case FP8Q_FP8_PER_TARGET:
    return getTargetFp8Type(target);
  }
  llvm_unreachable("unknown fp8 requirement");
}

TargetAttr getModuleTarget(Operation *moduleOp) {
  return moduleOp->getAttrOfType<TargetAttr>(TargetAttr::getModuleAttrName());
}

bool kernelRunsOn(Kernel kernel, TargetAttr target, Type fp8,
                  std::string &reason, std::optional<BlockFormat> format) {
  const fp8q_kernel_contract &c = getKernelContract(kernel);
  unsigned arch = getArchBit(target);
  if (!(c.archs & arch)) {
    reason = llvm::formatv("kernel {0} does not run on {1}", c.name,
                           target.getArch())
                 .str();
    return false;
  }
  if (c.min_rocm_major != 0) {
    auto rocm = target.getRocmVersion();
    if (!rocm || *rocm < std::make_pair(c.min_rocm_major, c.min_rocm_minor)) {
      reason = llvm::formatv("kernel {0} needs ROCm >= {1}.{2}, target has {3}",
                             c.name, c.min_rocm_major, c.min_rocm_minor,
                             rocm ? target.getRocm() : StringRef("none"))
                   .str();
      return false;
    }
  }
  // The fp8 flavour is FP8 1x128's; MX, NVFP4 and UE8M0 gemms are matched
  // by format (kernelReadsFormat).
  bool flavoured =
      isFp8Type(fp8) && (!format || *format == BlockFormat::Fp8Block);
  Type want = flavoured ? getRequiredFp8Type(kernel, target) : Type();
  if (want && fp8 != want) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "kernel " << c.name << " on " << target.getArch() << " reads " << want
       << ", got " << fp8;
    reason = text;
    return false;
  }
  return true;
}

} // namespace fp8q
