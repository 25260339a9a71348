// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout | FileCheck %s
// RUN: fp8q-opt %s -split-input-file --fp8q-propagate-scale-layout --fp8q-propagate-scale-layout | FileCheck %s

// History: propagation once modelled f32 scales only and detached every
// fp8q.materialize, so a SPEC v2 one (an e8m0 scale written swizzled,
// materialized to row_major and returned) vanished and left a return of
// the wrong type; the fix then left v2 materializations in place. The
// solver now models SPEC v2's 1-byte scales and padded layouts: their
// materializations are re-decided like v1's, here fused into the
// producers (each writes the row-major scale the public result reads).

// CHECK-LABEL: func.func @swizzled_to_row_major
// CHECK: %{{.*}}, %[[S:.*]] = fp8q.quantize %{{.*}} -> tensor<?x256xf8E4M3FN>, tensor<?x8xf8E8M0FNU>{{$}}
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[S]] : tensor<?x8xf8E8M0FNU>
func.func @swizzled_to_row_major(%x: tensor<?x256xbf16>) -> tensor<?x8xf8E8M0FNU> {
  %q, %s = fp8q.quantize %x {group_size = 32}
      : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>,
        tensor<?x8xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>
  %r = fp8q.materialize %s : tensor<?x8xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x8xf8E8M0FNU>
  return %r : tensor<?x8xf8E8M0FNU>
}

// -----

// v1 and v2 materializations in one function are decided alike.
// CHECK-LABEL: func.func @mixed
// CHECK: %{{.*}}, %[[S0:.*]] = fp8q.quantize %{{.*}} -> tensor<?x256xf4E2M1FN>, tensor<?x8xf8E8M0FNU>{{$}}
// CHECK: %{{.*}}, %[[S1:.*]] = fp8q.quantize %{{.*}} : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>, tensor<?x2xf32>{{$}}
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[S0]], %[[S1]]
func.func @mixed(%x: tensor<?x256xbf16>) -> (tensor<?x8xf8E8M0FNU>, tensor<?x2xf32>) {
  %q, %s = fp8q.quantize %x {group_size = 32}
      : tensor<?x256xbf16> -> tensor<?x256xf4E2M1FN>,
        tensor<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>>
  %r = fp8q.materialize %s : tensor<?x8xf8E8M0FNU, #fp8q.layout<cdna4_mx>> -> tensor<?x8xf8E8M0FNU>
  %q1, %s1 = fp8q.quantize %x
      : tensor<?x256xbf16> -> tensor<?x256xf8E4M3FN>,
        tensor<?x2xf32, #fp8q.layout<col_major>>
  %r1 = fp8q.materialize %s1 : tensor<?x2xf32, #fp8q.layout<col_major>> -> tensor<?x2xf32>
  return %r, %r1 : tensor<?x8xf8E8M0FNU>, tensor<?x2xf32>
}

// -----

// A pinned producer (a public argument) keeps its padded layout: the copy
// to the row-major result stays, exactly one.
// CHECK-LABEL: func.func @pinned_swizzled
// CHECK: %[[R:.*]] = fp8q.materialize %{{.*}} : tensor<?x8xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x8xf8E8M0FNU>
// CHECK-NOT: fp8q.materialize
// CHECK: return %[[R]]
func.func @pinned_swizzled(%s: tensor<?x8xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>>) -> tensor<?x8xf8E8M0FNU> {
  %r = fp8q.materialize %s : tensor<?x8xf8E8M0FNU, #fp8q.layout<swizzle_32_4_4>> -> tensor<?x8xf8E8M0FNU>
  return %r : tensor<?x8xf8E8M0FNU>
}
