// Layout propagation at producers and consumers: fused producers, kernels
// with different contracts, equal layouts (static M, M == 1, G == 1),
// unknown consumers.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// Idempotent: a second run gives the same IR.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// Every contract holds afterwards.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null

// One ck_bpreshuffle consumer: the quantize writes column-major (fused
// transposed write) and no copy remains.
// CHECK-LABEL: func.func @fuse_single
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<ck_bpreshuffle>
func.func @fuse_single(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x128xbf16>
}

// -----

// One scale feeds ck_bpreshuffle (column-major) and ck (row-major): two
// layouts are needed, so exactly one materialization, shared by both
// ck_bpreshuffle gemms. The producer keeps its row-major write (equal cost,
// fewer changes).
// CHECK-LABEL: func.func @two_contracts
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32> -> tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[C]], {{.*}}ck_bpreshuffle
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<ck>}
// CHECK: fp8q.gemm %{{.*}}, %[[C]], {{.*}}ck_bpreshuffle
func.func @two_contracts(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y2 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// A producer written column-major whose consumers all read row-major is
// retyped to row-major: no copy.
// CHECK-LABEL: func.func @retype_to_row
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32>{{$}}
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<ck>}
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<triton>}
func.func @retype_to_row(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// deepgemm (col_major align 4) and cublas (col_major) with a dynamic M:
// the layouts differ, one copy.
// CHECK-LABEL: func.func @deepgemm_cublas_dynamic
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[C4:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
// CHECK: fp8q.gemm %{{.*}}, %[[C4]], {{.*}}deepgemm
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}cublas
func.func @deepgemm_cublas_dynamic(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// Static M = 64 is a multiple of 4: col_major and col_major align 4 address
// the same bytes, so one fused write serves both kernels.
// CHECK-LABEL: func.func @deepgemm_cublas_static
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<64x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}deepgemm
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}cublas
func.func @deepgemm_cublas_static(%x: tensor<64x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<64x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<64x256xf8E4M3FN>, tensor<64x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<64x128xbf16>
  return
}

// -----

// Static M = 6 is not: strides (1, 6) and (1, 8) differ, one copy.
// CHECK-LABEL: func.func @deepgemm_cublas_static_unaligned
// CHECK-COUNT-1: fp8q.materialize
// CHECK-NOT: fp8q.materialize
func.func @deepgemm_cublas_static_unaligned(%x: tensor<6x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<6x256xbf16> -> tensor<6x256xf8E4M3FN>, tensor<6x2xf32>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<6x256xf8E4M3FN>, tensor<6x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<6x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<6x256xf8E4M3FN>, tensor<6x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<6x128xbf16>
  return
}

// -----

// M == 1 (decode of one token): row_major and col_major are the same bytes,
// so neither a copy nor a retype is needed for ck_bpreshuffle, ck and
// cublas. DeepGEMM's padded layout is not the same bytes (strides (1, 4) for
// G > 1): one copy, which the M == 1 case cannot avoid.
// CHECK-LABEL: func.func @decode_m1
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<1x2xf32>{{$}}
// CHECK-NEXT: %[[P:.*]] = fp8q.materialize %[[S]] : tensor<1x2xf32> -> tensor<1x2xf32, #fp8q.layout<col_major, align = 4>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}ck_bpreshuffle
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}kernel = #fp8q.kernel<ck>}
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}cublas
// CHECK: fp8q.gemm %{{.*}}, %[[P]], {{.*}}deepgemm
func.func @decode_m1(%x: tensor<1x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<1x256xbf16> -> tensor<1x256xf8E4M3FN>, tensor<1x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<1x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<1x128xbf16>
  %y2 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<1x128xbf16>
  %y3 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<1x128xbf16>
  return
}

// -----

// G == 1 (K = group size): one scale column, strides (1, 1) either way, even
// with a dynamic M.
// CHECK-LABEL: func.func @single_group
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @single_group(%x: tensor<?x128xbf16>, %w: tensor<128x128xf8E4M3FN>, %wp: tensor<128x128xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x1xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>, tensor<128x128xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x1xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<?x128xbf16>
  return
}

// -----

// An op fp8q does not know gets the scale row-major (with a remark); the
// producer keeps its column-major write for ck_bpreshuffle.
// CHECK-LABEL: func.func @unknown_consumer
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NEXT: %[[R:.*]] = fp8q.materialize %[[S]] : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32>
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}ck_bpreshuffle
// CHECK: "test.use"(%[[R]]) : (tensor<?x2xf32>) -> ()
func.func @unknown_consumer(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  "test.use"(%s) : (tensor<?x2xf32, #fp8q.layout<col_major>>) -> ()
  return
}

// -----

// tensor.dim reads only the shape: it constrains nothing.
// CHECK-LABEL: func.func @dim_reads_shape
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: tensor.dim %[[S]]
func.func @dim_reads_shape(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> index {
  %c0 = arith.constant 0 : index
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %m = tensor.dim %s, %c0 : tensor<?x2xf32>
  return %m : index
}

// -----

// Kernels that honour any strides (triton, reference) constrain nothing.
// CHECK-LABEL: func.func @any_layout
// CHECK: fp8q.quantize %{{.*}}, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @any_layout(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>
  %y0 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

// rms_norm_quantize is fused like quantize, its third result untouched.
// CHECK-LABEL: func.func @rms_norm_fused
// CHECK: %{{.*}}, %[[S:.*]], %{{.*}} = fp8q.rms_norm_quantize {{.*}} -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<?x256xbf16>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %{{.*}}, %[[S]], {{.*}}ck_bpreshuffle
func.func @rms_norm_fused(%x: tensor<?x256xbf16>, %g: tensor<256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) -> tensor<?x256xbf16> {
  %q, %s, %y = fp8q.rms_norm_quantize %x, %g {keep_unquantized} : tensor<?x256xbf16>, tensor<256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<?x256xbf16>
  %o = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return %y : tensor<?x256xbf16>
}
