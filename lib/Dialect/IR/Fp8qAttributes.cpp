//===- Fp8qAttributes.cpp - fp8q attributes -------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fp8q;

#include "fp8q/Dialect/IR/Fp8qEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "fp8q/Dialect/IR/Fp8qAttributes.cpp.inc"

void Fp8qDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fp8q/Dialect/IR/Fp8qAttributes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ScaleOrder order, int64_t align) {
  if (align < 1)
    return emitError() << "layout align must be a positive integer, got "
                       << align;
  if (order == ScaleOrder::RowMajor && align != 1)
    return emitError() << "align applies only to col_major layouts";
  return success();
}

LogicalResult
LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  // The tensor type parser verifies the encoding even when the element type
  // failed to parse (it has reported that error): nothing to check then.
  if (!elementType)
    return success();
  if (shape.size() != 2 || !elementType.isF32())
    return emitError() << "#fp8q.layout encodes activation scales and must "
                          "be on a rank-2 f32 tensor, got rank "
                       << shape.size() << " of " << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// WeightLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult WeightLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (!elementType) // see LayoutAttr::verifyEncoding
    return success();
  if (shape.size() != 2 || !isFp8Type(elementType))
    return emitError() << "#fp8q.weight_layout must be on a rank-2 fp8 "
                          "weight tensor, got rank "
                       << shape.size() << " of " << elementType;
  int64_t n = shape[0], k = shape[1];
  if (ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return emitError() << "preshuffle_16x16 needs a static weight shape";
  if (!fp8q_preshuffle_tiles_ok(n, k))
    return emitError() << "preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0, "
                          "got N = "
                       << n << ", K = " << k;
  return success();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

/// Parses "major.minor" (or "major") into a pair; nullopt if malformed.
static std::optional<std::pair<int, int>> parseVersion(StringRef text) {
  auto [majorText, minorText] = text.split('.');
  int major = 0, minor = 0;
  if (majorText.getAsInteger(10, major) || major < 0)
    return std::nullopt;
  if (!minorText.empty() && (minorText.getAsInteger(10, minor) || minor < 0))
    return std::nullopt;
  return std::make_pair(major, minor);
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef arch, StringRef rocm) {
  if (arch != "gfx942" && arch != "gfx950" && arch != "sm90")
    return emitError() << "unknown target arch '" << arch
                       << "'; expected one of gfx942, gfx950, sm90";
  if (!rocm.empty() && !parseVersion(rocm))
    return emitError() << "malformed rocm version '" << rocm
                       << "'; expected MAJOR.MINOR, e.g. \"7.2\"";
  if (!rocm.empty() && arch == "sm90")
    return emitError() << "rocm version given for the NVIDIA target sm90";
  return success();
}

std::optional<std::pair<int, int>> TargetAttr::getRocmVersion() const {
  if (getRocm().empty())
    return std::nullopt;
  return parseVersion(getRocm());
}
