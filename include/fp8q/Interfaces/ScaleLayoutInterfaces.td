//===- ScaleLayoutInterfaces.td - Ops that carry a scale layout -*- tablegen -*-===//
//
// The per-op layout rules of --fp8q-propagate-scale-layout, attached to ops
// as interfaces (as Triton attaches its per-op layout rules): an op that
// implements ScaleLayoutCarrierOpInterface is seen through by the analysis;
// adding one is an external model, no edit of the pass.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_INTERFACES_SCALELAYOUTINTERFACES
#define FP8Q_INTERFACES_SCALELAYOUTINTERFACES

include "mlir/IR/OpBase.td"

def ScaleLayoutCarrierOpInterface : OpInterface<"ScaleLayoutCarrierOpInterface"> {
  let description = [{
    An op that carries an activation scale's layout along M: some of its
    results are stored in the layout of some of its scale operands (a cast,
    a slice of whole rows, a concatenation along dim 0). Layouts are
    `#fp8q.layout` encodings of rank-2 f32 tensors (see SPEC.md).

    For `--fp8q-propagate-scale-layout` (ScaleLayoutAnalysis), a result for
    which `carriesScaleLayout` holds is a free node of the layout problem:
    the pass may retype it, and every operand whose
    `getCarriedScaleLayoutResult` is that result then gets the same layout
    (a `fp8q.materialize` is inserted where it has another one). An operand
    carried into no result is an ordinary consumer (row_major, with a
    remark); a result that carries no layout keeps its type.

    A model must keep the op valid under that rewrite: retyping the carrying
    result and every operand carried into it to one layout, and nothing
    else, gives a verified op, and bufferization stores the result in that
    layout.
  }];
  let cppNamespace = "::fp8q";

  let methods = [
    InterfaceMethod<[{
        Returns the result of this op that is stored in `operand`'s layout
        (the layout is carried into it along M), or null when the operand's
        layout is carried into no result.
      }],
      "::mlir::Value", "getCarriedScaleLayoutResult",
      (ins "::mlir::OpOperand &":$operand)>,
    InterfaceMethod<[{
        Returns whether `result` takes its layout from the operands carried
        into it (the pass may retype it), rather than keeping its type. By
        default: whether some operand is carried into it.
      }],
      "bool", "carriesScaleLayout", (ins "::mlir::OpResult":$result), [{}],
      /*defaultImplementation=*/[{
        for (::mlir::OpOperand &operand : $_op->getOpOperands())
          if (::llvm::cast<::fp8q::ScaleLayoutCarrierOpInterface>(
                  $_op.getOperation())
                  .getCarriedScaleLayoutResult(operand) == result)
            return true;
        return false;
      }]>,
  ];
}

#endif // FP8Q_INTERFACES_SCALELAYOUTINTERFACES
