//===- StripAttributes.cpp - Drop fp8q attributes after lowering ----------===//

#include "fp8q/Conversion/Passes.h"

namespace fp8q {
#define GEN_PASS_DEF_STRIPATTRIBUTES
#include "fp8q/Conversion/Passes.h.inc"
} // namespace fp8q

using namespace mlir;

namespace {

struct StripAttributesPass
    : public fp8q::impl::StripAttributesBase<StripAttributesPass> {
  void runOnOperation() override {
    auto *dialect = getContext().getLoadedDialect<fp8q::Fp8qDialect>();
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (dialect && op->getDialect() == dialect) {
        op->emitError() << "'" << op->getName()
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
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
