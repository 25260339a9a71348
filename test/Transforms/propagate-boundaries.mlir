// The four boundaries where the hand-placed fix of SGLang PR 29275 copied
// the scale (`scale.t().contiguous().t()`) on gfx950 / ROCm 7.2, with GLM-5
// shapes (hidden 6144, q_lora 2048, 64 heads): communicator handoff of a
// pre-quantized (fp8, scale) pair, q projection, attention output to o_proj,
// shared-expert MLP. With fusion only the handoff, whose layout the public
// signature fixes, still needs a copy; without fusion every producer does.
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout \
// RUN:   | fp8q-opt -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect --fp8q-propagate-scale-layout --fp8q-verify-contracts -o /dev/null
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false})" | FileCheck %s --check-prefix=NOFUSE
// RUN: fp8q-opt %s -split-input-file -allow-unregistered-dialect \
// RUN:   --pass-pipeline="builtin.module(fp8q-propagate-scale-layout{fuse-producers=false},fp8q-verify-contracts)" -o /dev/null

module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {

// Communicator handoff: the all-gathered pair arrives as public arguments in
// row-major. One copy at the entry, shared by both projections that read it.
// CHECK-LABEL: func.func @communicator_handoff
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x6144xf8E4M3FN>, %[[S:[^:]*]]: tensor<?x48xf32>
// CHECK-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x48xf32> -> tensor<?x48xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: fp8q.gemm %[[Q]], %[[C]],
// CHECK: fp8q.gemm %[[Q]], %[[C]],
// NOFUSE-LABEL: func.func @communicator_handoff
// NOFUSE-COUNT-1: fp8q.materialize
// NOFUSE-NOT: fp8q.materialize
// NOFUSE: return
func.func @communicator_handoff(%q: tensor<?x6144xf8E4M3FN>, %s: tensor<?x48xf32>,
    %w_qkv_a: tensor<2624x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_qkv_a: tensor<21x48xf32>,
    %w_idx: tensor<128x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_idx: tensor<1x48xf32>)
    -> (tensor<?x2624xbf16>, tensor<?x128xbf16>) {
  %qkv_a = fp8q.gemm %q, %s, %w_qkv_a, %ws_qkv_a {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<2624x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<21x48xf32> -> tensor<?x2624xbf16>
  %idx = fp8q.gemm %q, %s, %w_idx, %ws_idx {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<128x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<1x48xf32> -> tensor<?x128xbf16>
  return %qkv_a, %idx : tensor<?x2624xbf16>, tensor<?x128xbf16>
}

// q projection: q_a_layernorm fused with quantization feeds q_b_proj.
// CHECK-LABEL: func.func @q_projection
// CHECK: fp8q.rms_norm_quantize {{.*}} -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
// NOFUSE-LABEL: func.func @q_projection
// NOFUSE: %{{.*}}, %[[S:.*]] = fp8q.rms_norm_quantize {{.*}} -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>{{$}}
// NOFUSE-NEXT: %[[C:.*]] = fp8q.materialize %[[S]] : tensor<?x16xf32> -> tensor<?x16xf32, #fp8q.layout<col_major>>
// NOFUSE-NEXT: fp8q.gemm %{{.*}}, %[[C]],
func.func @q_projection(%q_a: tensor<?x2048xbf16>, %gamma: tensor<2048xbf16>,
    %w_q_b: tensor<16384x2048xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_q_b: tensor<128x16xf32>) -> tensor<?x16384xbf16> {
  %q, %s = fp8q.rms_norm_quantize %q_a, %gamma : tensor<?x2048xbf16>, tensor<2048xbf16> -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>
  %y = fp8q.gemm %q, %s, %w_q_b, %ws_q_b {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>, tensor<16384x2048xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<128x16xf32> -> tensor<?x16384xbf16>
  return %y : tensor<?x16384xbf16>
}

// Attention output (64 heads x v_head 256) to o_proj.
// CHECK-LABEL: func.func @attention_output_o_proj
// CHECK: fp8q.quantize {{.*}} -> tensor<?x16384xf8E4M3FN>, tensor<?x128xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
// NOFUSE-LABEL: func.func @attention_output_o_proj
// NOFUSE-COUNT-1: fp8q.materialize
// NOFUSE-NOT: fp8q.materialize
// NOFUSE: return
func.func @attention_output_o_proj(%attn: tensor<?x16384xbf16>,
    %w_o: tensor<6144x16384xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_o: tensor<48x128xf32>) -> tensor<?x6144xbf16> {
  %q, %s = fp8q.quantize %attn : tensor<?x16384xbf16> -> tensor<?x16384xf8E4M3FN>, tensor<?x128xf32>
  %y = fp8q.gemm %q, %s, %w_o, %ws_o {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x16384xf8E4M3FN>, tensor<?x128xf32>, tensor<6144x16384xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<48x128xf32> -> tensor<?x6144xbf16>
  return %y : tensor<?x6144xbf16>
}

// Shared-expert MLP: post-attention RMSNorm + quant (keeping the residual
// input) feeds gate_up; SiLU-and-mul, quant, down.
// CHECK-LABEL: func.func @shared_expert_mlp
// CHECK: fp8q.rms_norm_quantize {{.*}} -> tensor<?x6144xf8E4M3FN>, tensor<?x48xf32, #fp8q.layout<col_major>>, tensor<?x6144xbf16>
// CHECK: fp8q.quantize {{.*}} -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32, #fp8q.layout<col_major>>
// CHECK-NOT: fp8q.materialize
// CHECK: return
// NOFUSE-LABEL: func.func @shared_expert_mlp
// NOFUSE-COUNT-2: fp8q.materialize
// NOFUSE-NOT: fp8q.materialize
// NOFUSE: return
func.func @shared_expert_mlp(%h: tensor<?x6144xbf16>, %gamma: tensor<6144xbf16>,
    %w_gu: tensor<4096x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_gu: tensor<32x48xf32>,
    %w_down: tensor<6144x2048xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws_down: tensor<48x16xf32>)
    -> (tensor<?x6144xbf16>, tensor<?x6144xbf16>) {
  %q, %s, %res = fp8q.rms_norm_quantize %h, %gamma {keep_unquantized} : tensor<?x6144xbf16>, tensor<6144xbf16> -> tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<?x6144xbf16>
  %gu = fp8q.gemm %q, %s, %w_gu, %ws_gu {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<4096x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<32x48xf32> -> tensor<?x4096xbf16>
  %act = "test.silu_and_mul"(%gu) : (tensor<?x4096xbf16>) -> tensor<?x2048xbf16>
  %q2, %s2 = fp8q.quantize %act : tensor<?x2048xbf16> -> tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>
  %down = fp8q.gemm %q2, %s2, %w_down, %ws_down {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x2048xf8E4M3FN>, tensor<?x16xf32>, tensor<6144x2048xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<48x16xf32> -> tensor<?x6144xbf16>
  return %down, %res : tensor<?x6144xbf16>, tensor<?x6144xbf16>
}

}

// -----

// One scale read by ck_bpreshuffle and by the plain ck kernel (AITER's GEMM
// test: row-major for ck, transposed bytes for bpreshuffle): two layouts,
// one copy, fusion or not.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @bpreshuffle_and_ck
// CHECK-COUNT-1: fp8q.materialize
// CHECK-NOT: fp8q.materialize
// CHECK: return
// NOFUSE-LABEL: func.func @bpreshuffle_and_ck
// NOFUSE-COUNT-1: fp8q.materialize
// NOFUSE-NOT: fp8q.materialize
// NOFUSE: return
func.func @bpreshuffle_and_ck(%x: tensor<?x6144xbf16>,
    %wp: tensor<2112x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %w: tensor<4608x6144xf8E4M3FN>,
    %ws0: tensor<17x48xf32>, %ws1: tensor<36x48xf32>) -> (tensor<?x2112xbf16>, tensor<?x4608xbf16>) {
  %q, %s = fp8q.quantize %x : tensor<?x6144xbf16> -> tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>
  %a = fp8q.gemm %q, %s, %wp, %ws0 {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<2112x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<17x48xf32> -> tensor<?x2112xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws1 {kernel = #fp8q.kernel<ck>} : tensor<?x6144xf8E4M3FN>, tensor<?x48xf32>, tensor<4608x6144xf8E4M3FN>, tensor<36x48xf32> -> tensor<?x4608xbf16>
  return %a, %b : tensor<?x2112xbf16>, tensor<?x4608xbf16>
}
}

// -----

// Decode with one token (M == 1): the handed-over row-major scale already has
// the bytes ck_bpreshuffle reads; no copy (PyTorch would still reject its
// strides; fp8q compares bytes).
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// CHECK-LABEL: func.func @handoff_m1
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @handoff_m1(%q: tensor<1x6144xf8E4M3FN>, %s: tensor<1x48xf32>,
    %w: tensor<2624x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, %ws: tensor<21x48xf32>) -> tensor<1x2624xbf16> {
  %y = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<ck_bpreshuffle>} : tensor<1x6144xf8E4M3FN>, tensor<1x48xf32>, tensor<2624x6144xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>, tensor<21x48xf32> -> tensor<1x2624xbf16>
  return %y : tensor<1x2624xbf16>
}
}

// -----

// sm90, DeepSeek-V3.2 shapes (hidden 7168): a handed-over scale read by
// DeepGEMM (col_major align 4) and cuBLAS (col_major). With a static M that
// is a multiple of 4 both read the same bytes: one copy; with a dynamic M
// they differ: two.
module attributes {fp8q.target = #fp8q.target<arch = "sm90">} {
// CHECK-LABEL: func.func @static_m
// CHECK-COUNT-1: fp8q.materialize
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @static_m(%q: tensor<64x7168xf8E4M3FN>, %s: tensor<64x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) {
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<64x7168xf8E4M3FN>, tensor<64x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<64x2112xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<64x7168xf8E4M3FN>, tensor<64x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<64x2112xbf16>
  return
}
// CHECK-LABEL: func.func @dynamic_m
// CHECK-COUNT-2: fp8q.materialize
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @dynamic_m(%q: tensor<?x7168xf8E4M3FN>, %s: tensor<?x56xf32>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) {
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<?x2112xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<?x2112xbf16>
  return
}
// A dynamic-M producer on sm90 is fused to one of the two and copied once.
// CHECK-LABEL: func.func @dynamic_m_fused
// CHECK: fp8q.quantize {{.*}}, tensor<?x56xf32, #fp8q.layout<col_major>>
// CHECK-COUNT-1: fp8q.materialize
// CHECK-NOT: fp8q.materialize
// CHECK: return
func.func @dynamic_m_fused(%x: tensor<?x7168xbf16>, %w: tensor<2112x7168xf8E4M3FN>, %ws: tensor<17x56xf32>) {
  %q, %s = fp8q.quantize %x : tensor<?x7168xbf16> -> tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>
  %a = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<deepgemm>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<?x2112xbf16>
  %b = fp8q.gemm %q, %s, %w, %ws {kernel = #fp8q.kernel<cublas>} : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<?x2112xbf16>
  return
}
}
