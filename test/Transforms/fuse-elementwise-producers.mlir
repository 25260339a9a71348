// RUN: fp8q-opt %s -split-input-file -fp8q-fuse-elementwise-producers | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -fp8q-fuse-elementwise-producers -fp8q-fuse-elementwise-producers | FileCheck %s

// Running the pass twice (second RUN line) gives the same IR.

// The residual add is fused; its later use (the next residual add) reads
// the sum the fused op returns.
// CHECK-LABEL: func.func @residual_add
// CHECK-SAME: (%[[H:.*]]: tensor<4x256xbf16>, %[[A:.*]]: tensor<4x256xbf16>, %[[G:.*]]: tensor<256xbf16>, %[[M:.*]]: tensor<4x256xbf16>)
// CHECK-NOT: arith.addf %[[H]]
// CHECK: %[[Q:.*]], %[[S:.*]], %[[SUM:.*]] = fp8q.rms_norm_quantize %[[H]], %[[G]] residual(%[[A]] : tensor<4x256xbf16> -> tensor<4x256xbf16>) {epsilon = 9.99999974E-6 : f32}
// CHECK: %[[NEXT:.*]] = arith.addf %[[SUM]], %[[M]]
// CHECK: return %[[Q]], %[[S]], %[[NEXT]]
func.func @residual_add(%h: tensor<4x256xbf16>, %attn: tensor<4x256xbf16>, %gamma: tensor<256xbf16>, %mlp: tensor<4x256xbf16>)
    -> (tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xbf16>) {
  %sum = arith.addf %h, %attn : tensor<4x256xbf16>
  %q, %s = fp8q.rms_norm_quantize %sum, %gamma {epsilon = 1.0e-05 : f32}
      : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  %next = arith.addf %sum, %mlp : tensor<4x256xbf16>
  return %q, %s, %next : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xbf16>
}

// -----

// keep_unquantized, the scale's layout and discardable attributes survive.
// CHECK-LABEL: func.func @residual_keeps_results
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = fp8q.rms_norm_quantize %{{.*}}, %{{.*}} residual(%{{.*}} : tensor<?x256xbf16> -> tensor<?x256xbf16>) {keep_unquantized, tag = "n"} : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>
func.func @residual_keeps_results(%h: tensor<?x256xbf16>, %a: tensor<?x256xbf16>, %gamma: tensor<256xbf16>)
    -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>) {
  %sum = arith.addf %h, %a : tensor<?x256xbf16>
  %q, %s, %y = fp8q.rms_norm_quantize %sum, %gamma {keep_unquantized, tag = "n"}
      : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>
  return %q, %s, %y : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>
}

// -----

// A use of the sum before the norm would not be dominated by the fused op:
// nothing changes.
// CHECK-LABEL: func.func @residual_used_before
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: arith.mulf %[[SUM]]
// CHECK: fp8q.rms_norm_quantize %[[SUM]], %{{.*}} :
func.func @residual_used_before(%h: tensor<4x256xbf16>, %a: tensor<4x256xbf16>, %gamma: tensor<256xbf16>)
    -> (tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xbf16>) {
  %sum = arith.addf %h, %a : tensor<4x256xbf16>
  %twice = arith.mulf %sum, %sum : tensor<4x256xbf16>
  %q, %s = fp8q.rms_norm_quantize %sum, %gamma
      : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  return %q, %s, %twice : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<4x256xbf16>
}

// -----

// A later use nested in a region (a loop after the norm) is dominated.
// CHECK-LABEL: func.func @residual_used_in_later_region
// CHECK-NOT: arith.addf %arg
// CHECK: %{{.*}}, %{{.*}}, %[[SUM:.*]] = fp8q.rms_norm_quantize %arg0, %arg2 residual(%arg1
// CHECK: scf.for
// CHECK: arith.addf %[[SUM]]
func.func @residual_used_in_later_region(%h: tensor<4x256xbf16>, %a: tensor<4x256xbf16>, %gamma: tensor<256xbf16>)
    -> (tensor<4x2xf32>, tensor<4x256xbf16>) {
  %sum = arith.addf %h, %a : tensor<4x256xbf16>
  %q, %s = fp8q.rms_norm_quantize %sum, %gamma
      : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %a) -> tensor<4x256xbf16> {
    %n = arith.addf %sum, %acc : tensor<4x256xbf16>
    scf.yield %n : tensor<4x256xbf16>
  }
  return %s, %r : tensor<4x2xf32>, tensor<4x256xbf16>
}

