// Layouts flow through scf.for, scf.if, scf.while, private calls,
// tensor.cast and tensor.extract_slice / tensor.concat along M.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null

// A loop-carried scale (layers as a loop): the producer before the loop, the
// iter_arg, the producer in the body, the yield and the result all take
// column-major. No copy anywhere.
// CHECK-LABEL: func.func @for_carried
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.for {{.*}} iter_args(%[[IT:.*]] = %{{.*}}) -> (tensor<?x2xf32, #fp8q.layout<col_major>>)
// CHECK: fp8q.gemm %{{.*}}, %[[IT]],
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.yield %{{.*}} : tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @for_carried(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%it = %s) -> (tensor<?x2xf32>) {
    %y = fp8q.gemm %q, %it, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %s2 : tensor<?x2xf32>
  }
  %out = fp8q.gemm %q, %r, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %out : tensor<?x128xbf16>
}

// -----

// A public argument read in a loop body: its one copy sits at the
// definition, outside the loop, not once per iteration.
// CHECK-LABEL: func.func @for_hoisted
// CHECK-SAME: %[[S:[^:]*]]: tensor<?x2xf32>
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.for
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[C]],
func.func @for_hoisted(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    "test.sink"(%y) : (tensor<?x128xbf16>) -> ()
  }
  return
}

// -----

