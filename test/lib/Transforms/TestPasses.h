//===- TestPasses.h - fp8q passes for tests and benchmarks ------*- C++ -*-===//
//
// The hand-placed baseline (`--fp8q-hand-placed-copies`): a reference policy
// for measurements, registered by fp8q-opt's test registration only.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_TEST_TRANSFORMS_TESTPASSES_H
#define FP8Q_TEST_TRANSFORMS_TESTPASSES_H

#include "fp8q/Dialect/IR/Fp8qDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fp8q::test {

#define GEN_PASS_DECL
#include "TestPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

/// Registers every fp8q test pass with the global pass registry.
inline void registerFp8qTestPasses() { registerFp8qTestPassesPasses(); }

} // namespace fp8q::test

#endif // FP8Q_TEST_TRANSFORMS_TESTPASSES_H
