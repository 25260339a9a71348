// SPEC v2 formats end to end on the CPU runtime through upstream
// mlir-runner: MXFP8 (E4M3, scales written swizzled, swizzle_32_4_4) and
// FP8 1x128 with UE8M0 scales (DeepGEMM sm100's packed col_major align 4
// pack 4) are quantized with the fused padded-layout write, the scales are
// materialized back to row_major (fp8q_rt_materialize_v2), and scale and q
// bytes are printed. x[m, k] = (k % 32 + 1) * (m + 1): group amax
// 32 (m + 1) (MXFP8) or 32 (m + 1) again per 128 (UE8M0), so every byte is
// known by hand:
//   MXFP8 pow2_ceil: 2^ceil(log2(32 (m+1) / 448)): m = 0 -> 2^-3 (byte
//   124), m = 1 -> 2^-2 (125), m = 2 -> 2^-2 (125: 96 / 448 = 0.21);
//   q = x / scale: m = 0, k = 0 -> 8.0 = 0x50 (80), k = 31 -> 256 = 0x78
//   (120); m = 1, k = 0 -> 2 / 0.25 = 8.0 (80).
// The whole pipeline runs: propagation leaves the v2 materializations
// where they are (it models f32 scales; test/Transforms/
// propagate-v2-unmodeled.mlir).
//
// RUN: fp8q-opt %s --fp8q-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// MXFP8 scales [3, 4]:
// CHECK: [124,   124,   124,   124]
// CHECK-NEXT: [125,   125,   125,   125]
// CHECK-NEXT: [125,   125,   125,   125]
// q row 0, k = 0 and k = 31; row 1, k = 0:
// CHECK: [80,   120,   80]
// UE8M0 scales [3, 1] (one group of 128: amax 32 (m + 1) again):
// CHECK: [124]
// CHECK-NEXT: [125]
// CHECK-NEXT: [125]

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func private @printMemrefI32(memref<*xi32>) attributes {llvm.emit_c_interface}

  func.func private @gen_x(%m: index) -> tensor<?x128xbf16> {
    %x = tensor.generate %m {
    ^bb0(%i: index, %j: index):
      %c32 = arith.constant 32 : index
      %c1 = arith.constant 1 : index
      %r = arith.remui %j, %c32 : index
      %a = arith.addi %r, %c1 : index
      %b = arith.addi %i, %c1 : index
      %p = arith.muli %a, %b : index
      %pi = arith.index_cast %p : index to i64
      %f = arith.sitofp %pi : i64 to f32
      %v = arith.truncf %f : f32 to bf16
      tensor.yield %v : bf16
    } : tensor<?x128xbf16>
    return %x : tensor<?x128xbf16>
  }

  func.func private @print_bytes(%t: tensor<?x?xi8>) {
    %e = arith.extui %t : tensor<?x?xi8> to tensor<?x?xi32>
    %b = bufferization.to_buffer %e : tensor<?x?xi32> to memref<?x?xi32>
    %u = memref.cast %b : memref<?x?xi32> to memref<*xi32>
    func.call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }

  func.func @mxfp8(%x: tensor<?x128xbf16>) -> (tensor<?x128xf8E4M3FN>, tensor<?x4xf8E8M0FNU>) {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>,
          tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %r = fp8q.materialize %s : tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x4xf8E8M0FNU>
    return %q, %r : tensor<?x128xf8E4M3FN>, tensor<?x4xf8E8M0FNU>
  }

  func.func @ue8m0(%x: tensor<?x128xbf16>) -> tensor<?x1xf8E8M0FNU> {
    %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
        : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>,
          tensor<?x1xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
    %r = fp8q.materialize %s : tensor<?x1xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>> -> tensor<?x1xf8E8M0FNU>
    return %r : tensor<?x1xf8E8M0FNU>
  }

  func.func @main() {
    %c3 = arith.constant 3 : index
    %x = func.call @gen_x(%c3) : (index) -> tensor<?x128xbf16>
    %q, %s = func.call @mxfp8(%x) : (tensor<?x128xbf16>) -> (tensor<?x128xf8E4M3FN>, tensor<?x4xf8E8M0FNU>)
    %sb = arith.bitcast %s : tensor<?x4xf8E8M0FNU> to tensor<?x4xi8>
    %sd = tensor.cast %sb : tensor<?x4xi8> to tensor<?x?xi8>
    func.call @print_bytes(%sd) : (tensor<?x?xi8>) -> ()
    %qb = arith.bitcast %q : tensor<?x128xf8E4M3FN> to tensor<?x128xi8>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c31 = arith.constant 31 : index
    %a = tensor.extract %qb[%c0, %c0] : tensor<?x128xi8>
    %b = tensor.extract %qb[%c0, %c31] : tensor<?x128xi8>
    %c = tensor.extract %qb[%c1, %c0] : tensor<?x128xi8>
    %row = tensor.from_elements %a, %b, %c : tensor<1x3xi8>
    %rd = tensor.cast %row : tensor<1x3xi8> to tensor<?x?xi8>
    func.call @print_bytes(%rd) : (tensor<?x?xi8>) -> ()
    %u = func.call @ue8m0(%x) : (tensor<?x128xbf16>) -> tensor<?x1xf8E8M0FNU>
    %ub = arith.bitcast %u : tensor<?x1xf8E8M0FNU> to tensor<?x1xi8>
    %ud = tensor.cast %ub : tensor<?x1xi8> to tensor<?x?xi8>
    func.call @print_bytes(%ud) : (tensor<?x?xi8>) -> ()
    return
  }
}