// scf.if merging two producers: both write column-major.
// CHECK-LABEL: func.func @if_merge
// CHECK: scf.if %{{.*}} -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>)
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: } else {
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @if_merge(%c: i1, %x: tensor<?x256xbf16>, %x2: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = scf.if %c -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32>) {
    %q1, %s1 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %q1, %s1 : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  } else {
    %q2, %s2 = fp8q.quantize %x2 : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %q2, %s2 : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  }
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// scf.if merging a public argument (row-major, fixed) with a producer: one
// copy whichever way; the merged value keeps its layout and is copied once.
// CHECK-LABEL: func.func @if_fixed_and_free
// CHECK-COUNT-1: fp8q.materialize
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @if_fixed_and_free(%c: i1, %q: tensor<?x256xf8E4M3FN>, %s0: tensor<?x2xf32>, %x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %s = scf.if %c -> (tensor<?x2xf32>) {
    scf.yield %s0 : tensor<?x2xf32>
  } else {
    %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    scf.yield %s2 : tensor<?x2xf32>
  }
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// scf.while: before arguments, condition, after arguments and results.
// CHECK-LABEL: func.func @while_loop
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: scf.while (%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : (tensor<?x2xf32, #fp8q.layout<col_major>>, index) -> (tensor<?x2xf32, #fp8q.layout<col_major>>, index)
// CHECK: scf.condition
// CHECK: fp8q.gemm {{.*}}ck_bpreshuffle
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @while_loop(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %w:2 = scf.while (%a = %s, %i = %c0) : (tensor<?x2xf32>, index) -> (tensor<?x2xf32>, index) {
    %lt = arith.cmpi slt, %i, %n : index
    scf.condition(%lt) %a, %i : tensor<?x2xf32>, index
  } do {
  ^bb0(%b: tensor<?x2xf32>, %j: index):
    %y = fp8q.gemm %q, %b, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
    %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %s2, %j1 : tensor<?x2xf32>, index
  }
  return
}

// -----

// A private function's signature is rewritten consistently with its two
// call sites; the public caller's signature is not. Its argument feeds
// ck_bpreshuffle (column-major); its result feeds the public result
// (row-major) and the second call: one copy in all, in the caller, none in
// the callee that runs twice.
// CHECK-LABEL: func.func private @layer
// CHECK-SAME: (%{{.*}}: tensor<?x2xf32, #fp8q.layout<col_major>>, %{{.*}}: tensor<?x256xf8E4M3FN>
// CHECK-SAME: -> tensor<?x2xf32> {
// CHECK-NOT: fp8q.materialize
// CHECK: return %{{.*}} : tensor<?x2xf32>
func.func private @layer(%s: tensor<?x2xf32>, %q: tensor<?x256xf8E4M3FN>, %x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x2xf32> {
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %q2, %s2 = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  return %s2 : tensor<?x2xf32>
}
// CHECK-LABEL: func.func @model
// CHECK-SAME: -> tensor<?x2xf32> {
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: %[[R1:.*]] = call @layer(%[[S]], {{.*}}) : (tensor<?x2xf32, #fp8q.layout<col_major>>, {{.*}}) -> tensor<?x2xf32>
// CHECK-NEXT: %[[C1:.*]] = fp8q.materialize %[[R1]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[R2:.*]] = call @layer(%[[C1]], {{.*}}) -> tensor<?x2xf32>
// CHECK-NEXT: return %[[R2]] : tensor<?x2xf32>
func.func @model(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x2xf32> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %r1 = func.call @layer(%s, %q, %x, %wp, %ws) : (tensor<?x2xf32>, tensor<?x256xf8E4M3FN>, tensor<?x256xbf16>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32>) -> tensor<?x2xf32>
  %r2 = func.call @layer(%r1, %q, %x, %wp, %ws) : (tensor<?x2xf32>, tensor<?x256xf8E4M3FN>, tensor<?x256xbf16>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32>) -> tensor<?x2xf32>
  return %r2 : tensor<?x2xf32>
}

// -----

// Calls to a public function or an external declaration keep their
// signatures: the operand gets exactly the declared type, the result has it.
// CHECK-LABEL: func.func private @ext(tensor<?x2xf32, #fp8q.layout<col_major>>) -> tensor<?x2xf32>
func.func private @ext(tensor<?x2xf32, #fp8q.layout<col_major>>) -> tensor<?x2xf32>
// CHECK-LABEL: func.func @public_callee
// CHECK-SAME: (%{{.*}}: tensor<?x2xf32>) -> tensor<?x2xf32>
func.func @public_callee(%s: tensor<?x2xf32>) -> tensor<?x2xf32> {
  return %s : tensor<?x2xf32>
}
// The producer's value needs col_major (the external call, the gemm) and
// row_major (the public call): one copy either way; the external result
// needs one more for ck_bpreshuffle.
// CHECK-LABEL: func.func @calls_fixed_signatures
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[E:.*]] = call @ext(%[[C]])
// CHECK-NEXT: %[[EC:.*]] = fp8q.materialize %[[E]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: call @public_callee(%[[S]])
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[C]],
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[EC]],
func.func @calls_fixed_signatures(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %c = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  %e = func.call @ext(%c) : (tensor<?x2xf32, #fp8q.layout<col_major>>) -> tensor<?x2xf32>
  %p = func.call @public_callee(%s) : (tensor<?x2xf32>) -> tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %e, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// tensor.cast, tensor.extract_slice of whole rows and tensor.concat along M
// keep the layout (the result is stored like its operand). A slice across
// columns is an unknown consumer and gets row-major. The scale is needed in
// two layouts: one copy, shared by the three column-major flows.
// CHECK-LABEL: func.func @cast_slice_concat
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<8x2xf32>{{$}}
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<8x2xf32> -> tensor<8x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: tensor.cast %[[C]] : tensor<8x2xf32, #fp8q.layout<col_major>> to tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK: tensor.extract_slice %[[C]][0, 0] [4, 2] [1, 1] : tensor<8x2xf32, #fp8q.layout<col_major>> to tensor<4x2xf32, #fp8q.layout<col_major>>
// CHECK: tensor.concat dim(0) %[[C]], %[[C]] : (tensor<8x2xf32, #fp8q.layout<col_major>>, tensor<8x2xf32, #fp8q.layout<col_major>>) -> tensor<16x2xf32, #fp8q.layout<col_major>>
// CHECK: tensor.extract_slice %[[S]][0, 0] [8, 1] [1, 1] : tensor<8x2xf32> to tensor<8x1xf32>
func.func @cast_slice_concat(%x: tensor<8x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>, %q4: tensor<4x256xf8E4M3FN>, %qd: tensor<?x256xf8E4M3FN>, %q16: tensor<16x256xf8E4M3FN>) -> tensor<8x1xf32> {
  %q, %s = fp8q.quantize %x : tensor<8x256xbf16> -> tensor<8x256xf8E4M3FN>, tensor<8x2xf32>
  %c = tensor.cast %s : tensor<8x2xf32> to tensor<?x2xf32>
  %y0 = fp8q.gemm %qd, %c, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %sl = tensor.extract_slice %s[0, 0] [4, 2] [1, 1] : tensor<8x2xf32> to tensor<4x2xf32>
  %y1 = fp8q.gemm %q4, %sl, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<4x128xbf16>
  %cc = tensor.concat dim(0) %s, %s : (tensor<8x2xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
  %y2 = fp8q.gemm %q16, %cc, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<16x256xf8E4M3FN>, tensor<16x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<16x128xbf16>
  %col = tensor.extract_slice %s[0, 0] [8, 1] [1, 1] : tensor<8x2xf32> to tensor<8x1xf32>
  return %col : tensor<8x1xf32>
}

// -----

// Unstructured control flow: block arguments keep their types, so a branch
// operand gets exactly the argument's type and the argument is copied where
// it is read.
// CHECK-LABEL: func.func @branches
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: cf.cond_br %{{.*}}, ^bb1(%[[S]] : tensor<?x2xf32>), ^bb2
// CHECK: ^bb1(%[[A:.*]]: tensor<?x2xf32>):
// CHECK-NEXT: %[[AC:.*]] = fp8q.materialize %[[A]]
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[AC]],
// CHECK: ^bb2:
// CHECK-NEXT: fp8q.gemm %{{.*}}, %[[C]],
func.func @branches(%c: i1, %x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  cf.cond_br %c, ^bb1(%s : tensor<?x2xf32>), ^bb2
^bb1(%a: tensor<?x2xf32>):
  %y0 = fp8q.gemm %q, %a, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
^bb2:
  %y1 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// A private function whose symbol escapes (func.constant) keeps its
// signature: its argument is fixed like a public one.
// CHECK-LABEL: func.func private @escapes
// CHECK-SAME: (%[[S:.*]]: tensor<?x2xf32>, %{{.*}}: tensor<?x256xf8E4M3FN>
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]]
func.func private @escapes(%s: tensor<?x2xf32>, %q: tensor<?x256xf8E4M3FN>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
// Its caller hands it row-major: the producer is retyped to row-major, and
// the hand-written copy goes.
// CHECK-LABEL: func.func @takes_address
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NOT: fp8q.materialize
// CHECK: call @escapes(%[[S]],
func.func @takes_address(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %f = func.constant @escapes : (tensor<?x2xf32>, tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32>) -> ()
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %r = fp8q.materialize %s : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32>
  func.call @escapes(%r, %q, %wp, %ws) : (tensor<?x2xf32>, tensor<?x256xf8E4M3FN>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32>) -> ()
  return
}
