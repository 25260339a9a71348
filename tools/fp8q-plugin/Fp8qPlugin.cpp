//===- Fp8qPlugin.cpp - fp8q plugin for upstream mlir-opt -----------------===//

#include "fp8q/InitFp8q.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

// Both entry points keep default visibility: mlir-opt looks them up by name
// and ignores a plugin whose entry points are hidden.
#define FP8Q_PLUGIN_EXPORT __attribute__((visibility("default")))
extern "C" LLVM_ATTRIBUTE_WEAK FP8Q_PLUGIN_EXPORT mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Fp8q", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            fp8q::registerFp8qDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK FP8Q_PLUGIN_EXPORT mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Fp8qPasses", LLVM_VERSION_STRING,
          []() { fp8q::registerFp8qPassesAndPipelines(); }};
}
