//===- StripAttributes.cpp - Drop fp8q attributes after lowering ----------===//

#include "fp8q/Conversion/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace fp8q {
#define GEN_PASS_DEF_STRIPATTRIBUTES
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

/// True if `attr` is an attribute of the fp8q dialect.
bool isFp8qAttr(Attribute attr, Dialect *dialect) {
  return dialect && &attr.getDialect() == dialect;
}

/// `type` without an fp8q encoding, or nullopt if it has none.
std::optional<RankedTensorType> stripFp8qEncoding(Type type, Dialect *dialect) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked || !ranked.getEncoding() ||
      !isFp8qAttr(ranked.getEncoding(), dialect))
    return std::nullopt;
  return RankedTensorType::get(ranked.getShape(), ranked.getElementType());
}

/// True if `attr` is or holds an fp8q attribute, including through the
/// type of a typed attribute (Attribute::walk does not visit the type of a
/// DenseElementsAttr).
bool holdsFp8q(Attribute attr, Dialect *dialect) {
  return attr
      .walk([&](Attribute nested) {
        if (isFp8qAttr(nested, dialect))
          return WalkResult::interrupt();
        if (auto typed = dyn_cast<TypedAttr>(nested))
          if (typed.getType()
                  .walk([&](Attribute inType) {
                    return isFp8qAttr(inType, dialect) ? WalkResult::interrupt()
                                                       : WalkResult::advance();
                  })
                  .wasInterrupted())
            return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

struct StripAttributesPass
    : public fp8q::impl::StripAttributesBase<StripAttributesPass> {
  void runOnOperation() override {
    auto *dialect = getContext().getLoadedDialect<fp8q::Fp8qDialect>();
    // Tensor types nested in attributes keep their encoding after
    // bufferization: a constant weight preshuffled at compile time becomes a
    // memref.global whose initial value is typed
    // tensor<NxKxf8, #fp8q.weight_layout<...>>. The bytes already are the
    // stored layout, so the encoding is dropped.
    AttrTypeReplacer replacer;
    // Only constants are rewritten: a value still typed with an fp8q
    // encoding means the module was not lowered, which is reported below.
    replacer.addReplacement(
        [dialect](DenseElementsAttr attr) -> std::optional<Attribute> {
          if (auto plain = stripFp8qEncoding(attr.getType(), dialect))
            return attr.reshape(*plain);
          return std::nullopt;
        });
    replacer.addReplacement(
        [dialect](DenseResourceElementsAttr attr) -> std::optional<Attribute> {
          if (auto plain = stripFp8qEncoding(attr.getType(), dialect))
            return DenseResourceElementsAttr::get(*plain, attr.getRawHandle());
          return std::nullopt;
        });

    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (dialect && op->getDialect() == dialect) {
        emitError(op->getLoc())
            << "'" << op->getName()
            << "' is left after lowering to the runtime; run "
               "--fp8q-bufferize and --fp8q-lower-to-runtime first";
        return WalkResult::interrupt();
      }
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (attr.getName().getValue().starts_with("fp8q."))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
      replacer.replaceElementsIn(op, /*replaceAttrs=*/true,
                                 /*replaceLocs=*/false, /*replaceTypes=*/false);

      // Anything of fp8q still reachable from the op would make the module
      // unreadable without the dialect: report it instead of printing it.
      bool found = holdsFp8q(op->getAttrDictionary(), dialect);
      for (Type type : llvm::concat<const Type>(op->getOperandTypes(),
                                                op->getResultTypes()))
        found = found || holdsFp8q(TypeAttr::get(type), dialect);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Type type : block.getArgumentTypes())
            found = found || holdsFp8q(TypeAttr::get(type), dialect);
      if (found) {
        emitError(op->getLoc())
            << "'" << op->getName()
            << "' still carries an fp8q attribute or type after lowering to "
               "the runtime; run --fp8q-bufferize and --fp8q-lower-to-runtime "
               "first";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