// -----

// SwiGLU as fp8q-model-gen writes it: two column slices, extended to f32,
// g / (1 + exp(-g)) * u, quantized. The fused op reads the bf16 slices and
// the unfused chain is gone.
// CHECK-LABEL: func.func @silu_mul
// CHECK-SAME: (%[[GU:.*]]: tensor<16x512xbf16>)
// CHECK-DAG: %[[GATE:.*]] = tensor.extract_slice %[[GU]][0, 0] [16, 256] [1, 1]
// CHECK-DAG: %[[UP:.*]] = tensor.extract_slice %[[GU]][0, 256] [16, 256] [1, 1]
// CHECK: %[[Q:.*]], %[[S:.*]] = fp8q.quantize %[[UP]] silu_gate(%[[GATE]] : tensor<16x256xbf16>) : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: math.exp
// CHECK-NOT: arith.extf
// CHECK: return %[[Q]], %[[S]]
func.func @silu_mul(%gu: tensor<16x512xbf16>)
    -> (tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>) {
  %gate = tensor.extract_slice %gu[0, 0] [16, 256] [1, 1] : tensor<16x512xbf16> to tensor<16x256xbf16>
  %up = tensor.extract_slice %gu[0, 256] [16, 256] [1, 1] : tensor<16x512xbf16> to tensor<16x256xbf16>
  %g = arith.extf %gate : tensor<16x256xbf16> to tensor<16x256xf32>
  %u = arith.extf %up : tensor<16x256xbf16> to tensor<16x256xf32>
  %c1 = arith.constant 1.0 : f32
  %one = tensor.splat %c1 : tensor<16x256xf32>
  %neg = arith.negf %g : tensor<16x256xf32>
  %e = math.exp %neg : tensor<16x256xf32>
  %d = arith.addf %one, %e : tensor<16x256xf32>
  %silu = arith.divf %g, %d : tensor<16x256xf32>
  %a = arith.mulf %silu, %u : tensor<16x256xf32>
  %q, %s = fp8q.quantize %a {group_size = 128 : i64}
      : tensor<16x256xf32> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>
  return %q, %s : tensor<16x256xf8E4M3FN>, tensor<16x2xf32, #fp8q.layout<col_major>>
}

// -----

// f32 operands, the product written u * silu(g) with exp + 1 (both
// commuted), a dense splat 1.0, a dynamic M.
// CHECK-LABEL: func.func @silu_mul_f32_commuted
// CHECK-SAME: (%[[G:.*]]: tensor<?x128xf32>, %[[U:.*]]: tensor<?x128xf32>)
// CHECK: fp8q.quantize %[[U]] silu_gate(%[[G]] : tensor<?x128xf32>) : tensor<?x128xf32>
func.func @silu_mul_f32_commuted(%g: tensor<?x128xf32>, %u: tensor<?x128xf32>)
    -> (tensor<?x128xf8E4M3FN>, tensor<?x1xf32>) {
  %one = arith.constant dense<1.0> : tensor<4x128xf32>
  %onec = tensor.cast %one : tensor<4x128xf32> to tensor<?x128xf32>
  %c1 = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %g, %c0 : tensor<?x128xf32>
  %ones = tensor.splat %c1[%m] : tensor<?x128xf32>
  %neg = arith.negf %g : tensor<?x128xf32>
  %e = math.exp %neg : tensor<?x128xf32>
  %d = arith.addf %e, %ones : tensor<?x128xf32>
  %silu = arith.divf %g, %d : tensor<?x128xf32>
  %a = arith.mulf %u, %silu : tensor<?x128xf32>
  %q, %s = fp8q.quantize %a : tensor<?x128xf32> -> tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
  return %q, %s : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
}

// -----

