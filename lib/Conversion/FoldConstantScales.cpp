//===- FoldConstantScales.cpp - Constant scales laid out at compile time
//---===//
//
// A weight scale that is a constant and is materialized into a kernel's
// layout (a padded SPEC v2 layout, or col_major) needs no copy at run time:
// its bytes in the kernel's layout are a function of the constant. Before
// One-Shot Bufferize, each such `fp8q.materialize` becomes a private
// constant `memref.global` holding the layout's whole allocation in stored
// order (padding 0, fp8q_scale_layouts.h's offsets), viewed in the layout
// (`memref.reinterpret_cast`, as a padded buffer is after allocation) and
// handed to its readers through `bufferization.to_tensor restrict`. This is
// the scale-side twin of preshuffle's constant folding: preshuffle folds at
// the tensor level because a preshuffled weight keeps its logical shape,
// while a padded scale's allocation is larger than its [M, G] tensor and
// has no tensor literal.
//
// Only materializations whose every user reads the scale (fp8q.gemm) are
// folded: the global is read-only memory.
//
//===----------------------------------------------------------------------===//

#include "FoldConstantScales.h"

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "fp8q/Dialect/IR/ScaleLayout.h"
#include "fp8q/Dialect/Transforms/BufferizableOpInterfaceImpl.h"
#include "fp8q/Runtime/fp8q_scale_layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>
#include <vector>

using namespace mlir;

namespace fp8q {

namespace {

/// The stored bytes of constant `value` (logical [M, G], row-major, no
/// encoding) in `layout`: the layout's whole allocation, padding 0.
/// Returns a null attribute for element types without whole bytes.
DenseElementsAttr layOutConstant(DenseElementsAttr value, LayoutAttr layout,
                                 int64_t M, int64_t G) {
  Type element = value.getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return {};
  const size_t eltBytes = bits / 8;
  const int code = layout.getLayoutCode();
  const int64_t align = layout.getAlign();
  const int64_t alloc = fp8q_scale_layout_alloc(code, align, M, G);
  std::vector<char> bytes(alloc * eltBytes, 0);
  ArrayRef<char> raw = value.getRawData();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t g = 0; g < G; ++g) {
      const int64_t from = value.isSplat() ? 0 : m * G + g;
      const int64_t to = fp8q_scale_offset(code, align, M, G, m, g);
      std::memcpy(bytes.data() + to * eltBytes, raw.data() + from * eltBytes,
                  eltBytes);
    }
  auto flatType = RankedTensorType::get({alloc}, element);
  return DenseElementsAttr::getFromRawBuffer(flatType, bytes);
}

/// The materializations this file folds: a plain constant source of
/// static shape, a result layout that stores bytes elsewhere than
/// row-major, and only gemms reading the result.
bool isFoldable(MaterializeOp op, DenseElementsAttr &value) {
  auto source = cast<RankedTensorType>(op.getScale().getType());
  auto result = cast<RankedTensorType>(op.getType());
  auto layout = dyn_cast_or_null<LayoutAttr>(result.getEncoding());
  if (op.isNoCopy() || source.getEncoding() || !result.hasStaticShape() ||
      !layout || layout.isRowMajor())
    return false;
  if (!matchPattern(op.getScale(), m_Constant(&value)))
    return false;
  return llvm::all_of(op->getUsers(),
                      [](Operation *user) { return isa<GemmOp>(user); });
}

} // namespace

unsigned foldConstantScaleLayouts(ModuleOp module) {
  SmallVector<std::pair<MaterializeOp, DenseElementsAttr>> folds;
  module.walk([&](MaterializeOp op) {
    DenseElementsAttr value;
    if (isFoldable(op, value))
      folds.push_back({op, value});
  });
  SymbolTable symbols(module);
  unsigned folded = 0;
  for (auto [op, value] : folds) {
    auto result = cast<RankedTensorType>(op.getType());
    auto layout = cast<LayoutAttr>(result.getEncoding());
    int64_t M = result.getDimSize(0), G = result.getDimSize(1);
    DenseElementsAttr stored = layOutConstant(value, layout, M, G);
    if (!stored)
      continue;
    Location loc = op.getLoc();
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    auto flatType = MemRefType::get(stored.getType().getShape(),
                                    stored.getType().getElementType());
    auto global = memref::GlobalOp::create(
        b, loc, "__fp8q_scale", b.getStringAttr("private"), flatType, stored,
        /*constant=*/true, /*alignment=*/b.getI64IntegerAttr(64));
    symbols.insert(global); // renames on collision

    b.setInsertionPoint(op);
    Value flat =
        memref::GetGlobalOp::create(b, loc, flatType, global.getSymName());
    MemRefType viewType = getFp8qMemRefType(result);
    SmallVector<int64_t> strides = {0, 0};
    int64_t s0, s1;
    if (fp8q_scale_layout_strides(layout.getLayoutCode(), layout.getAlign(), M,
                                  G, &s0, &s1))
      strides = {s0, s1};
    Value view = memref::ReinterpretCastOp::create(
        b, loc, viewType, flat, /*offset=*/0, ArrayRef<int64_t>{M, G}, strides);
    auto tensor = bufferization::ToTensorOp::create(
        b, loc, result, view, /*restrict=*/true, /*writable=*/false);
    Operation *constant = op.getScale().getDefiningOp();
    op.replaceAllUsesWith(tensor.getResult());
    op.erase();
    if (constant->use_empty())
      constant->erase();
    ++folded;
  }
  return folded;
}

} // namespace fp8q
