// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-override.json" | FileCheck %s --check-prefix=OVERRIDE
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels | FileCheck %s --check-prefix=DEFAULT
// RUN: fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-override.json" | fp8q-opt -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-override.json" | FileCheck %s --check-prefix=OVERRIDE

// A malformed table is an error naming the file and the entry.
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-bad-syntax.json" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-bad-entry.json" 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-bad-key.json" 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-bad-max-m.json" 2>&1 | FileCheck %s --check-prefix=MAXM
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/tuned-bad-pair.json" 2>&1 | FileCheck %s --check-prefix=PAIR
// RUN: not fp8q-opt %s -split-input-file --fp8q-select-kernels="tuned-table=%S/Inputs/no-such-table.json" 2>&1 | FileCheck %s --check-prefix=MISSING

// SYNTAX: error: tuned table '{{.*}}Inputs{{/|\\}}tuned-bad-syntax.json': <file>: invalid JSON [2:33, byte=35]: Invalid JSON value
// ENTRY: error: tuned table '{{.*}}Inputs{{/|\\}}tuned-bad-entry.json': triton_tuned[1][1] (K): expected a positive integer
// KEY: error: tuned table '{{.*}}Inputs{{/|\\}}tuned-bad-key.json': ck_max_M: unknown key; expected "triton_tuned" or "ck_max_m"
// MAXM: error: tuned table '{{.*}}Inputs{{/|\\}}tuned-bad-max-m.json': ck_max_m[1].max_m: expected a positive integer
// PAIR: error: tuned table '{{.*}}Inputs{{/|\\}}tuned-bad-pair.json': triton_tuned[0]: expected an [N, K] pair of positive integers
// MISSING: error: tuned table '{{.*}}Inputs{{/|\\}}no-such-table.json': cannot read the file: No such file or directory

// The file replaces the embedded table: 6144x7168 becomes tuned, and
// 2112x7168 (tuned by default) no longer is.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.2">} {
// OVERRIDE-LABEL: func.func @rocm72(
// OVERRIDE: fp8q.preshuffle %arg2 : tensor<2112x7168xf8E4M3FN>
// OVERRIDE: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} {{.*}} tensor<6144x7168xf8E4M3FN>
// OVERRIDE: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>} {{.*}} tensor<2112x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// DEFAULT-LABEL: func.func @rocm72(
// DEFAULT: fp8q.preshuffle %arg1 : tensor<6144x7168xf8E4M3FN>
// DEFAULT: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<ck_bpreshuffle>} {{.*}} tensor<6144x7168xf8E4M3FN, #fp8q.weight_layout<preshuffle_16x16>>
// DEFAULT: fp8q.gemm {{.*}} {kernel = #fp8q.kernel<triton>} {{.*}} tensor<2112x7168xf8E4M3FN>
func.func @rocm72(%q: tensor<?x7168xf8E4M3FN>, %w: tensor<6144x7168xf8E4M3FN>, %w2: tensor<2112x7168xf8E4M3FN>, %s: tensor<?x56xf32>, %ws: tensor<48x56xf32>, %ws2: tensor<17x56xf32>) -> (tensor<?x6144xbf16>, tensor<?x2112xbf16>) {
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<6144x7168xf8E4M3FN>, tensor<48x56xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w2, %ws2 : tensor<?x7168xf8E4M3FN>, tensor<?x56xf32>, tensor<2112x7168xf8E4M3FN>, tensor<17x56xf32> -> tensor<?x2112xbf16>
  return %a, %b : tensor<?x6144xbf16>, tensor<?x2112xbf16>
}
}

// -----

// ck safe maxima come from the file too: 6144x4096 gets a branch at 64,
// 4608x4096 (512 by default) none.
module attributes {fp8q.target = #fp8q.target<arch = "gfx950", rocm = "7.0">} {
// OVERRIDE-LABEL: func.func @rocm70(
// OVERRIDE: %[[LIMIT:.*]] = arith.constant 64 : index
// OVERRIDE: arith.cmpi sgt, %{{.*}}, %[[LIMIT]]
// OVERRIDE: scf.if
// OVERRIDE:   kernel = #fp8q.kernel<triton>} {{.*}} tensor<6144x4096xf8E4M3FN>
// OVERRIDE: else
// OVERRIDE:   kernel = #fp8q.kernel<ck>} {{.*}} tensor<6144x4096xf8E4M3FN>
// OVERRIDE-NOT: scf.if
// OVERRIDE: kernel = #fp8q.kernel<ck>} {{.*}} tensor<4608x4096xf8E4M3FN>
// OVERRIDE-NOT: scf.if
// OVERRIDE: return
// DEFAULT-LABEL: func.func @rocm70(
// DEFAULT-NOT: scf.if
// DEFAULT: kernel = #fp8q.kernel<ck>} {{.*}} tensor<6144x4096xf8E4M3FN>
// DEFAULT: %[[LIMIT:.*]] = arith.constant 512 : index
// DEFAULT: arith.cmpi sgt, %{{.*}}, %[[LIMIT]]
// DEFAULT: scf.if
// DEFAULT:   kernel = #fp8q.kernel<triton>} {{.*}} tensor<4608x4096xf8E4M3FN>
// DEFAULT: else
// DEFAULT:   kernel = #fp8q.kernel<ck>} {{.*}} tensor<4608x4096xf8E4M3FN>
func.func @rocm70(%q: tensor<?x4096xf8E4M3FN>, %s: tensor<?x32xf32>, %w: tensor<6144x4096xf8E4M3FN>, %ws: tensor<48x32xf32>, %w2: tensor<4608x4096xf8E4M3FN>, %ws2: tensor<36x32xf32>) -> (tensor<?x6144xbf16>, tensor<?x4608xbf16>) {
  %a = fp8q.gemm %q, %s, %w, %ws : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<6144x4096xf8E4M3FN>, tensor<48x32xf32> -> tensor<?x6144xbf16>
  %b = fp8q.gemm %q, %s, %w2, %ws2 : tensor<?x4096xf8E4M3FN>, tensor<?x32xf32>, tensor<4608x4096xf8E4M3FN>, tensor<36x32xf32> -> tensor<?x4608xbf16>
  return %a, %b : tensor<?x6144xbf16>, tensor<?x4608xbf16>
}
}
