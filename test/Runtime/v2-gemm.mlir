// SPEC v2 GEMMs end to end on the CPU runtime through upstream mlir-runner,
// one per format, each reading its scales in a kernel's padded or strided
// layout, written by the quantize producers (fused padded writes):
//   FP8 1x128 UE8M0: x_scale col_major align 4 pack 4 (deepgemm_sm100's),
//     w_scale the row-major [ceil(N / 128), K / 128] block scale;
//   MXFP8 E4M3: both scales swizzle_32_4_4 (cublas_mx's);
//   MXFP8 E5M2: x_scale col_major, w_scale cdna4_mx;
//   MXFP4: both scales cdna4_mx (aiter_mxfp4's), f4E2M1FN packed two per
//     byte, once with the reference kernel and once with aiter_mxfp4, whose
//     weight the pipeline preshuffles byte-wise (fp8q_rt_preshuffle_v2);
//   NVFP4: both scales swizzle_32_4_4, activation global 0.5 and weight
//     global 0.25, the gemm given their product 0.125.
// Inputs are v * p from integer formulas (@gen): v from E2M1's values (all
// exact in every format), one element per group the format's largest value
// times p, p a power of two per (row, group) (NVFP4: an e4m3 block scale
// times the global), so every quantization is exact and the GEMM of the
// inputs themselves is the reference: Inputs/v2_gemm_ref.py recomputes it
// exactly in plain Python, rounds to bf16 and compares.
//
// RUN: fp8q-opt %s --fp8q-pipeline \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | %python %S/Inputs/v2_gemm_ref.py | FileCheck %s

