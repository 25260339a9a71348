// RUN: fp8q-opt %s --fp8q-lower-to-runtime=device=true -verify-diagnostics | FileCheck %s

// In device execution a v2 gemm is fp8q_rt_device_gemm_v2 on the step's
// stream, with fp8q_rt_gemm_v2's arguments (the global-scale placeholder,
// group 32, kernel cublas_mx = 7, q_type 0, scale_type 1, both layouts
// swizzle_32_4_4 = 3 with align 1, a plain weight).
// CHECK-LABEL: func.func @mxfp8(
// CHECK-SAME: %[[STREAM:[^:]*]]: !gpu.async.token)
// CHECK: call @fp8q_rt_device_gemm_v2({{.*}}, %c32_i64, %c7_i32, %c0_i32, %c1_i32, %c3_i32, %c1_i64, %c3_i32{{[_0-9]*}}, %c1_i64{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %[[STREAM]])
// CHECK-NOT: @fp8q_rt_gemm_v2
func.func @mxfp8(%q: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                 %w: memref<32x64xf8E4M3FN>, %ws: memref<32x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                 %o: memref<?x32xbf16>, %stream: !gpu.async.token) {
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<cublas_mx>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
        memref<32x64xf8E4M3FN>, memref<32x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, memref<?x32xbf16>
  return
}
