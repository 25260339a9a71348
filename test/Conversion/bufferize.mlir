// RUN: fp8q-opt %s -split-input-file --fp8q-bufferize | FileCheck %s

// Layout encodings become memref strided layouts, function boundaries
// included; column-major scales are allocated transposed and viewed.

// CHECK-LABEL: func.func @quantize_col_major_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x256xbf16>) -> (memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>)
// CHECK: %[[M:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[Q:.*]] = memref.alloc(%[[M]]) {{.*}} : memref<?x256xf8E4M3FN>
// CHECK: %[[M2:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[BASE:.*]] = memref.alloc(%[[M2]]) {{.*}} : memref<2x?xf32>
// CHECK: %[[S:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[M2]], 2], strides: [1, %[[M2]]] : memref<2x?xf32> to memref<?x2xf32, strided<[1, ?]>>
// CHECK: fp8q.buffer.quantize %[[X]], %[[Q]], %[[S]] : memref<?x256xbf16>, memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>
// CHECK: return %[[Q]], %[[S]]
func.func @quantize_col_major_dynamic(%x: tensor<?x256xbf16>)
    -> (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  return %q, %s : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
}

// -----

// Dynamic M with align = 4: ld = (M + 3) / 4 * 4 at run time.
// CHECK-LABEL: func.func @quantize_aligned_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?x256xf16>) -> memref<?x2xf32, strided<[1, ?]>>
// CHECK: memref.alloc({{.*}}) {{.*}} : memref<?x256xf8E4M3FN>
// CHECK: %[[M:.*]] = memref.dim %[[X]]
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[SUM:.*]] = arith.addi %[[M]], %[[C3]]
// CHECK: %[[BLK:.*]] = arith.divui %[[SUM]], %[[C4]]
// CHECK: %[[LD:.*]] = arith.muli %[[BLK]], %[[C4]]
// CHECK: %[[BASE:.*]] = memref.alloc(%[[LD]]) {{.*}} : memref<2x?xf32>
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[M]], 2], strides: [1, %[[LD]]]
func.func @quantize_aligned_dynamic(%x: tensor<?x256xf16>)
    -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>> {
  %q, %s = fp8q.quantize %x : tensor<?x256xf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
  return %s : tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// Static M with align: ld = roundup(5, 4) = 8.
// CHECK-LABEL: func.func @quantize_aligned_static
// CHECK-SAME: -> memref<5x2xf32, strided<[1, 8]>>
// CHECK: %[[BASE:.*]] = memref.alloc() {{.*}} : memref<2x8xf32>
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [5, 2], strides: [1, 8] : memref<2x8xf32> to memref<5x2xf32, strided<[1, 8]>>
func.func @quantize_aligned_static(%x: tensor<5x256xf32>)
    -> tensor<5x2xf32, #fp8q.layout<col_major, align = 4>> {
  %q, %s = fp8q.quantize %x : tensor<5x256xf32> -> tensor<5x256xf8E4M3FN>, tensor<5x2xf32, #fp8q.layout<col_major, align = 4>>
  return %s : tensor<5x2xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// A row-major scale is a plain identity-layout buffer; a copying
// materialization allocates its destination in the target layout.
// CHECK-LABEL: func.func @materialize_copy
// CHECK-SAME: (%[[S:.*]]: memref<?x2xf32>) -> memref<?x2xf32, strided<[1, ?]>>
// CHECK: %[[D:.*]] = memref.reinterpret_cast
// CHECK: fp8q.buffer.materialize %[[S]], %[[D]] : memref<?x2xf32>, memref<?x2xf32, strided<[1, ?]>>
// CHECK: return %[[D]]
func.func @materialize_copy(%s: tensor<?x2xf32>) -> tensor<?x2xf32, #fp8q.layout<col_major>> {
  %c = fp8q.materialize %s : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
  return %c : tensor<?x2xf32, #fp8q.layout<col_major>>
}

// -----

