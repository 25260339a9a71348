// --fp8q-prepare-weight-args: a public step's weight arguments that it
// re-lays out on entry (weight scale materialized to the kernel's layout,
// weight preshuffled) take the prepared type, and the re-layout moves to a
// public @<fn>_prepare_weights. The inputs are in the form propagation and
// kernel selection leave.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-prepare-weight-args 2>/dev/null | FileCheck %s
// Idempotent: a second run gives the same IR.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-prepare-weight-args 2>/dev/null \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-prepare-weight-args 2>/dev/null | FileCheck %s
// Propagation before and after re-derives the same IR, and every contract
// holds afterwards.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:     --fp8q-prepare-weight-args --fp8q-propagate-scale-layout --fp8q-verify-contracts 2>/dev/null | FileCheck %s

// cublas_mx: the weight scale read by two gemms is materialized once, at
// the entry; it becomes a swizzle_32_4_4 argument, and the materialize
// moves to @cublas_mx_prepare_weights. The weight itself needs nothing.
// CHECK-LABEL: func.func @cublas_mx(
// CHECK-SAME: %{{[^:]*}}: tensor<?x512xf8E4M3FN>, %{{[^:]*}}: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %[[W:[^:]*]]: tensor<64x512xf8E4M3FN>,
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>)
// CHECK-SAME: attributes {fp8q.prepared_args = array<i64: 3>}
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %[[WS]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %[[WS]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK-LABEL: func.func @cublas_mx_prepare_weights(
// CHECK-SAME: %[[A:[^:]*]]: tensor<64x16xf8E8M0FNU>) -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-SAME: attributes {fp8q.prepares = @cublas_mx}
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[A]] : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NEXT: return %[[M]]
func.func @cublas_mx(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %a, %b : tensor<?x64xbf16>, tensor<?x64xbf16>
}

// -----

// aiter_mxfp4 inside a loop: the weight is preshuffled and its scale goes
// to cdna4_mx, both outside the loop; both are prepared, in argument order
// (the prepare function's argument and result i are the step's argument
// prepared_args[i]).
// CHECK-LABEL: func.func @aiter_loop(
// CHECK-SAME: %[[W:[^:]*]]: tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>,
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, %{{[^:]*}}: index)
// CHECK-SAME: attributes {fp8q.prepared_args = array<i64: 1, 2>}
// CHECK-NOT: fp8q.preshuffle
// CHECK-NOT: fp8q.materialize
// CHECK: scf.for
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[W]], %[[WS]] {kernel = #fp8q.kernel<aiter_mxfp4>}
// CHECK-LABEL: func.func @aiter_loop_prepare_weights(
// CHECK-SAME: %[[A0:[^:]*]]: tensor<64x512xf4E2M1FN>, %[[A1:[^:]*]]: tensor<64x16xf8E8M0FNU>)
// CHECK-SAME: -> (tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>)
// CHECK-SAME: attributes {fp8q.prepares = @aiter_loop}
// CHECK-DAG: %[[P:.*]] = fp8q.preshuffle %[[A0]]
// CHECK-DAG: %[[M:.*]] = fp8q.materialize %[[A1]]
// CHECK: return %[[P]], %[[M]]
func.func @aiter_loop(%x: tensor<?x512xbf16>, %w: tensor<64x512xf4E2M1FN>, %ws: tensor<64x16xf8E8M0FNU>, %n: index) -> tensor<?x512xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %p = fp8q.preshuffle %w : tensor<64x512xf4E2M1FN> -> tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<?x512xbf16>) {
    %q, %s = fp8q.quantize %acc {group_size = 32} : tensor<?x512xbf16> -> tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %y = fp8q.gemm %q, %s, %p, %m {kernel = #fp8q.kernel<aiter_mxfp4>} : tensor<?x512xf4E2M1FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, tensor<64x512xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<64x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x64xbf16>
    %z = "test.use"(%y, %acc) : (tensor<?x64xbf16>, tensor<?x512xbf16>) -> tensor<?x512xbf16>
    scf.yield %z : tensor<?x512xbf16>
  }
  return %r : tensor<?x512xbf16>
}

// -----

// Hand-placed re-layouts anywhere in the body (here one per loop) are one
// prepared argument: the gemms read the argument directly.
// CHECK-LABEL: func.func @hand_placed_in_loops(
// CHECK-SAME: %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %{{[^:]*}}: index)
// CHECK-SAME: attributes {fp8q.prepared_args = array<i64: 3>}
// CHECK-NOT: fp8q.materialize
// CHECK: scf.for
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK: scf.for
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK-LABEL: func.func @hand_placed_in_loops_prepare_weights(
// CHECK-NEXT: fp8q.materialize
// CHECK-NEXT: return
func.func @hand_placed_in_loops(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
    "test.use"(%a) : (tensor<?x64xbf16>) -> ()
  }
  scf.for %i = %c0 to %n step %c1 {
    %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
    "test.use"(%a) : (tensor<?x64xbf16>) -> ()
  }
  return
}

// -----

