// Every materialization that remains gets a remark naming the consumers and
// the kernel contract that forced it; unknown consumers get a remark too.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout -verify-diagnostics -o /dev/null

// The copy of an argument is remarked at its first consumer (the
// signature's line can be megabytes long in a model).
func.func @handoff(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-remark@+1 {{scale materialized to #fp8q.layout<col_major> (copy) for 2 consumers: x_scale of fp8q.gemm at}}
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @kernel_named(%x: tensor<?x256xbf16>, %w: tensor<128x256xf8E4M3FN>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-remark@+1 {{kernel ck_bpreshuffle requires #fp8q.layout<col_major> (strides (1, M))}}
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  %y1 = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}

// -----

func.func @unknown(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  // expected-remark@+1 {{scale materialized to #fp8q.layout<row_major> (copy) for 1 consumer: unknown consumer 'test.use' operand #0}}
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  // expected-remark@+1 {{operand #0 gets row_major: unknown scale consumer}}
  "test.use"(%s) : (tensor<?x2xf32, #fp8q.layout<col_major>>) -> ()
  return
}

// -----

// A public result type demands exactly col_major align 4; with M = 16 that
// is the same bytes as col_major, so the op changes only the type. The
// hand-written op is kept (with its location).
func.func @no_copy(%s: tensor<16x2xf32, #fp8q.layout<col_major>>) -> tensor<16x2xf32, #fp8q.layout<col_major, align = 4>> {
  // expected-remark@+1 {{scale materialized to #fp8q.layout<col_major, align = 4> (no copy: same bytes) for 1 consumer: result #0 of public @no_copy}}
  %c = fp8q.materialize %s : tensor<16x2xf32, #fp8q.layout<col_major>> -> tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>
  return %c : tensor<16x2xf32, #fp8q.layout<col_major, align = 4>>
}

// -----

// No remark when nothing is copied.
func.func @fused(%x: tensor<?x256xbf16>, %wp: tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<1x2xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>
  %y0 = fp8q.gemm %q, %s, %wp, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  return
}
