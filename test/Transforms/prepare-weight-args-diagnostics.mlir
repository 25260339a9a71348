// Every diagnostic of --fp8q-prepare-weight-args.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-prepare-weight-args -verify-diagnostics -o /dev/null

// A weight scale that a gemm also reads in its own layout stays in the
// step, remarked at that gemm.
func.func @also_read_as_is(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %r: tensor<?x16xf8E8M0FNU>, %w: tensor<128x512xf8E4M3FN>, %ws: tensor<128x16xf8E8M0FNU>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %m = fp8q.materialize %ws : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x128xbf16>
  // expected-remark@+1 {{weight argument #4 is not prepared at load time: this op reads it in its own layout 'tensor<128x16xf8E8M0FNU>', so the step re-lays it out on every call; give this reader the layout 'tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>' to prepare it once}}
  %b = fp8q.gemm %q, %r, %w, %ws {kernel = #fp8q.kernel<triton>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU> -> tensor<?x128xbf16>
  return %a, %b : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// -----

// The same for a preshuffled weight that an unknown op reads too.
func.func @weight_read_as_is(%q: tensor<?x256xf8E4M3FN>, %s: tensor<?x2xf32, #fp8q.layout<col_major>>, %w: tensor<128x256xf8E4M3FN>, %ws: tensor<1x2xf32>) -> tensor<?x128xbf16> {
  %p = fp8q.preshuffle %w : tensor<128x256xf8E4M3FN> -> tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
  %d = fp8q.gemm %q, %s, %p, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x256xf8E4M3FN>, tensor<?x2xf32, #fp8q.layout<col_major>>, tensor<128x256xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x2xf32> -> tensor<?x128xbf16>
  // expected-remark@+1 {{weight argument #2 is not prepared at load time: this op reads it in its own layout 'tensor<128x256xf8E4M3FN>'}}
  "test.use"(%w) : (tensor<128x256xf8E4M3FN>) -> ()
  return %d : tensor<?x128xbf16>
}

// -----

// A weight scale re-laid out to two layouts (two kernels' w_scale) stays.
func.func @two_layouts(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %c: tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, %w: tensor<128x512xf8E4M3FN>, %ws: tensor<128x16xf8E8M0FNU>) -> (tensor<?x128xbf16>, tensor<?x128xbf16>) {
  %m = fp8q.materialize %ws : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  // expected-remark@+1 {{weight argument #4 is not prepared at load time: it is re-laid out to 'tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>' and here to 'tensor<128x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>', and a step argument has one type; route its gemms to kernels that read one layout to prepare it once}}
  %n = fp8q.materialize %ws : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x128xbf16>
  %b = fp8q.gemm %q, %c, %w, %n {kernel = #fp8q.kernel<reference>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x128xbf16>
  return %a, %b : tensor<?x128xbf16>, tensor<?x128xbf16>
}

// -----

// The name of the prepare function is taken.
func.func @step(%q: tensor<?x512xf8E4M3FN>, %s: tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, %w: tensor<128x512xf8E4M3FN>, %ws: tensor<128x16xf8E8M0FNU>) -> tensor<?x128xbf16> {
  %m = fp8q.materialize %ws : tensor<128x16xf8E8M0FNU> -> tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %a = fp8q.gemm %q, %s, %w, %m {kernel = #fp8q.kernel<cublas_mx>} : tensor<?x512xf8E4M3FN>, tensor<?x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>, tensor<128x512xf8E4M3FN>, tensor<128x16xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x128xbf16>
  return %a : tensor<?x128xbf16>
}
// expected-error@+1 {{'func.func' op is named like the prepare function of @step, which has weight arguments to prepare; rename @step_prepare_weights}}
func.func private @step_prepare_weights()
