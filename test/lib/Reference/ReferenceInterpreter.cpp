//===- ReferenceInterpreter.cpp - Unquantized reference of fp8q IR --------===//

#include "ReferenceInterpreter.h"

#include "fp8q/Dialect/IR/Collectives.h"
#include "fp8q/Dialect/IR/Fp8qDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;

namespace fp8q {

int64_t RefTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

RefTensor RefTensor::make(ArrayRef<int64_t> shape, std::vector<float> values) {
  RefTensor t;
  t.shape.assign(shape.begin(), shape.end());
  t.data = std::make_shared<const std::vector<float>>(std::move(values));
  return t;
}

namespace {
class Interpreter {
public:
  explicit Interpreter(ModuleOp module) : symbols(module) {}

  FailureOr<SmallVector<RefTensor>> call(func::FuncOp fn,
                                         ArrayRef<RefTensor> args);

private:
  LogicalResult runBlock(Block &block, SmallVector<RefTensor> &results);
  LogicalResult run(Operation *op);
  const RefTensor &get(Value v) { return values.find(v)->second; }
  double scalar(Value v) { return get(v)[0]; }
  int64_t index(OpFoldResult r) {
    if (auto attr = dyn_cast<Attribute>(r))
      return cast<IntegerAttr>(attr).getInt();
    return static_cast<int64_t>(scalar(cast<Value>(r)));
  }
  void set(Value v, RefTensor t) { values[v] = std::move(t); }

  template <typename Fn> LogicalResult unary(Operation *op, Fn fn) {
    const RefTensor &a = get(op->getOperand(0));
    std::vector<float> out(a.data->size());
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = float(fn(double(a[i])));
    set(op->getResult(0), RefTensor::make(a.shape, std::move(out)));
    return success();
  }
  template <typename Fn> LogicalResult binary(Operation *op, Fn fn) {
    const RefTensor &a = get(op->getOperand(0)), &b = get(op->getOperand(1));
    std::vector<float> out(a.data->size());
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = float(fn(double(a[i]), double(b[i])));
    set(op->getResult(0), RefTensor::make(a.shape, std::move(out)));
    return success();
  }

  LogicalResult rmsNorm(RmsNormQuantizeOp op);
  LogicalResult gemm(GemmOp op);
  LogicalResult extractSlice(tensor::ExtractSliceOp op);
  LogicalResult forLoop(scf::ForOp op);
  void quantizeIdentity(Value x, Value q, Value scale);

  SymbolTable symbols;
  llvm::DenseMap<Value, RefTensor> values;
};

/// Shape of a (possibly dynamic) tensor type, resolved against a reference
/// tensor of the same leading extent.
static SmallVector<int64_t, 3> resolvedShape(Type type, int64_t rows) {
  SmallVector<int64_t, 3> shape(cast<ShapedType>(type).getShape());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = rows;
  return shape;
}

/// All-ones scales of `type` with `rows` rows.
static RefTensor ones(Type type, int64_t rows) {
  SmallVector<int64_t, 3> shape = resolvedShape(type, rows);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return RefTensor::make(shape, std::vector<float>(n, 1.0f));
}

void Interpreter::quantizeIdentity(Value x, Value q, Value scale) {
  // Quantization taken out: q carries x itself and every scale is 1.
  const RefTensor &in = get(x);
  set(q, in);
  set(scale, ones(scale.getType(), in.shape[0]));
}

LogicalResult Interpreter::rmsNorm(RmsNormQuantizeOp op) {
  RefTensor x = get(op.getX());
  const RefTensor &gamma = get(op.getGamma());
  int64_t m = x.shape[0], k = x.shape[1];
  // The fused residual add: the sum is normalized and returned.
  if (Value residual = op.getResidual()) {
    const RefTensor &r = get(residual);
    std::vector<float> sum(m * k);
    for (int64_t i = 0; i < m * k; ++i)
      sum[i] = x[i] + r[i];
    x = RefTensor::make(x.shape, std::move(sum));
    set(op.getResidualSum(), x);
  }
  double eps = op.getEpsilon().convertToDouble();
  std::vector<float> values(m * k);
  for (int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < k; ++j)
      sum += double(x[i * k + j]) * x[i * k + j];
    double inv = 1.0 / std::sqrt(sum / k + eps);
    for (int64_t j = 0; j < k; ++j)
      values[i * k + j] = float(x[i * k + j] * inv * gamma[j]);
  }
  RefTensor y = RefTensor::make(x.shape, std::move(values));
  set(op.getQ(), y);
  set(op.getScale(), ones(op.getScale().getType(), m));
  if (op.getUnquantized())
    set(op.getUnquantized(), y);
  return success();
}

LogicalResult Interpreter::gemm(GemmOp op) {
  const RefTensor &q = get(op.getQ()), &xs = get(op.getXScale());
  const RefTensor &w = get(op.getW()), &ws = get(op.getWScale());
  int64_t m = q.shape[0], k = q.shape[1], n = w.shape[0];
  int64_t groups = xs.shape[1], groupSize = k / groups;
  std::vector<float> out(m * n);
  const float *qp = q.data->data(), *wp = w.data->data();
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double acc = 0;
      for (int64_t g = 0; g < groups; ++g) {
        double part = 0;
        const float *qr = qp + i * k + g * groupSize;
        const float *wr = wp + j * k + g * groupSize;
        for (int64_t kk = 0; kk < groupSize; ++kk)
          part += double(qr[kk]) * wr[kk];
        acc += part * xs[i * groups + g] * ws[(j / 128) * ws.shape[1] + g];
      }
      out[i * n + j] = float(acc);
    }
  set(op.getOut(), RefTensor::make({m, n}, std::move(out)));
  return success();
}