// M == 1: row_major and col_major address the same bytes. The
// materialization is a view of the operand: no allocation, no copy.
// CHECK-LABEL: func.func @materialize_equal_layouts
// CHECK-SAME: (%[[S:.*]]: memref<1x2xf32>) -> memref<1x2xf32, strided<[1, 1]>>
// CHECK-NOT: memref.alloc
// CHECK-NOT: fp8q.buffer.materialize
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[S]] to offset: [0], sizes: [1, 2], strides: [1, 1] : memref<1x2xf32> to memref<1x2xf32, strided<[1, 1]>>
// CHECK-NOT: fp8q.buffer.materialize
// CHECK: return %[[V]]
func.func @materialize_equal_layouts(%s: tensor<1x2xf32>) -> tensor<1x2xf32, #fp8q.layout<col_major>> {
  %c = fp8q.materialize %s : tensor<1x2xf32> -> tensor<1x2xf32, #fp8q.layout<col_major>>
  return %c : tensor<1x2xf32, #fp8q.layout<col_major>>
}

// -----

// G == 1 and col_major align = 4 with M a multiple of 4 are equal too.
// The two types even bufferize to the same memref type: the operand is
// returned as is.
// CHECK-LABEL: func.func @materialize_equal_align
// CHECK-SAME: (%[[S:.*]]: memref<8x3xf32, strided<[1, 8]>>) -> memref<8x3xf32, strided<[1, 8]>>
// CHECK-NEXT: return %[[S]]
func.func @materialize_equal_align(%s: tensor<8x3xf32, #fp8q.layout<col_major>>) -> tensor<8x3xf32, #fp8q.layout<col_major, align = 4>> {
  %c = fp8q.materialize %s : tensor<8x3xf32, #fp8q.layout<col_major>> -> tensor<8x3xf32, #fp8q.layout<col_major, align = 4>>
  return %c : tensor<8x3xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// The gemm records the weight's byte order; rms_norm_quantize writes the
// optional unquantized output; preshuffle gets a dense destination.
// CHECK-LABEL: func.func @norm_preshuffle_gemm
// CHECK-SAME: (%[[X:.*]]: memref<?x256xbf16>, %[[G:.*]]: memref<256xbf16>, %[[W:.*]]: memref<32x256xf8E4M3FN>, %[[WS:.*]]: memref<1x2xf32>)
// CHECK: %[[Q:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x256xf8E4M3FN>
// CHECK: %[[S:.*]] = memref.reinterpret_cast
// CHECK: %[[Y:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x256xbf16>
// CHECK: fp8q.buffer.rms_norm_quantize %[[X]], %[[G]], %[[Q]], %[[S]], %[[Y]] : memref<?x256xbf16>, memref<256xbf16>, memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>, memref<?x256xbf16>
// CHECK: %[[P:.*]] = memref.alloc() {{.*}} : memref<32x256xf8E4M3FN>
// CHECK: fp8q.buffer.preshuffle %[[W]], %[[P]] : memref<32x256xf8E4M3FN>, memref<32x256xf8E4M3FN>
// CHECK: %[[O:.*]] = memref.alloc(%{{.*}}) {{.*}} : memref<?x32xbf16>
// CHECK: fp8q.buffer.gemm %[[Q]], %[[S]], %[[P]], %[[WS]], %[[O]] {kernel = #fp8q.kernel<ck_bpreshuffle>, w_layout = #fp8q.weight_layout<preshuffle_16x16>}
// CHECK: return %[[O]], %[[Y]] : memref<?x32xbf16>, memref<?x256xbf16>
func.func @norm_preshuffle_gemm(%x: tensor<?x256xbf16>, %g: tensor<256xbf16>,
                                %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>)
    -> (tensor<?x32xbf16>, tensor<?x256xbf16>) {
  %q, %s, %y = fp8q.rms_norm_quantize %x, %g {keep_unquantized} : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>
  %p = fp8q.preshuffle %w : tensor<32x256xf8E4M3FN> -> tensor<32x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  %o = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<32x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x32xbf16>
  return %o, %y : tensor<?x32xbf16>, tensor<?x256xbf16>
}

// -----

// Private functions and their calls carry the strided layouts; scf.for
// iter_args keep them.
// CHECK-LABEL: func.func private @consume
// CHECK-SAME: (%{{.*}}: memref<?x256xf8E4M3FN>, %{{.*}}: memref<?x2xf32, strided<[1, ?]>>, %{{.*}}: memref<32x256xf8E4M3FN>, %{{.*}}: memref<1x2xf32>) -> memref<?x32xbf16>
func.func private @consume(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32, #fp8q.layout<col_major>>,
                           %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<?x32xbf16> {
  %o = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x32xbf16>
  return %o : tensor<?x32xbf16>
}
// CHECK-LABEL: func.func @caller
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (memref<?x2xf32, strided<[1, ?]>>)
// CHECK: call @consume(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>, memref<32x256xf8E4M3FN>, memref<1x2xf32>) -> memref<?x32xbf16>
func.func @caller(%x: tensor<?x256xbf16>, %w: tensor<32x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<?x32xbf16> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %s) -> (tensor<?x2xf32, #fp8q.layout<col_major>>) {
    scf.yield %a : tensor<?x2xf32, #fp8q.layout<col_major>>
  }
  %o = func.call @consume(%q, %r, %w, %ws) : (tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<32x256xf8E4M3FN>, tensor<1x2xf32>) -> tensor<?x32xbf16>
  return %o : tensor<?x32xbf16>
}

// -----

// A public function's arguments are its caller's buffers (SPEC: the
// signature is an ABI): the residual add gets a new buffer instead of
// writing into %x (regression: `outs(%arg0)`, and fp8q-run then compared
// runs on inputs an earlier run had overwritten).
// CHECK-LABEL: func.func @residual_add(
// CHECK-SAME: %[[X:[^:]*]]: memref<16x256xbf16>, %[[D:[^:]*]]: memref<16x256xbf16>)
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<16x256xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[D]] : {{.*}}) outs(%[[OUT]] : memref<16x256xbf16>)
// CHECK: return %[[OUT]]
func.func @residual_add(%x: tensor<16x256xbf16>, %d: tensor<16x256xbf16>) -> tensor<16x256xbf16> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<16x256xbf16>, tensor<16x256xbf16>) outs(%x : tensor<16x256xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<16x256xbf16>
  return %0 : tensor<16x256xbf16>
}

