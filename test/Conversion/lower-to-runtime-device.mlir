// --fp8q-lower-to-runtime{device=true}: the same calls on device buffers,
// named fp8q_rt_device_*, each with the step's stream last.
//
// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-lower-to-runtime=device=true | FileCheck %s

// CHECK-DAG: func.func private @fp8q_rt_device_quantize_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i32, !gpu.async.token) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @fp8q_rt_device_gemm(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i32, i32, i32, !gpu.async.token) -> i32 attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @fp8q_rt_device_materialize(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, !gpu.async.token) -> i32
// CHECK-NOT: @fp8q_rt_quantize
// CHECK-NOT: @fp8q_rt_gemm
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[STREAM:[^:]*]]: !gpu.async.token)
// CHECK: call @fp8q_rt_device_quantize_bf16(%{{.*}}, %{{.*}}, %{{.*}}, %c128_i64, %c0_i32, %[[STREAM]])
// CHECK: call @fp8q_rt_device_materialize(%{{.*}}, %{{.*}}, %[[STREAM]])
// CHECK: call @fp8q_rt_device_gemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[STREAM]])
func.func @chain(%x: memref<?x256xbf16>, %q: memref<?x256xf8E4M3FN>,
                 %s: memref<?x2xf32>, %sc: memref<?x2xf32, strided<[1, ?]>>,
                 %w: memref<32x256xf8E4M3FN>, %ws: memref<1x2xf32>,
                 %o: memref<?x32xbf16>, %stream: !gpu.async.token) {
  fp8q.buffer.quantize %x, %q, %s {group_size = 128 : i64} : memref<?x256xbf16>, memref<?x256xf8E4M3FN>, memref<?x2xf32>
  fp8q.buffer.materialize %s, %sc : memref<?x2xf32>, memref<?x2xf32, strided<[1, ?]>>
  fp8q.buffer.gemm %q, %sc, %w, %ws, %o {kernel = #fp8q.kernel<cublas>} : memref<?x256xf8E4M3FN>, memref<?x2xf32, strided<[1, ?]>>, memref<32x256xf8E4M3FN>, memref<1x2xf32>, memref<?x32xbf16>
  return
}

// -----

func.func @no_stream(%x: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>) {
  // expected-error @+1 {{'fp8q.buffer.quantize' op has no stream to run on in device execution; run --fp8q-device-buffers first}}
  fp8q.buffer.quantize %x, %q, %s {group_size = 128 : i64} : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @fused_producers
// CHECK: call @fp8q_rt_device_add_rms_norm_quantize_bf16({{.*}}, %c0_i32{{.*}}, %c0_i32{{.*}}, %arg7)
// CHECK: call @fp8q_rt_device_silu_mul_quantize_bf16({{.*}}, %c128_i64{{.*}}, %c0_i32{{.*}}, %arg7)
func.func @fused_producers(%x: memref<4x256xbf16>, %g: memref<256xbf16>, %r: memref<4x256xbf16>,
                           %sum: memref<4x256xbf16>, %q: memref<4x256xf8E4M3FN>, %s: memref<4x2xf32>,
                           %gate: memref<4x256xbf16>, %stream: !gpu.async.token) {
  fp8q.buffer.rms_norm_quantize %x, %g, %q, %s residual(%r : memref<4x256xbf16> -> %sum : memref<4x256xbf16>) : memref<4x256xbf16>, memref<256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  fp8q.buffer.quantize %x silu_gate(%gate : memref<4x256xbf16>), %q, %s : memref<4x256xbf16>, memref<4x256xf8E4M3FN>, memref<4x2xf32>
  return
}
