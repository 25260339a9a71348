// --fp8q-pipeline{prepare-weight-args=true} end to end on the CPU runtime:
// a public MXFP4 step whose aiter_mxfp4 gemm reads its weight preshuffled
// and its weight scale in cdna4_mx gets both re-laid out by
// @step_prepare_weights (its call in @main is inserted by the pass), and
// the prepared step's output is bit for bit that of @step_ref, the same
// body as a private function (never prepared: the per-call re-layouts
// stay). A wrong prepared layout (bytes the step reads scrambled) changes
// the printed values.
//
// RUN: fp8q-opt %s --fp8q-select-kernels --fp8q-propagate-scale-layout \
// RUN:     --fp8q-prepare-weight-args | FileCheck %s --check-prefix=IR
// RUN: fp8q-opt %s --fp8q-pipeline=prepare-weight-args=true \
// RUN:   | mlir-runner -e main -entry-point-result=void \
// RUN:       -shared-libs=%fp8q_libs/libfp8q_runtime_cpu.so,%llvm_libs/libmlir_c_runner_utils.so,%llvm_libs/libmlir_runner_utils.so \
// RUN:   | FileCheck %s

// IR-LABEL: func.func @step(
// IR-SAME: tensor<32x128xf4E2M1FN, #fp8q.weight_layout<preshuffle_16x16>>
// IR-SAME: tensor<32x4xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
// IR-SAME: fp8q.prepared_args = array<i64: 1, 2>
// IR-NOT: fp8q.preshuffle
// IR-NOT: fp8q.materialize
// IR: return
// IR-LABEL: func.func @step_prepare_weights(
// IR-SAME: attributes {fp8q.prepares = @step}
// IR: fp8q.preshuffle
// IR: fp8q.materialize
// IR-LABEL: func.func @main(
// IR: %[[P:.*]]:2 = call @step_prepare_weights(
// IR: call @step(%{{.*}}, %[[P]]#0, %[[P]]#1)

// The unprepared step's rows, then the prepared step's: the same text.
// CHECK: data =
// CHECK-NEXT: [[ROW0:\[\[.*[1-9].*]]
// CHECK-NEXT: [[ROW1:.*[1-9].*]]
// CHECK-NEXT: [[ROW2:.*[1-9].*]]
// CHECK: data =
// CHECK-NEXT: {{^}}[[ROW0]]{{$}}
// CHECK-NEXT: {{^}}[[ROW1]]{{$}}
// CHECK-NEXT: {{^}}[[ROW2]]{{$}}

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

  func.func @step(%x: tensor<?x128xbf16>, %w: tensor<32x128xf4E2M1FN>, %ws: tensor<32x4xf8E8M0FNU>) -> tensor<?x32xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>}
        : tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU>,
          tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU> -> tensor<?x32xbf16>
    return %y : tensor<?x32xbf16>
  }

  func.func private @step_ref(%x: tensor<?x128xbf16>, %w: tensor<32x128xf4E2M1FN>, %ws: tensor<32x4xf8E8M0FNU>) -> tensor<?x32xbf16> {
    %q, %s = fp8q.quantize %x {group_size = 32}
        : tensor<?x128xbf16> -> tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU>
    %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<aiter_mxfp4>}
        : tensor<?x128xf4E2M1FN>, tensor<?x4xf8E8M0FNU>,
          tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU> -> tensor<?x32xbf16>
    return %y : tensor<?x32xbf16>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %max6 = arith.constant 6.0 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %four = arith.constant 4.0 : f32
    %x = func.call @gen(%c3, %c128, %c0, %c32, %c0, %c1, %max6, %half, %one, %two)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %wf = func.call @gen(%c32, %c128, %c1, %c32, %c1, %c1, %max6, %one, %two, %four)
        : (index, index, index, index, index, index, f32, f32, f32, f32) -> tensor<?x?xbf16>
    %xc = tensor.cast %x : tensor<?x?xbf16> to tensor<?x128xbf16>
    %wfc = tensor.cast %wf : tensor<?x?xbf16> to tensor<32x128xbf16>
    %w, %ws = fp8q.quantize %wfc {group_size = 32}
        : tensor<32x128xbf16> -> tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>
    %ref = func.call @step_ref(%xc, %w, %ws)
        : (tensor<?x128xbf16>, tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>) -> tensor<?x32xbf16>
    %refd = tensor.cast %ref : tensor<?x32xbf16> to tensor<?x?xbf16>
    func.call @print(%refd) : (tensor<?x?xbf16>) -> ()
    %y = func.call @step(%xc, %w, %ws)
        : (tensor<?x128xbf16>, tensor<32x128xf4E2M1FN>, tensor<32x4xf8E8M0FNU>) -> tensor<?x32xbf16>
    %yd = tensor.cast %y : tensor<?x32xbf16> to tensor<?x?xbf16>
    func.call @print(%yd) : (tensor<?x?xbf16>) -> ()
    return
  }
}