// Nothing to prepare: FP8 1x128 weight scales stay row-major, triton reads
// the plain weight, and an activation scale argument's copy (x_scale, not a
// weight) stays in the step: the function keeps its signature and gets no
// prepare function.
// CHECK-LABEL: func.func @nothing_to_prepare(
// CHECK-SAME: %[[SZ:[^:]*]]: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %{{[^:]*}}: tensor<64x512xf8E4M3FN>, %{{[^:]*}}: tensor<64x16xf8E8M0FNU>, %{{[^:]*}}: tensor<?x256xf8E4M3FN>, %{{[^:]*}}: tensor<?x2xf32>, %{{[^:]*}}: tensor<128x256xf8E4M3FN>, %{{[^:]*}}: tensor<1x2xf32>)
// CHECK-SAME: -> (tensor<?x64xbf16>, tensor<?x128xbf16>) {
// CHECK-NEXT: fp8q.materialize %[[SZ]]
// CHECK-NOT: fp8q.prepare
// CHECK-NOT: func.func
func.func @nothing_to_prepare(%q: tensor<?x512xf8E4M3FN>, %sz: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>,
    %q8: tensor<?x256xf8E4M3FN>, %s8: tensor<?x2xf32>, %w8: tensor<128x256xf8E4M3FN>, %ws8: tensor<1x2xf32>) -> (tensor<?x64xbf16>, tensor<?x128xbf16>) {
  %r = fp8q.materialize %sz : tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x16xf8E8M0FNU>
  %a = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU> -> tensor<?x64xbf16>
  %b = fp8q.gemm %q8, %s8, %w8, %ws8 {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %a, %b : tensor<?x64xbf16>, tensor<?x128xbf16>
}

// -----

// A weight scale also read in its own layout (a triton gemm reads the
// row-major bytes) is not prepared: the step would need the original too.
// The weight beside it, preshuffled for ck_bpreshuffle only, is.
// CHECK-LABEL: func.func @also_read_as_is(
// CHECK-SAME: %[[WP:[^:]*]]: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %[[WS:[^:]*]]: tensor<128x16xf8E8M0FNU>)
// CHECK-SAME: attributes {fp8q.prepared_args = array<i64: 3>}
// CHECK-NEXT: %[[M:.*]] = fp8q.materialize %[[WS]] : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[M]] {kernel = #fp8q.kernel<cublas_mx>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %{{.*}}, %[[WS]] {kernel = #fp8q.kernel<triton>}
// CHECK: fp8q.gemm %{{.*}}, %{{.*}}, %[[WP]], %{{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>}
// CHECK-LABEL: func.func @also_read_as_is_prepare_weights(
// CHECK-SAME: tensor<128x256xf8E4M3FN>) -> tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// CHECK-NEXT: fp8q.preshuffle
// CHECK-NEXT: return
func.func @also_read_as_is(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<128x512xf8E4M3FN>,
    %w8: tensor<128x256xf8E4M3FN>, %ws: tensor<128x16xf8E8M0FNU>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %m = fp8q.materialize %ws : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %p = fp8q.preshuffle %w8 : tensor<128x256xf8E4M3FN> -> tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  %r = fp8q.materialize %s : tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x16xf8E8M0FNU>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x128xbf16>
  %b = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU> -> tensor<?x128xbf16>
  %q8 = "test.q"() : () -> tensor<?x256xf8E4M3FN>
  %s8 = "test.s"() : () -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %c = arith.constant dense<1.0> : tensor<1x2xf32>
  %d = fp8q.gemm %q8, %s8, %p, %c {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %a, %b, %d : tensor<?x128xbf16>, tensor<?x128xbf16>, tensor<?x128xbf16>
}

// -----

// A call of a prepared step in the module prepares the weights it passes
// first; a private function is never prepared (propagation may retype its
// arguments itself); a function with a symbol use that is not a call keeps
// its signature.
// CHECK-LABEL: func.func @called(
// CHECK-SAME: tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>)
// CHECK-SAME: fp8q.prepared_args = array<i64: 2>
// CHECK-LABEL: func.func @called_prepare_weights(
// CHECK-LABEL: func.func private @private_step(
// CHECK-SAME: tensor<64x16xf8E8M0FNU>)
// CHECK-NEXT: fp8q.materialize
// CHECK-LABEL: func.func @referenced(
// CHECK-SAME: tensor<64x16xf8E8M0FNU>)
// CHECK-NEXT: fp8q.materialize
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<?x512xf8E4M3FN>, %[[S:[^:]*]]: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %[[W:[^:]*]]: tensor<64x512xf8E4M3FN>, %[[WS:[^:]*]]: tensor<64x16xf8E8M0FNU>)
// CHECK-NEXT: %[[P:.*]] = call @called_prepare_weights(%[[WS]]) : (tensor<64x16xf8E8M0FNU>) -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
// CHECK-NEXT: call @called(%[[Q]], %[[S]], %[[P]])
// CHECK-NEXT: call @private_step(%[[Q]], %[[S]], %[[WS]])
// CHECK-NOT: func.func @{{.*}}_prepare_weights
func.func @called(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %w = "test.w"() : () -> tensor<64x512xf8E4M3FN>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %a : tensor<?x64xbf16>
}
func.func private @private_step(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %w = "test.w"() : () -> tensor<64x512xf8E4M3FN>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %a : tensor<?x64xbf16>
}
func.func @referenced(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %ws: tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16> {
  %m = fp8q.materialize %ws : tensor<64x16xf8E8M0FNU> -> tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %w = "test.w"() : () -> tensor<64x512xf8E4M3FN>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x64xbf16>
  return %a : tensor<?x64xbf16>
}
func.func @caller(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<64x512xf8E4M3FN>, %ws: tensor<64x16xf8E8M0FNU>) -> (tensor<?x64xbf16>, tensor<?x64xbf16>) {
  %a = call @called(%q, %s, %ws) : (tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16>
  %b = call @private_step(%q, %s, %ws) : (tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<64x16xf8E8M0FNU>) -> tensor<?x64xbf16>
  "test.ref"() {fn = @referenced} : () -> ()
  return %a, %b : tensor<?x64xbf16>, tensor<?x64xbf16>
}
