//===- VerifierUtils.cpp - Shared helpers of the fp8q verifiers -----------===//

#include "VerifierUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fp8q::detail {

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  return text;
}

LogicalResult verifyShape(Operation *op, StringRef name, Value value,
                          ArrayRef<int64_t> expected) {
  auto type = cast<ShapedType>(value.getType());
  bool ok = type.getRank() == static_cast<int64_t>(expected.size());
  for (int64_t d = 0; ok && d < type.getRank(); ++d)
    ok = type.getDimSize(d) == expected[d] ||
         ShapedType::isDynamic(type.getDimSize(d)) ||
         ShapedType::isDynamic(expected[d]);
  if (!ok)
    return op->emitOpError()
           << name << " must have shape [" << formatShape(expected)
           << "], got [" << formatShape(type.getShape()) << "]";
  return success();
}

StringRef getMissingGemmGlobalScaleMessage() {
  return "NVFP4 (f4E2M1FN q and w, f8E4M3FN scales) needs the rank-0 f32 "
         "global_scale operand: the product of the activation and weight "
         "global scales (out = global_scale * sum_g x_scale * w_scale * dot)";
}

LogicalResult verifyGemmGlobalScale(Operation *op, BlockFormat format,
                                    bool hasGlobalScale, bool requireForNvfp4) {
  if (format == BlockFormat::NvFp4 && !hasGlobalScale && requireForNvfp4)
    return op->emitOpError() << getMissingGemmGlobalScaleMessage();
  if (format != BlockFormat::NvFp4 && hasGlobalScale)
    return op->emitOpError()
           << "global_scale (the product of NVFP4's two global scales) "
              "applies only to an NVFP4 gemm; drop it for "
           << getBlockFormatName(format);
  return success();
}

} // namespace fp8q::detail
