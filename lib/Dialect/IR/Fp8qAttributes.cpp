//===- Fp8qAttributes.cpp - fp8q attributes -------------------------------===//

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Runtime/fp8q_preshuffle.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

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
                                 ScaleOrder order, int64_t align,
                                 int64_t pack) {
  if (align < 1)
    return emitError() << "layout align must be a positive integer, got "
                       << align;
  if (order != ScaleOrder::ColMajor && align != 1)
    return emitError() << "align applies only to col_major layouts";
  if (pack != 1 && pack != 4)
    return emitError() << "layout pack must be 4 (four 1-byte scales per "
                          "32-bit word), got "
                       << pack;
  if (order != ScaleOrder::ColMajor && pack != 1)
    return emitError() << "pack applies only to col_major layouts "
                          "(col_major, align = a, pack = 4)";
  return success();
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<ScaleOrder> order = symbolizeScaleOrder(keyword);
  if (!order) {
    parser.emitError(loc) << "expected one of row_major, col_major, "
                             "swizzle_32_4_4, cdna4_mx; got '"
                          << keyword << "'";
    return {};
  }
  int64_t align = 1, pack = 1;
  bool seenAlign = false, seenPack = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    bool isAlign = key == "align";
    if (!isAlign && key != "pack") {
      parser.emitError(keyLoc)
          << "expected 'align' or 'pack' in #fp8q.layout, got '" << key << "'";
      return {};
    }
    bool &seen = isAlign ? seenAlign : seenPack;
    if (seen) {
      parser.emitError(keyLoc) << "'" << key << "' given twice";
      return {};
    }
    seen = true;
    if (parser.parseEqual() || parser.parseInteger(isAlign ? align : pack))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LayoutAttr>(loc, ctx, *order, align, pack);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << '<' << stringifyScaleOrder(getOrder());
  if (getAlign() != 1)
    printer << ", align = " << getAlign();
  if (getPack() != 1)
    printer << ", pack = " << getPack();
  printer << '>';
}

int LayoutAttr::getLayoutCode() const {
  switch (getOrder()) {
  case ScaleOrder::RowMajor:
    return FP8Q_LAYOUT_ROW_MAJOR;
  case ScaleOrder::ColMajor:
    return getPack() == 4 ? FP8Q_LAYOUT_COL_MAJOR_PACK4 : FP8Q_LAYOUT_COL_MAJOR;
  case ScaleOrder::Swizzle32x4x4:
    return FP8Q_LAYOUT_SWIZZLE_32_4_4;
  case ScaleOrder::Cdna4Mx:
    return FP8Q_LAYOUT_CDNA4_MX;
  }
  llvm_unreachable("unknown scale order");
}

LogicalResult
LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  // The tensor type parser verifies the encoding even when the element type
  // failed to parse (it has reported that error): nothing to check then.
  if (!elementType)
    return success();
  if (shape.size() != 2 ||
      !(elementType.isF32() || isByteScaleType(elementType)))
    return emitError() << "#fp8q.layout encodes activation scales and must "
                          "be on a rank-2 f32 tensor, got rank "
                       << shape.size() << " of " << elementType;
  // SPEC v2: the padded layouts' offsets are bytes, defined on 1-byte
  // scales only.
  if (fp8q_scale_layout_bytes_only(getLayoutCode()) &&
      !isByteScaleType(elementType)) {
    if (getPack() == 4)
      return emitError()
             << "col_major pack = 4 packs four 1-byte scales per 32-bit word "
                "and cannot hold "
             << elementType
             << " (4-byte) scales; use f8E8M0FNU scales or drop pack = 4";
    return emitError() << stringifyScaleOrder(getOrder())
                       << " holds 1-byte scales (f8E8M0FNU or f8E4M3FN) "
                          "only, got "
                       << elementType
                       << "; use row_major or col_major for an f32 scale";
  }
  return success();
}

// As a memref layout (padded layouts only): strides (0, 0), offset 0. The
// affine map is the constant 0, which is what (0, 0) strides mean: no
// strided access addresses more than the base element.
AffineMap LayoutAttr::getAffineMap() const {
  return AffineMap::get(2, 0, getAffineConstantExpr(0, getContext()));
}

bool LayoutAttr::isIdentity() const { return false; }

LogicalResult
LayoutAttr::verifyLayout(ArrayRef<int64_t> shape,
                         function_ref<InFlightDiagnostic()> emitError) const {
  if (isStrided())
    return emitError() << "#fp8q.layout<" << stringifyScaleOrder(getOrder())
                       << "> is a tensor encoding; a memref states a strided "
                          "scale layout with strided<[...]>";
  if (shape.size() != 2)
    return emitError() << "a memref in a padded scale layout must be the "
                          "rank-2 logical [M, G] scale, got rank "
                       << shape.size();
  return success();
}

LogicalResult LayoutAttr::getStridesAndOffset(ArrayRef<int64_t> shape,
                                              SmallVectorImpl<int64_t> &strides,
                                              int64_t &offset) const {
  if (isStrided() || shape.size() != 2)
    return failure();
  strides.assign(2, 0);
  offset = 0;
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
  bool fp4 = isa<Float4E2M1FNType>(elementType);
  if (shape.size() != 2 || !(isFp8Type(elementType) || fp4))
    return emitError() << "#fp8q.weight_layout must be on a rank-2 fp8 or "
                          "f4E2M1FN weight tensor, got rank "
                       << shape.size() << " of " << elementType;
  int64_t n = shape[0], k = shape[1];
  if (ShapedType::isDynamic(n) || ShapedType::isDynamic(k))
    return emitError() << "preshuffle_16x16 needs a static weight shape";
  // SPEC v2: an f4E2M1FN weight is shuffled byte-wise, its [N, K/2] bytes
  // as the tiles.
  if (fp4 && (k % 2 != 0 || !fp8q_preshuffle_tiles_ok(n, k / 2)))
    return emitError() << "preshuffle_16x16 of an f4E2M1FN weight shuffles "
                          "its [N, K/2] bytes and needs N % 16 == 0 and "
                          "K % 64 == 0, got N = "
                       << n << ", K = " << k;
  if (!fp4 && !fp8q_preshuffle_tiles_ok(n, k))
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
  if (arch != "gfx942" && arch != "gfx950" && arch != "sm90" && arch != "sm100")
    return emitError() << "unknown target arch '" << arch
                       << "'; expected one of gfx942, gfx950, sm90, sm100";
  if (!rocm.empty() && !parseVersion(rocm))
    return emitError() << "malformed rocm version '" << rocm
                       << "'; expected MAJOR.MINOR, e.g. \"7.2\"";
  if (!rocm.empty() && arch.starts_with("sm"))
    return emitError() << "rocm version given for the NVIDIA target " << arch;
  return success();
}

std::optional<std::pair<int, int>> TargetAttr::getRocmVersion() const {
  if (getRocm().empty())
    return std::nullopt;
  return parseVersion(getRocm());
}
