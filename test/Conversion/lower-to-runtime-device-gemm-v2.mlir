// RUN: fp8q-opt %s --fp8q-lower-to-runtime=device=true -verify-diagnostics

// The device runtimes have no v2 GEMM entry point (fp8q_rt_gemm_v2 is the
// CPU runtime's): in device execution a v2 gemm is a located error.
func.func @mxfp8(%q: memref<?x64xf8E4M3FN>, %xs: memref<?x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                 %w: memref<32x64xf8E4M3FN>, %ws: memref<32x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
                 %o: memref<?x32xbf16>, %stream: !gpu.async.token) {
  // expected-error @+1 {{'fp8q.buffer.gemm' op multiplies SPEC v2 operands, and the device runtimes have no v2 GEMM entry point yet: compile this step for host execution (the CPU runtime's fp8q_rt_gemm_v2), or keep FP8 1x128 with f32 scales}}
  fp8q.buffer.gemm %q, %xs, %w, %ws, %o {kernel = #fp8q.kernel<reference>}
      : memref<?x64xf8E4M3FN>, memref<?x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
        memref<32x64xf8E4M3FN>, memref<32x2xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, memref<?x32xbf16>
  return
}