// Operands of different widths: the fused op reads the f32 values.
// CHECK-LABEL: func.func @silu_mul_mixed_widths
// CHECK: %[[G:.*]] = arith.extf
// CHECK: fp8q.quantize %arg1 silu_gate(%[[G]] : tensor<4x128xf32>)
func.func @silu_mul_mixed_widths(%gate: tensor<4x128xbf16>, %u: tensor<4x128xf32>)
    -> (tensor<4x128xf8E4M3FN>, tensor<4x1xf32>) {
  %g = arith.extf %gate : tensor<4x128xbf16> to tensor<4x128xf32>
  %one = arith.constant dense<1.0> : tensor<4x128xf32>
  %neg = arith.negf %g : tensor<4x128xf32>
  %e = math.exp %neg : tensor<4x128xf32>
  %d = arith.addf %one, %e : tensor<4x128xf32>
  %silu = arith.divf %g, %d : tensor<4x128xf32>
  %a = arith.mulf %silu, %u : tensor<4x128xf32>
  %q, %s = fp8q.quantize %a : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
}

// -----

// The product is also returned: it is computed anyway, nothing is fused.
// CHECK-LABEL: func.func @silu_mul_other_use
// CHECK: %[[A:.*]] = arith.mulf
// CHECK: fp8q.quantize %[[A]] :
func.func @silu_mul_other_use(%g: tensor<4x128xf32>, %u: tensor<4x128xf32>)
    -> (tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<4x128xf32>) {
  %one = arith.constant dense<1.0> : tensor<4x128xf32>
  %neg = arith.negf %g : tensor<4x128xf32>
  %e = math.exp %neg : tensor<4x128xf32>
  %d = arith.addf %one, %e : tensor<4x128xf32>
  %silu = arith.divf %g, %d : tensor<4x128xf32>
  %a = arith.mulf %silu, %u : tensor<4x128xf32>
  %q, %s = fp8q.quantize %a : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s, %a : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<4x128xf32>
}

// -----

// Not a SiLU: exp(-g) added to 2.0, and exp of another value.
// CHECK-LABEL: func.func @not_silu
// CHECK-NOT: silu_gate
// CHECK: return
func.func @not_silu(%g: tensor<4x128xf32>, %h: tensor<4x128xf32>, %u: tensor<4x128xf32>)
    -> (tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<4x128xf8E4M3FN>, tensor<4x1xf32>) {
  %two = arith.constant dense<2.0> : tensor<4x128xf32>
  %one = arith.constant dense<1.0> : tensor<4x128xf32>
  %neg = arith.negf %g : tensor<4x128xf32>
  %e = math.exp %neg : tensor<4x128xf32>
  %d = arith.addf %two, %e : tensor<4x128xf32>
  %silu = arith.divf %g, %d : tensor<4x128xf32>
  %a = arith.mulf %silu, %u : tensor<4x128xf32>
  %q, %s = fp8q.quantize %a : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  %d2 = arith.addf %one, %e : tensor<4x128xf32>
  %other = arith.divf %h, %d2 : tensor<4x128xf32>
  %b = arith.mulf %other, %u : tensor<4x128xf32>
  %q2, %s2 = fp8q.quantize %b : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
  return %q, %s, %q2, %s2 : tensor<4x128xf8E4M3FN>, tensor<4x1xf32>, tensor<4x128xf8E4M3FN>, tensor<4x1xf32>
}

// -----

// MXFP8 (f8E8M0FNU scales per 32): the fused entry points quantize FP8
// with f32 scales only, so the SiLU stays.
// CHECK-LABEL: func.func @silu_mul_mxfp8
// CHECK-NOT: silu_gate
// CHECK: fp8q.quantize %{{.*}} {group_size = 32 : i64}
func.func @silu_mul_mxfp8(%g: tensor<4x128xf32>, %u: tensor<4x128xf32>)
    -> (tensor<4x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>) {
  %one = arith.constant dense<1.0> : tensor<4x128xf32>
  %neg = arith.negf %g : tensor<4x128xf32>
  %e = math.exp %neg : tensor<4x128xf32>
  %d = arith.addf %one, %e : tensor<4x128xf32>
  %silu = arith.divf %g, %d : tensor<4x128xf32>
  %a = arith.mulf %silu, %u : tensor<4x128xf32>
  %q, %s = fp8q.quantize %a {group_size = 32 : i64} : tensor<4x128xf32> -> tensor<4x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
  return %q, %s : tensor<4x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
}
