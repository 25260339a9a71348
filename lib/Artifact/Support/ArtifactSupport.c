/*===- ArtifactSupport.c - Helpers MLIR-lowered code calls ---------*- C -*-===*
 *
 * The functions of MLIR's libmlir_c_runner_utils that --fp8q-pipeline
 * output calls, written again for the artifact so that it needs no MLIR
 * library at run time. Compiled to LLVM bitcode at build time, embedded in
 * fp8q-compile and linked (only what a module references, hidden) into
 * every artifact. Plain C, no headers beyond the compiler's.
 *
 *===----------------------------------------------------------------------===*/

#include <stdint.h>

/// MLIR's unranked memref: rank and a pointer to the ranked descriptor.
typedef struct {
  int64_t rank;
  void *descriptor;
} fp8q_unranked_memref;

/// MLIR's ranked descriptor: sizes[rank] then strides[rank].
typedef struct {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes_and_strides[];
} fp8q_ranked_memref;

static void copy_bytes(char *dst, const char *src, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    dst[i] = src[i];
}

/// memref.copy between any strided memrefs of one shape (what
/// finalize-memref-to-llvm calls when either side is not contiguous).
void memrefCopy(int64_t elem_size, fp8q_unranked_memref *src_arg,
                fp8q_unranked_memref *dst_arg) {
  const fp8q_ranked_memref *src = src_arg->descriptor;
  const fp8q_ranked_memref *dst = dst_arg->descriptor;
  int64_t rank = src_arg->rank;
  const char *s = src->aligned + src->offset * elem_size;
  char *d = dst->aligned + dst->offset * elem_size;
  if (rank == 0) {
    copy_bytes(d, s, elem_size);
    return;
  }
  const int64_t *sizes = src->sizes_and_strides;
  const int64_t *src_strides = src->sizes_and_strides + rank;
  const int64_t *dst_strides = dst->sizes_and_strides + rank;
  for (int64_t r = 0; r < rank; ++r)
    if (sizes[r] == 0)
      return;
  int64_t index[rank];
  for (int64_t r = 0; r < rank; ++r)
    index[r] = 0;
  for (;;) {
    copy_bytes(d, s, elem_size);
    for (int64_t axis = rank - 1;; --axis) {
      s += src_strides[axis] * elem_size;
      d += dst_strides[axis] * elem_size;
      if (++index[axis] < sizes[axis])
        break;
      if (axis == 0)
        return;
      s -= sizes[axis] * src_strides[axis] * elem_size;
      d -= sizes[axis] * dst_strides[axis] * elem_size;
      index[axis] = 0;
    }
  }
}
