//===- NcclComm.h - NCCL / RCCL, opened at run time -------------*- C++ -*-===//
//
// The few NCCL declarations the collectives need, written here so that the
// GPU runtimes build without nccl.h and link no NCCL: the library is opened
// with dlopen when a communicator is first needed ($FP8Q_NCCL_LIBRARY, else
// libnccl.so.2 on CUDA, librccl.so.1 on HIP; RCCL has NCCL's API and ABI).
// The values below are NCCL's ABI; bench/nccl_abi_check.cpp static_asserts
// them against the real nccl.h. The process has at most one communicator,
// made by fp8q_rt_device_comm_init or handed over by
// fp8q_rt_device_comm_set.
//
//===----------------------------------------------------------------------===//

#ifndef FP8Q_RUNTIME_GPU_NCCLCOMM_H
#define FP8Q_RUNTIME_GPU_NCCLCOMM_H

#include <stddef.h>
#include <stdint.h>

namespace fp8q::nccl {

/// ncclResult_t: 0 is ncclSuccess.
typedef int Result;
constexpr Result kSuccess = 0;
/// ncclComm_t, an opaque pointer.
typedef struct OpaqueComm *Comm;
/// NCCL_UNIQUE_ID_BYTES.
constexpr size_t kUniqueIdBytes = 128;
/// ncclUniqueId, passed by value to ncclCommInitRank.
struct UniqueId {
  char internal[kUniqueIdBytes];
};
/// ncclDataType_t values.
enum DataType : int {
  kInt8 = 0,
  kUint8 = 1,
  kFloat16 = 6,
  kFloat32 = 7,
  kBfloat16 = 9,
};
/// ncclRedOp_t values.
enum RedOp : int { kSum = 0 };

/// The NCCL functions the runtime calls, resolved from the library.
struct Api {
  Result (*getUniqueId)(UniqueId *);
  Result (*commInitRank)(Comm *, int, UniqueId, int);
  Result (*commDestroy)(Comm);
  Result (*commCount)(Comm, int *);
  Result (*commUserRank)(Comm, int *);
  Result (*allGather)(const void *, void *, size_t, int, Comm, void *);
  Result (*reduceScatter)(const void *, void *, size_t, int, int, Comm, void *);
  Result (*getVersion)(int *);
  const char *(*getErrorString)(Result);
};

/// The library's name for messages ("libnccl.so.2", "librccl.so.1", or
/// $FP8Q_NCCL_LIBRARY).
const char *libraryName();

/// The API, opening the library once per process; null when it cannot be
/// opened or lacks a symbol, with the reason (naming the library and
/// FP8Q_NCCL_LIBRARY) in `why`.
const Api *api(const char **why);

/// The process's communicator and its shape (comm null: none).
struct State {
  Comm comm = nullptr;
  int ranks = 0, rank = 0;
  /// comm_init made it (comm_destroy destroys it); comm_set's is the
  /// caller's.
  bool owned = false;
};

/// A copy of the current state (taken under the state's lock).
State current();

} // namespace fp8q::nccl

#endif // FP8Q_RUNTIME_GPU_NCCLCOMM_H
