// Upstream mlir-opt loads libFp8qPlugin.so, parses and verifies generic-form
// IR for every op and attribute of SPEC, and runs fp8q passes through
// --pass-pipeline.
// RUN: mlir-opt %s --load-dialect-plugin=%fp8q_plugin --load-pass-plugin=%fp8q_plugin \
// RUN:   --pass-pipeline="builtin.module(fp8q-verify-contracts)" | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%fp8q_plugin --load-pass-plugin=%fp8q_plugin \
// RUN:   --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// NOPLUGIN: error

// CHECK: module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">}
// CHECK-LABEL: func.func @all_ops
// CHECK: fp8q.rms_norm_quantize
// CHECK: fp8q.quantize
// CHECK: fp8q.materialize
// CHECK: fp8q.preshuffle
// CHECK: fp8q.gemm
// GENERIC: "fp8q.gemm"(%{{.*}}) <{kernel = #fp8q.kernel<ck_bpreshuffle>}>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<?x256xbf16>, tensor<256xbf16>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32>) -> tensor<?x128xbf16>, sym_name = "all_ops"}> ({
  ^bb0(%x: tensor<?x256xbf16>, %g: tensor<256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>):
    %q0, %s0, %y = "fp8q.rms_norm_quantize"(%x, %g) <{epsilon = 1.0e-06 : f32, group_size = 128 : i64, keep_unquantized, resultSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<?x256xbf16>, tensor<256xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<?x256xbf16>)
    %q, %s = "fp8q.quantize"(%y) <{group_size = 128 : i64, operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<?x256xbf16>) -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<row_major>>)
    %c = "fp8q.materialize"(%s) : (tensor<?x2xf32, #fp8q.layout<row_major>>) -> tensor<?x2xf32, #fp8q.layout<col_major>>
    %p = "fp8q.preshuffle"(%w) : (tensor<128x256xf8E4M3FN>) -> tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
    %out = "fp8q.gemm"(%q, %c, %p, %ws) <{kernel = #fp8q.kernel<ck_bpreshuffle>}> : (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32>) -> tensor<?x128xbf16>
    "func.return"(%out) : (tensor<?x128xbf16>) -> ()
  }) : () -> ()
}) {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} : () -> ()