LogicalResult Interpreter::extractSlice(tensor::ExtractSliceOp op) {
  const RefTensor &src = get(op.getSource());
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = op.getMixedSizes();
  for (OpFoldResult s : op.getMixedStrides())
    if (index(s) != 1)
      return op.emitError("reference: only unit strides are supported");
  int64_t rank = src.shape.size();
  SmallVector<int64_t, 3> off, size, srcStride(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    off.push_back(index(offsets[d]));
    size.push_back(index(sizes[d]));
  }
  for (int64_t d = rank - 2; d >= 0; --d)
    srcStride[d] = srcStride[d + 1] * src.shape[d + 1];
  // The result keeps the sizes, less the unit dims a rank-reduced slice drops.
  SmallVector<int64_t, 3> outShape;
  auto resultType = cast<ShapedType>(op.getType());
  if (resultType.getRank() == rank)
    outShape = size;
  else
    outShape.assign(resultType.getShape().begin(), resultType.getShape().end());
  int64_t total = 1;
  for (int64_t s : size)
    total *= s;
  std::vector<float> out(total);
  SmallVector<int64_t, 3> idx(rank, 0);
  for (int64_t e = 0; e < total; ++e) {
    int64_t flat = 0;
    for (int64_t d = 0; d < rank; ++d)
      flat += (off[d] + idx[d]) * srcStride[d];
    out[e] = src[flat];
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < size[d])
        break;
      idx[d] = 0;
    }
  }
  set(op.getResult(), RefTensor::make(outShape, std::move(out)));
  return success();
}

LogicalResult Interpreter::forLoop(scf::ForOp op) {
  int64_t lb = scalar(op.getLowerBound()), ub = scalar(op.getUpperBound());
  int64_t step = scalar(op.getStep());
  SmallVector<RefTensor> carried;
  for (Value v : op.getInitArgs())
    carried.push_back(get(v));
  for (int64_t i = lb; i < ub; i += step) {
    set(op.getInductionVar(), RefTensor::scalar(double(i)));
    for (auto [arg, value] : llvm::zip(op.getRegionIterArgs(), carried))
      set(arg, value);
    SmallVector<RefTensor> next;
    if (failed(runBlock(*op.getBody(), next)))
      return failure();
    carried = std::move(next);
  }
  for (auto [result, value] : llvm::zip(op.getResults(), carried))
    set(result, value);
  return success();
}

