// RUN: fp8q-opt %s -split-input-file -fp8q-verify-contracts -verify-diagnostics | FileCheck %s

// Contracts that hold, including the degenerate shapes whose layouts address
// the same bytes (SPEC: layouts are compared by the bytes they address).

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @holds
func.func @holds(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32, #fp8q.layout<col_major>>,
                 %r: tensor<?x2xf32>, %q1: tensor<1x256xf8E4M3FN>, %r1: tensor<1x2xf32>,
                 %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>,
                 %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // CHECK: kernel = #fp8q.kernel<ck_bpreshuffle>
  %0 = fp8q.gemm %q, %c, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  // M == 1: row-major bytes are column-major bytes.
  %1 = fp8q.gemm %q1, %r1, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x256xf8E4M3FN>, tensor<1x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<1x128xbf16>
  %2 = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %3 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %4 = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %5 = fp8q.gemm %q, %r, %p, %ws {kernel = #fp8q.kernel<reference>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
// CHECK-LABEL: func.func @holds_sm90
func.func @holds_sm90(%q: tensor<64x128xf8E4M3FN>, %c: tensor<64x1xf32>, %c4: tensor<64x1xf32, #fp8q.layout<col_major, align = 4>>,
                      %q8: tensor<8x256xf8E4M3FN>, %s8: tensor<8x2xf32, #fp8q.layout<col_major>>,
                      %w: tensor<128x128xf8E4M3FN>, %w2: tensor<128x256xf8E4M3FN>, %ws: tensor<1x1xf32>, %ws2: tensor<1x2xf32>) {
  // G == 1: every layout addresses the same bytes.
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x128xbf16>
  %1 = fp8q.gemm %q, %c4, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<64x128xf8E4M3FN>, tensor<64x1xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x128xbf16>
  // M = 8 is a multiple of 4: col_major is col_major align 4.
  %2 = fp8q.gemm %q8, %s8, %w2, %ws2 {kernel = #fp8q.kernel<deepgemm>} : tensor<8x256xf8E4M3FN>, tensor<8x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<8x128xbf16>
  return
}
}

// -----

func.func @row_major_to_bpreshuffle(%q: tensor<?x256xf8E4M3FN>, %r: tensor<?x2xf32>,
                                    %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{'fp8q.gemm' op x_scale breaks the ck_bpreshuffle contract: kernel ck_bpreshuffle requires #fp8q.layout<col_major> (strides (1, M)), got #fp8q.layout<row_major> for shape 'tensor<?x2xf32>'}}
  %0 = fp8q.gemm %q, %r, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @col_major_to_ck(%q: tensor<4x256xf8E4M3FN>, %c: tensor<4x2xf32, #fp8q.layout<col_major>>,
                           %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{x_scale breaks the ck contract: kernel ck requires #fp8q.layout<row_major> (strides (G, 1)), got #fp8q.layout<col_major>}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<4x256xf8E4M3FN>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

// The x_scale check runs the scale-layout analysis read-only, which sees a
// materialization's uses as its operand's: the gemm's own operand (here the
// materialization) is what is checked, in both directions.
func.func @through_materialize(%q: tensor<4x256xf8E4M3FN>, %r: tensor<4x2xf32>,
                               %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  %c = fp8q.materialize %r : tensor<4x2xf32> -> tensor<4x2xf32, #fp8q.layout<col_major>>
  // expected-error @+1 {{x_scale breaks the ck contract: kernel ck requires #fp8q.layout<row_major> (strides (G, 1)), got #fp8q.layout<col_major>}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<4x256xf8E4M3FN>, tensor<4x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  %1 = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<4x256xf8E4M3FN>, tensor<4x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<4x128xbf16>
  return
}

// -----

func.func @unpadded_to_deepgemm(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32, #fp8q.layout<col_major>>,
                                %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{x_scale breaks the deepgemm contract: kernel deepgemm requires #fp8q.layout<col_major, align = 4> (strides (1, roundup(M, 4))), got #fp8q.layout<col_major>}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @padded_to_cublas(%q: tensor<13x256xf8E4M3FN>, %c: tensor<13x2xf32, #fp8q.layout<col_major, align = 4>>,
                            %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{x_scale breaks the cublas contract: kernel cublas requires #fp8q.layout<col_major> (strides (1, M)), got #fp8q.layout<col_major, align = 4>}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<13x256xf8E4M3FN>, tensor<13x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<13x128xbf16>
  return
}

// -----

func.func @plain_weight_to_bpreshuffle(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32, #fp8q.layout<col_major>>,
                                       %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w breaks the ck_bpreshuffle contract: kernel ck_bpreshuffle requires #fp8q.weight_layout<preshuffle_16x16>, got plain [N, K] weight}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @preshuffled_weight_to_triton(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32>,
                                        %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{w breaks the triton contract: kernel triton requires plain [N, K] weight, got #fp8q.weight_layout<preshuffle_16x16>}}
  %0 = fp8q.gemm %q, %c, %p, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @no_kernel(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{has no kernel, so its contract cannot be checked; run --fp8q-select-kernels or set `kernel`}}
  %0 = fp8q.gemm %q, %c, %w, %ws : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.0">} {
func.func @bpreshuffle_old_rocm(%q: tensor<?x256xf8E4M3FN>, %c: tensor<?x2xf32, #fp8q.layout<col_major>>,
                                %p: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{breaks the ck_bpreshuffle contract for target #fp8q.target<arch = "gfx950", rocm = "7.0">: kernel ck_bpreshuffle needs ROCm >= 7.2, target has 7.0}}
  %0 = fp8q.gemm %q, %c, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @deepgemm_on_gfx942(%q: tensor<8x256xf8E4M3FNUZ>, %c: tensor<8x2xf32, #fp8q.layout<col_major, align = 4>>,
                              %w: tensor<128x256xf8E4M3FNUZ>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{kernel deepgemm does not run on gfx942}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<8x256xf8E4M3FNUZ>, tensor<8x2xf32, #fp8q.layout<col_major, align = 4>>, tensor<128x256xf8E4M3FNUZ>, tensor<1x2xf32> -> tensor<8x128xbf16>
  return
}
}

// -----

module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @ocp_fp8_on_gfx942(%q: tensor<8x256xf8E4M3FN>, %c: tensor<8x2xf32>,
                             %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) {
  // expected-error @+1 {{kernel triton on gfx942 reads f8E4M3FNUZ, got f8E4M3FN}}
  %0 = fp8q.gemm %q, %c, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<8x256xf8E4M3FN>, tensor<8x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<8x128xbf16>
  return
}
}