// -----

// An argument marked writable may be written in place.
// CHECK-LABEL: func.func @residual_add_writable(
// CHECK-SAME: %[[X:[^:]*]]: memref<16x256xbf16>
// CHECK-NOT: memref.alloc
// CHECK: outs(%[[X]] : memref<16x256xbf16>)
func.func @residual_add_writable(%x: tensor<16x256xbf16> {bufferization.writable = true}, %d: tensor<16x256xbf16>) -> tensor<16x256xbf16> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %d : tensor<16x256xbf16>, tensor<16x256xbf16>) outs(%x : tensor<16x256xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %s = arith.addf %a, %b : bf16
    linalg.yield %s : bf16
  } -> tensor<16x256xbf16>
  return %0 : tensor<16x256xbf16>
}

// -----

// The fused producers read their extra operand's buffer; the residual sum
// gets a buffer of its own, returned in place of the add's.
// CHECK-LABEL: func.func @fused_producers
// CHECK-SAME: (%[[X:.*]]: memref<4x256xbf16>, %[[G:.*]]: memref<256xbf16>, %[[R:.*]]: memref<4x256xbf16>)
// CHECK: %[[SUM:.*]] = memref.alloc() {{.*}} : memref<4x256xbf16>
// CHECK: fp8q.buffer.rms_norm_quantize %[[X]], %[[G]], %{{.*}}, %{{.*}} residual(%[[R]] : memref<4x256xbf16> -> %[[SUM]] : memref<4x256xbf16>)
// CHECK: fp8q.buffer.quantize %[[X]] silu_gate(%[[R]] : memref<4x256xbf16>), %{{.*}}, %{{.*}} : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32, strided<[1, 4]>>
// CHECK: return %{{.*}}, %{{.*}}, %[[SUM]]
func.func @fused_producers(%x: tensor<4x256xbf16>, %g: tensor<256xbf16>, %r: tensor<4x256xbf16>)
    -> (tensor<4x2xf32>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<4x256xbf16>) {
  %q, %s, %sum = fp8q.rms_norm_quantize %x, %g residual(%r : tensor<4x256xbf16> -> tensor<4x256xbf16>)
      : tensor<4x256xbf16>, tensor<256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32>
  %q2, %s2 = fp8q.quantize %x silu_gate(%r : tensor<4x256xbf16>)
      : tensor<4x256xbf16> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf32, #fp8q.layout<col_major>>
  return %s, %s2, %sum : tensor<4x2xf32>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<4x256xbf16>
}