LogicalResult Interpreter::run(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantOp c) -> LogicalResult {
        Attribute value = c.getValue();
        if (auto i = dyn_cast<IntegerAttr>(value)) {
          set(c, RefTensor::scalar(double(i.getInt())));
        } else if (auto f = dyn_cast<FloatAttr>(value)) {
          set(c, RefTensor::scalar(f.getValueAsDouble()));
        } else if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
          std::vector<float> values;
          for (APFloat v : dense.getValues<APFloat>())
            values.push_back(float(v.convertToDouble()));
          set(c, RefTensor::make(dense.getType().getShape(), values));
        } else {
          return c.emitError("reference: unsupported constant");
        }
        return success();
      })
      .Case([&](tensor::DimOp d) {
        set(d, RefTensor::scalar(
                   double(get(d.getSource()).shape[*d.getConstantIndex()])));
        return success();
      })
      .Case([&](tensor::SplatOp s) {
        int64_t rows = s.getDynamicSizes().empty()
                           ? 0
                           : int64_t(scalar(s.getDynamicSizes()[0]));
        SmallVector<int64_t, 3> shape = resolvedShape(s.getType(), rows);
        int64_t n = 1;
        for (int64_t d : shape)
          n *= d;
        set(s, RefTensor::make(
                   shape, std::vector<float>(n, float(scalar(s.getInput())))));
        return success();
      })
      .Case([&](tensor::ExtractSliceOp s) { return extractSlice(s); })
      .Case([&](arith::AddFOp o) {
        return binary(o, [](double a, double b) { return a + b; });
      })
      .Case([&](arith::SubFOp o) {
        return binary(o, [](double a, double b) { return a - b; });
      })
      .Case([&](arith::MulFOp o) {
        return binary(o, [](double a, double b) { return a * b; });
      })
      .Case([&](arith::DivFOp o) {
        return binary(o, [](double a, double b) { return a / b; });
      })
      .Case([&](arith::NegFOp o) {
        return unary(o, [](double a) { return -a; });
      })
      .Case<arith::ExtFOp, arith::TruncFOp>(
          [&](Operation *o) { return unary(o, [](double a) { return a; }); })
      .Case([&](math::ExpOp o) {
        return unary(o, [](double a) { return std::exp(a); });
      })
      .Case([&](QuantizeOp q) {
        if (Value gate = q.getSiluGate()) {
          // The fused SwiGLU: quantize silu(gate) * x.
          const RefTensor &g = get(gate), &x = get(q.getX());
          std::vector<float> a(x.data->size());
          for (size_t i = 0; i < a.size(); ++i)
            a[i] = float(double(g[i]) / (1.0 + std::exp(-double(g[i]))) *
                         double(x[i]));
          set(q.getQ(), RefTensor::make(x.shape, std::move(a)));
          set(q.getScale(), ones(q.getScale().getType(), x.shape[0]));
          return success();
        }
        quantizeIdentity(q.getX(), q.getQ(), q.getScale());
        return success();
      })
      .Case([&](RmsNormQuantizeOp r) { return rmsNorm(r); })
      .Case([&](GemmOp g) { return gemm(g); })
      .Case<MaterializeOp, PreshuffleOp, tensor::CastOp>([&](Operation *o) {
        set(o->getResult(0), get(o->getOperand(0)));
        return success();
      })
      // One rank: a collective gives back its operand (more ranks have no
      // single-process reference).
      .Case<shard::AllGatherOp, shard::ReduceScatterOp>(
          [&](Operation *o) -> LogicalResult {
            FailureOr<int64_t> ranks = getCollectiveRanks(o);
            if (failed(ranks))
              return failure();
            if (*ranks != 1)
              return o->emitError("reference interpreter runs one rank; ")
                     << o->getName() << " is among " << *ranks;
            set(o->getResult(0), get(o->getOperand(0)));
            return success();
          })
      .Case([&](func::CallOp c) -> LogicalResult {
        auto callee = symbols.lookup<func::FuncOp>(c.getCallee());
        if (!callee || callee.isExternal())
          return c.emitError("reference: cannot call ") << c.getCallee();
        SmallVector<RefTensor> args;
        for (Value v : c.getOperands())
          args.push_back(get(v));
        FailureOr<SmallVector<RefTensor>> results = call(callee, args);
        if (failed(results))
          return failure();
        for (auto [r, v] : llvm::zip(c.getResults(), *results))
          set(r, std::move(v));
        return success();
      })
      .Case([&](scf::ForOp f) { return forLoop(f); })
      .Default([&](Operation *o) {
        return o->emitError("reference interpreter does not support ")
               << o->getName();
      });
}

LogicalResult Interpreter::runBlock(Block &block,
                                    SmallVector<RefTensor> &results) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands())
        results.push_back(get(v));
      return success();
    }
    if (failed(run(&op)))
      return failure();
  }
  return success();
}

FailureOr<SmallVector<RefTensor>> Interpreter::call(func::FuncOp fn,
                                                    ArrayRef<RefTensor> args) {
  Block &entry = fn.getBody().front();
  for (auto [arg, value] : llvm::zip(entry.getArguments(), args))
    set(arg, value);
  SmallVector<RefTensor> results;
  if (failed(runBlock(entry, results)))
    return failure();
  return results;
}
} // namespace

FailureOr<SmallVector<RefTensor>> evaluateReference(func::FuncOp fn,
                                                    ArrayRef<RefTensor> args) {
  Interpreter interpreter(fn->getParentOfType<ModuleOp>());
  return interpreter.call(fn, args);
}

} // namespace fp8q
