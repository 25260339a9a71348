//===- nccl_abi_check.cpp - NcclComm.h against the real nccl.h ------------===//
//
// lib/Runtime/Gpu/NcclComm.h declares the few NCCL types, values and
// functions the GPU runtimes use, so that they build without nccl.h. This
// program includes the real header and checks, at compile time, that they
// agree: the enum values, the unique id's size, and each function's
// parameter types position by position (ncclComm_t as an opaque pointer,
// the enums as int, cudaStream_t as void *). It compiles and runs without
// a GPU:
//   g++ -std=c++17 -I/usr/local/cuda/include -Iinclude -Ilib/Runtime/Gpu
//     bench/nccl_abi_check.cpp -o nccl_abi_check && ./nccl_abi_check
// and, given a library (-L.../lib -lnccl), with -DFP8Q_NCCL_LINKED it also
// prints the library's ncclGetVersion. RCCL's rccl.h has the same API
// (-I/opt/rocm/include/rccl -DFP8Q_RCCL, __HIP_PLATFORM_AMD__).
//
//===----------------------------------------------------------------------===//

#ifdef FP8Q_RCCL
#include <rccl.h>
#else
#include <nccl.h>
#endif

#include "NcclComm.h"

#include <cstdio>
#include <type_traits>
#include <utility>

namespace n = fp8q::nccl;

static_assert(NCCL_UNIQUE_ID_BYTES == n::kUniqueIdBytes, "ncclUniqueId size");
static_assert(sizeof(ncclUniqueId) == sizeof(n::UniqueId), "ncclUniqueId");
static_assert(alignof(ncclUniqueId) == alignof(n::UniqueId), "ncclUniqueId");
static_assert(sizeof(ncclResult_t) == sizeof(n::Result), "ncclResult_t");
static_assert(int(ncclSuccess) == n::kSuccess, "ncclSuccess");
static_assert(sizeof(ncclDataType_t) == sizeof(int), "ncclDataType_t");
static_assert(sizeof(ncclRedOp_t) == sizeof(int), "ncclRedOp_t");
static_assert(sizeof(ncclComm_t) == sizeof(n::Comm), "ncclComm_t");
static_assert(std::is_pointer<ncclComm_t>::value, "ncclComm_t");
static_assert(int(ncclInt8) == n::kInt8, "ncclInt8");
static_assert(int(ncclUint8) == n::kUint8, "ncclUint8");
static_assert(int(ncclFloat16) == n::kFloat16, "ncclFloat16");
static_assert(int(ncclFloat32) == n::kFloat32, "ncclFloat32");
static_assert(int(ncclBfloat16) == n::kBfloat16, "ncclBfloat16");
static_assert(int(ncclSum) == n::kSum, "ncclSum");

// Parameter types as the runtime passes them: the real type mapped to what
// NcclComm.h uses in its place (overloads beat the template).
n::Result as(ncclResult_t);
n::Comm as(ncclComm_t);
n::Comm *as(ncclComm_t *);
n::UniqueId as(ncclUniqueId);
n::UniqueId *as(ncclUniqueId *);
int as(ncclDataType_t);
int as(ncclRedOp_t);
#ifdef FP8Q_RCCL
void *as(hipStream_t);
#else
void *as(cudaStream_t);
#endif
template <class T> T as(T);
template <class T> using As = decltype(as(std::declval<T>()));

/// The function pointer type of `Real` with every type mapped.
template <class R, class... A> auto mapped(R (*)(A...)) -> As<R> (*)(As<A>...);
template <class Real, class Ours>
constexpr bool kSame =
    std::is_same<decltype(mapped(std::declval<Real>())), Ours>::value;

using Api = n::Api;
static_assert(kSame<decltype(&ncclGetUniqueId), decltype(Api::getUniqueId)>,
              "ncclGetUniqueId");
static_assert(kSame<decltype(&ncclCommInitRank), decltype(Api::commInitRank)>,
              "ncclCommInitRank");
static_assert(kSame<decltype(&ncclCommDestroy), decltype(Api::commDestroy)>,
              "ncclCommDestroy");
static_assert(kSame<decltype(&ncclAllGather), decltype(Api::allGather)>,
              "ncclAllGather");
static_assert(kSame<decltype(&ncclReduceScatter), decltype(Api::reduceScatter)>,
              "ncclReduceScatter");
static_assert(kSame<decltype(&ncclGetVersion), decltype(Api::getVersion)>,
              "ncclGetVersion");
static_assert(
    kSame<decltype(&ncclGetErrorString), decltype(Api::getErrorString)>,
    "ncclGetErrorString");
// ncclCommCount / ncclCommUserRank take a `const ncclComm_t` (a const
// pointer value: the same type once passed by value).
static_assert(kSame<decltype(&ncclCommCount), decltype(Api::commCount)>,
              "ncclCommCount");
static_assert(kSame<decltype(&ncclCommUserRank), decltype(Api::commUserRank)>,
              "ncclCommUserRank");

int main() {
  printf("nccl_abi_check: NcclComm.h matches nccl.h %d.%d.%d "
         "(NCCL_VERSION_CODE %d)\n",
         NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, NCCL_VERSION_CODE);
#ifdef FP8Q_NCCL_LINKED
  int v = 0;
  ncclResult_t r = ncclGetVersion(&v);
  printf("nccl_abi_check: the linked library's ncclGetVersion: %d (%s)\n", v,
         ncclGetErrorString(r));
  return r == ncclSuccess ? 0 : 1;
#else
  return 0;
#endif
}
