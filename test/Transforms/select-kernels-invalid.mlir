// RUN: fp8q-opt %s -split-input-file -verify-diagnostics --fp8q-select-kernels

// No target and gemms without a kernel: nothing to route by.
// expected-error@+1 {{module has no 'fp8q.target' attribute, needed to choose kernels for 2 fp8q.gemm op(s) without `kernel`; add e.g. `attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">}` to the module}}
module {
func.func @no_target(%q: tensor<?x7168xf8E4M3FN>, %s: tensor<?x56xf32>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x6144xbf16>) {
  // expected-note@+1 {{this gemm has no kernel}}
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  // expected-note@+1 {{this gemm has no kernel}}
  %c = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %a, %b, %c : tensor<?x6144xbf16>, tensor<?x6144xbf16>, tensor<?x6144xbf16>
}
}

// -----

// gfx942 reads f8E4M3FNUZ: OCP fp8 IR is reported where it is produced and
// where it is read.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @wrong_flavour_gfx942(%x: tensor<?x7168xbf16>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> tensor<?x6144xbf16> {
  // expected-error@+1 {{'fp8q.quantize' op produces 'f8E4M3FN' but target gfx942 reads 'f8E4M3FNUZ'; set fix-fp8-type to quantize to 'f8E4M3FNUZ'}}
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %y : tensor<?x6144xbf16>
}
}

// -----

// A gemm whose operands come from outside (arguments) with the wrong
// flavour is reported at the gemm.
module attributes {fp8q.target = #fp8q.target<arch = "gfx942">} {
func.func @wrong_flavour_args(%q: tensor<?x7168xf8E4M3FN>, %s: tensor<?x56xf32>, %w: tensor<6144x7168xf8E4M3FN>, %ws: tensor<48x56xf32>) -> tensor<?x6144xbf16> {
  // expected-error@+1 {{'fp8q.gemm' op q has 'f8E4M3FN' but kernel triton on gfx942 reads 'f8E4M3FNUZ'}}
  %y = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  return %y : tensor<?x6144xbf16>
}
}

// -----

// gfx950 and sm90 read OCP fp8.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @wrong_flavour_gfx950(%x: tensor<?x7168xbf16>) -> tensor<?x7168xf8E4M3FNUZ> {
  // expected-error@+1 {{'fp8q.quantize' op produces 'f8E4M3FNUZ' but target gfx950 reads 'f8E4M3FN'}}
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FNUZ>, tensor<?x56xf32>
  return %q : tensor<?x7168xf8E4M3FNUZ>
}
}

// -----

// An explicit ck_bpreshuffle gemm whose weight preshuffle_16x16 cannot hold.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
func.func @unshufflable(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32, #fp8q.layout<col_major>>, %w: tensor<200x256xf8E4M3FN>, %ws: tensor<2x2xf32>) -> tensor<?x200xbf16> {
  // expected-error@+1 {{'fp8q.gemm' op reads a [200, 256] weight that ck_bpreshuffle needs preshuffled, but preshuffle_16x16 needs N % 16 == 0 and K % 32 == 0}}
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<200x256xf8E4M3FN>, tensor<2x2xf32> -> tensor<?x200xbf16>
  return %y : tensor<?x200xbf16>
}
}