// CHECK: FP8 1x128 UE8M0: 3x16 match
// CHECK: MXFP8 E4M3: 3x24 match
// CHECK: MXFP8 E5M2: 3x24 match
// CHECK: MXFP4: 3x24 match
// CHECK: MXFP4 aiter_mxfp4: 3x32 match
// CHECK: NVFP4: 3x24 match

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

  // x[i, j] = (j % group == maxpos ? vmax : vals[(5 i + 3 j + seed) % 8])
  //           * pow[(rowfactor * i + 2 * (j / group) + seed) % 3]
  func.func private @gen(%rows: index, %cols: index, %seed: index, %group: index,
                         %maxpos: index, %rowfactor: index, %vmax: f32,
                         %p0: f32, %p1: f32, %p2: f32) -> tensor<?x?xbf16> {
    %vals = arith.constant dense<[0.0, 0.5, 1.0, -1.5, 2.0, -3.0, 4.0, -0.5]> : tensor<8xf32>
    %x = tensor.generate %rows, %cols {
    ^bb0(%i: index, %j: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c5 = arith.constant 5 : index
      %c8 = arith.constant 8 : index
      %i5 = arith.muli %i, %c5 : index
      %j3 = arith.muli %j, %c3 : index
      %a = arith.addi %i5, %j3 : index
      %b = arith.addi %a, %seed : index
      %vi = arith.remui %b, %c8 : index
      %v = tensor.extract %vals[%vi] : tensor<8xf32>
      %jm = arith.remui %j, %group : index
      %ismax = arith.cmpi eq, %jm, %maxpos : index
      %vv = arith.select %ismax, %vmax, %v : f32
      %g = arith.divui %j, %group : index
      %g2 = arith.muli %g, %c2 : index
      %ir = arith.muli %i, %rowfactor : index
      %e0 = arith.addi %ir, %g2 : index
      %e1 = arith.addi %e0, %seed : index
      %pi = arith.remui %e1, %c3 : index
      %is0 = arith.cmpi eq, %pi, %c0 : index
      %is1 = arith.cmpi eq, %pi, %c1 : index
      %p12 = arith.select %is1, %p1, %p2 : f32
      %p = arith.select %is0, %p0, %p12 : f32
      %f = arith.mulf %vv, %p : f32
      %h = arith.truncf %f : f32 to bf16
      tensor.yield %h : bf16
    } : tensor<?x?xbf16>
    return %x : tensor<?x?xbf16>
  }

  func.func private @print(%y: tensor<?x?xbf16>) {
    %f = arith.extf %y : tensor<?x?xbf16> to tensor<?x?xf32>
    %b = bufferization.to_buffer %f : tensor<?x?xf32> to memref<?x?xf32>
    %u = memref.cast %b : memref<?x?xf32> to memref<*xf32>
    func.call @printMemrefF32(%u) : (memref<*xf32>) -> ()
    return
  }

  func.func @ue8m0(%x: tensor<?x256xbf16>, %wf: tensor<16x256xbf16>) -> tensor<?x16xbf16> {
    %q, %s = fp8q.quantize %x {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
        : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>,
          tensor<?x2xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>
    // Every weight row of the 128-row block has the same group scales: row
    // 0's are the block's.
    %w, %wr = fp8q.quantize %wf {scale_rounding = #fp8q.scale_rounding<pow2_ceil>}
        : tensor<16x256xbf16> -> tensor<16x256xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
    %ws = tensor.extract_slice %wr[0, 0] [1, 2] [1, 1] : tensor<16x2xf8E8M0FNU> to tensor<1x2xf8E8M0FNU>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>}
        : tensor<?x256xf8E4M3FN>, tensor<?x2xf8E8M0FNU, #fp8q.layout<col_major, align = 4, pack = 4>>,
          tensor<16x256xf8E4M3FN>, tensor<1x2xf8E8M0FNU> -> tensor<?x16xbf16>
    return %y : tensor<?x16xbf16>
  }

  func.func @mxfp8_e4m3(%x: tensor<?x128xbf16>, %wf: tensor<24x128xbf16>) -> tensor<?x24xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>,
          tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %w, %ws = fp8q.quantize %wf {group_size = 32}
        : tensor<24x128xbf16> -> tensor<24x128xf8E4M3FN>,
          tensor<24x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>}
        : tensor<?x128xf8E4M3FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>,
          tensor<24x128xf8E4M3FN>, tensor<24x4xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x24xbf16>
    return %y : tensor<?x24xbf16>
  }

  func.func @mxfp8_e5m2(%x: tensor<?x128xbf16>, %wf: tensor<24x128xbf16>) -> tensor<?x24xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf8E5M2>,
          tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major>>
    %w, %ws = fp8q.quantize %wf {group_size = 32}
        : tensor<24x128xbf16> -> tensor<24x128xf8E5M2>,
          tensor<24x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>}
        : tensor<?x128xf8E5M2>, tensor<?x4xf8E8M0FNU, #fp8q.layout<col_major>>,
          tensor<24x128xf8E5M2>, tensor<24x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x24xbf16>
    return %y : tensor<?x24xbf16>
  }

  func.func @mxfp4(%x: tensor<?x128xbf16>, %wf: tensor<24x128xbf16>) -> tensor<?x24xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf4E2M1FN>,
          tensor<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %w, %ws = fp8q.quantize %wf {group_size = 32}
        : tensor<24x128xbf16> -> tensor<24x128xf4E2M1FN>,
          tensor<24x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<reference>}
        : tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
          tensor<24x128xf4E2M1FN>, tensor<24x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x24xbf16>
    return %y : tensor<?x24xbf16>
  }

  func.func @mxfp4_aiter(%x: tensor<?x128xbf16>, %wf: tensor<32x128xbf16>) -> tensor<?x32xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf4E2M1FN>,
          tensor<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %w, %ws = fp8q.quantize %wf {group_size = 32}
        : tensor<32x128xbf16> -> tensor<32x128xf4E2M1FN>,
          tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>}
        : tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>,
          tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x32xbf16>
    return %y : tensor<?x32xbf16>
  }

  func.func @nvfp4(%x: tensor<?x64xbf16>, %wf: tensor<24x64xbf16>) -> tensor<?x24xbf16> {
    %gx = arith.constant dense<0.5> : tensor<f32>
    %gw = arith.constant dense<0.25> : tensor<f32>
    %q, %s = fp8q.quantize %x global(%gx : tensor<f32>) {group_size = 16}
        : tensor<?x64xbf16> -> tensor<?x64xf4E2M1FN>,
          tensor<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
    %w, %ws = fp8q.quantize %wf global(%gw : tensor<f32>) {group_size = 16}
        : tensor<24x64xbf16> -> tensor<24x64xf4E2M1FN>,
          tensor<24x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>
    // The gemm's global scale is the product of the two.
    %g = arith.mulf %gx, %gw : tensor<f32>
    %y = fp8q.gemm %q, %s, %w, %ws global(%g : tensor<f32>) {kernel = #fp8q.kernel<reference>}
        : tensor<?x64xf4E2M1FN>, tensor<?x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>>,
          tensor<24x64xf4E2M1FN>, tensor<24x4xf8E4M3FN, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x24xbf16>
    return %y : tensor<?x24xbf16>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c24 = arith.constant 24 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %max6 = arith.constant 6.0 : f32
    %max448 = arith.constant 448.0 : f32
    %max57344 = arith.constant 57344.0 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %four = arith.constant 4.0 : f32
    %quarter = arith.constant 0.25 : f32
    %e14 = arith.constant 6.103515625e-05 : f32
    %e13 = arith.constant 1.220703125e-04 : f32
    %e12 = arith.constant 2.44140625e-04 : f32

    // FP8 1x128 UE8M0.
    %ux = func.call @gen(%c3, %c256, %c0, %c128, %c0, %c1, %max448, %half, %one, %two)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %uw = func.call @gen(%c16, %c256, %c1, %c128, %c1, %c0, %max448, %one, %two, %four)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %uxc = tensor.cast %ux : tensor<?x?xbf16> to tensor<?x256xbf16>
    %uwc = tensor.cast %uw : tensor<?x?xbf16> to tensor<16x256xbf16>
    %uy = func.call @ue8m0(%uxc, %uwc) : (tensor<?x256xbf16>, tensor<16x256xbf16>) -> tensor<?x16xbf16>
    %uyd = tensor.cast %uy : tensor<?x16xbf16> to tensor<?x?xbf16>
    func.call @print(%uyd) : (tensor<?x?xbf16>) -> ()

    // MXFP8 E4M3.
    %ax = func.call @gen(%c3, %c128, %c0, %c32, %c0, %c1, %max448, %half, %one, %two)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %aw = func.call @gen(%c24, %c128, %c1, %c32, %c1, %c1, %max448, %one, %two, %four)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %axc = tensor.cast %ax : tensor<?x?xbf16> to tensor<?x128xbf16>
    %awc = tensor.cast %aw : tensor<?x?xbf16> to tensor<24x128xbf16>
    %ay = func.call @mxfp8_e4m3(%axc, %awc) : (tensor<?x128xbf16>, tensor<24x128xbf16>) -> tensor<?x24xbf16>
    %ayd = tensor.cast %ay : tensor<?x24xbf16> to tensor<?x?xbf16>
    func.call @print(%ayd) : (tensor<?x?xbf16>) -> ()

    // MXFP8 E5M2.
    %bx = func.call @gen(%c3, %c128, %c0, %c32, %c0, %c1, %max57344, %e14, %e13, %e12)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %bw = func.call @gen(%c24, %c128, %c1, %c32, %c1, %c1, %max57344, %quarter, %half, %one)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %bxc = tensor.cast %bx : tensor<?x?xbf16> to tensor<?x128xbf16>
    %bwc = tensor.cast %bw : tensor<?x?xbf16> to tensor<24x128xbf16>
    %by = func.call @mxfp8_e5m2(%bxc, %bwc) : (tensor<?x128xbf16>, tensor<24x128xbf16>) -> tensor<?x24xbf16>
    %byd = tensor.cast %by : tensor<?x24xbf16> to tensor<?x?xbf16>
    func.call @print(%byd) : (tensor<?x?xbf16>) -> ()

    // MXFP4.
    %cx = func.call @gen(%c3, %c128, %c0, %c32, %c0, %c1, %max6, %half, %one, %two)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %cw = func.call @gen(%c24, %c128, %c1, %c32, %c1, %c1, %max6, %one, %two, %four)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %cxc = tensor.cast %cx : tensor<?x?xbf16> to tensor<?x128xbf16>
    %cwc = tensor.cast %cw : tensor<?x?xbf16> to tensor<24x128xbf16>
    %cy = func.call @mxfp4(%cxc, %cwc) : (tensor<?x128xbf16>, tensor<24x128xbf16>) -> tensor<?x24xbf16>
    %cyd = tensor.cast %cy : tensor<?x24xbf16> to tensor<?x?xbf16>
    func.call @print(%cyd) : (tensor<?x?xbf16>) -> ()

    // MXFP4 with aiter_mxfp4: the same formulas, 32 weight rows.
    %ew = func.call @gen(%c32, %c128, %c1, %c32, %c1, %c1, %max6, %one, %two, %four)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %ewc = tensor.cast %ew : tensor<?x?xbf16> to tensor<32x128xbf16>
    %ey = func.call @mxfp4_aiter(%cxc, %ewc) : (tensor<?x128xbf16>, tensor<32x128xbf16>) -> tensor<?x32xbf16>
    %eyd = tensor.cast %ey : tensor<?x32xbf16> to tensor<?x?xbf16>
    func.call @print(%eyd) : (tensor<?x?xbf16>) -> ()

    // NVFP4: p = e4m3 block scale (0.75, 1.5, 1.25) * global (0.5; 0.25).
    %nx0 = arith.constant 0.375 : f32
    %nx1 = arith.constant 0.75 : f32
    %nx2 = arith.constant 0.625 : f32
    %nw0 = arith.constant 0.1875 : f32
    %nw1 = arith.constant 0.375 : f32
    %nw2 = arith.constant 0.3125 : f32
    %dx = func.call @gen(%c3, %c64, %c0, %c16, %c0, %c1, %max6, %nx0, %nx1, %nx2)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %dw = func.call @gen(%c24, %c64, %c1, %c16, %c1, %c1, %max6, %nw0, %nw1, %nw2)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %dxc = tensor.cast %dx : tensor<?x?xbf16> to tensor<?x64xbf16>
    %dwc = tensor.cast %dw : tensor<?x?xbf16> to tensor<24x64xbf16>
    %dy = func.call @nvfp4(%dxc, %dwc) : (tensor<?x64xbf16>, tensor<24x64xbf16>) -> tensor<?x24xbf16>
    %dyd = tensor.cast %dy : tensor<?x24xbf16> to tensor<?x?xbf16>
    func.call @print(%dyd) : (tensor<?x?xbf16>) -> ()
    return
  }
}
