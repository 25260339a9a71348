//===- NcclComm.cpp - The communicator of the device collectives ----------===//
//
// Opens NCCL (CUDA) or RCCL (HIP) with dlopen, and owns the process's one
// communicator: fp8q_rt_device_comm_init makes it (ncclCommInitRank),
// fp8q_rt_device_comm_set takes a serving stack's, comm_destroy ends it.
// The collectives themselves are device entry points (DeviceAbi.cpp).
// Errors follow the device ABI: one line on stderr, the status returned and
// made sticky for the calling thread (comm_destroy runs anyway, so nothing
// leaks; nccl_version is a query and sets nothing).
//
//===----------------------------------------------------------------------===//

#include "NcclComm.h"

#include "GpuApi.h"
#include "GpuOps.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <string>

namespace fp8q::nccl {
namespace {

using fp8q::rt::fail;

#ifdef FP8Q_HIP_ON_CUDA
constexpr const char *kDefaultLibrary = "libnccl.so.2";
constexpr const char *kFlavour = "NCCL";
#else
constexpr const char *kDefaultLibrary = "librccl.so.1";
constexpr const char *kFlavour = "RCCL";
#endif

std::mutex stateMutex;
State state;

struct Loaded {
  Api api{};
  bool ok = false;
  std::string name, error;
};

Loaded &loaded() {
  static Loaded l;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *env = getenv("FP8Q_NCCL_LIBRARY");
    l.name = env && *env ? env : kDefaultLibrary;
    void *h = dlopen(l.name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      l.error = std::string("cannot open the ") + kFlavour + " library " +
                l.name + " (" + (e ? e : "unknown error") +
                "); set FP8Q_NCCL_LIBRARY to its path (e.g. "
#ifdef FP8Q_HIP_ON_CUDA
                "the nvidia-nccl-cu13 wheel's "
                "site-packages/nvidia/nccl/lib/libnccl.so.2)"
#else
                "/opt/rocm/lib/librccl.so.1)"
#endif
          ;
      return;
    }
    struct {
      const char *name;
      void **slot;
    } syms[] = {
        {"ncclGetUniqueId", (void **)&l.api.getUniqueId},
        {"ncclCommInitRank", (void **)&l.api.commInitRank},
        {"ncclCommDestroy", (void **)&l.api.commDestroy},
        {"ncclCommCount", (void **)&l.api.commCount},
        {"ncclCommUserRank", (void **)&l.api.commUserRank},
        {"ncclAllGather", (void **)&l.api.allGather},
        {"ncclReduceScatter", (void **)&l.api.reduceScatter},
        {"ncclGetVersion", (void **)&l.api.getVersion},
        {"ncclGetErrorString", (void **)&l.api.getErrorString},
    };
    for (auto &s : syms) {
      *s.slot = dlsym(h, s.name);
      if (!*s.slot) {
        l.error = std::string("the ") + kFlavour + " library " + l.name +
                  " has no " + s.name + " (FP8Q_NCCL_LIBRARY picks another)";
        dlclose(h);
        return;
      }
    }
    l.ok = true;
  });
  return l;
}

/// The API or a failure of `entry` naming the library.
const Api *apiOrFail(const char *entry, int32_t &status) {
  const char *why = nullptr;
  const Api *a = api(&why);
  status = a ? FP8Q_OK : fail(entry, FP8Q_ERR_DEVICE, "%s", why);
  return a;
}

/// NCCL's text for `r`.
const char *errorString(const Api &a, Result r) {
  const char *s = a.getErrorString ? a.getErrorString(r) : nullptr;
  return s ? s : "unknown NCCL error";
}

/// Runs `op` unless the thread's status is sticky; makes a failure sticky.
template <class F> int32_t guarded(F op) {
  if (int32_t s = fp8q::hiprt::stickyStatus())
    return s;
  fp8q::hiprt::clearLastError();
  int32_t s = op();
  if (s != FP8Q_OK)
    fp8q::hiprt::setSticky(s);
  return s;
}

int32_t checkRanks(const char *entry, int32_t ranks, int32_t rank) {
  if (ranks < 1 || ranks > (1 << 14))
    return fail(entry, FP8Q_ERR_ARG, "ranks %d must be in [1, %d]", (int)ranks,
                1 << 14);
  if (rank < 0 || rank >= ranks)
    return fail(entry, FP8Q_ERR_ARG, "rank %d must be in [0, ranks = %d)",
                (int)rank, (int)ranks);
  return FP8Q_OK;
}

int32_t refuseExisting(const char *entry) {
  return fail(entry, FP8Q_ERR_ARG,
              "a communicator of %d ranks (this process rank %d) is already "
              "set; call fp8q_rt_device_comm_destroy first",
              state.ranks, state.rank);
}

} // namespace

const char *libraryName() { return loaded().name.c_str(); }

const Api *api(const char **why) {
  Loaded &l = loaded();
  if (!l.ok) {
    if (why)
      *why = l.error.c_str();
    return nullptr;
  }
  return &l.api;
}

State current() {
  std::lock_guard<std::mutex> lock(stateMutex);
  return state;
}

} // namespace fp8q::nccl

using namespace fp8q::nccl;
using fp8q::rt::fail;

extern "C" {

int32_t fp8q_rt_device_comm_init(int32_t ranks, int32_t rank,
                                 const void *unique_id) {
  const char *entry = "fp8q_rt_device_comm_init";
  return guarded([&]() -> int32_t {
    if (int32_t s = checkRanks(entry, ranks, rank))
      return s;
    if (!unique_id && ranks > 1)
      return fail(entry, FP8Q_ERR_ARG,
                  "unique_id is null but ranks = %d: every rank passes the "
                  "128-byte id rank 0 got from fp8q_rt_device_comm_unique_id "
                  "(null is only for ranks == 1)",
                  (int)ranks);
    std::lock_guard<std::mutex> lock(stateMutex);
    if (state.comm)
      return refuseExisting(entry);
    int32_t s;
    const Api *a = apiOrFail(entry, s);
    if (!a)
      return s;
    UniqueId id;
    if (unique_id) {
      memcpy(id.internal, unique_id, kUniqueIdBytes);
    } else if (Result r = a->getUniqueId(&id)) {
      return fail(entry, FP8Q_ERR_DEVICE, "ncclGetUniqueId: %s",
                  errorString(*a, r));
    }
    Comm comm = nullptr;
    if (Result r = a->commInitRank(&comm, ranks, id, rank))
      return fail(entry, FP8Q_ERR_DEVICE,
                  "ncclCommInitRank(ranks = %d, rank = %d): %s", (int)ranks,
                  (int)rank, errorString(*a, r));
    state.comm = comm;
    state.ranks = ranks;
    state.rank = rank;
    state.owned = true;
    return FP8Q_OK;
  });
}

int32_t fp8q_rt_device_comm_unique_id(void *out128) {
  const char *entry = "fp8q_rt_device_comm_unique_id";
  return guarded([&]() -> int32_t {
    if (!out128)
      return fail(entry, FP8Q_ERR_NULL,
                  "out128 is null (it receives the 128-byte ncclUniqueId)");
    int32_t s;
    const Api *a = apiOrFail(entry, s);
    if (!a)
      return s;
    UniqueId id;
    if (Result r = a->getUniqueId(&id))
      return fail(entry, FP8Q_ERR_DEVICE, "ncclGetUniqueId: %s",
                  errorString(*a, r));
    memcpy(out128, id.internal, kUniqueIdBytes);
    return FP8Q_OK;
  });
}

int32_t fp8q_rt_device_comm_set(void *nccl_comm, int32_t ranks, int32_t rank) {
  const char *entry = "fp8q_rt_device_comm_set";
  return guarded([&]() -> int32_t {
    if (!nccl_comm)
      return fail(entry, FP8Q_ERR_NULL,
                  "nccl_comm is null (pass the serving stack's ncclComm_t)");
    if (int32_t s = checkRanks(entry, ranks, rank))
      return s;
    std::lock_guard<std::mutex> lock(stateMutex);
    if (state.comm)
      return refuseExisting(entry);
    int32_t s;
    const Api *a = apiOrFail(entry, s);
    if (!a)
      return s;
    Comm comm = static_cast<Comm>(nccl_comm);
    int count = 0, user = 0;
    if (Result r = a->commCount(comm, &count))
      return fail(entry, FP8Q_ERR_DEVICE, "ncclCommCount: %s",
                  errorString(*a, r));
    if (Result r = a->commUserRank(comm, &user))
      return fail(entry, FP8Q_ERR_DEVICE, "ncclCommUserRank: %s",
                  errorString(*a, r));
    if (count != ranks || user != rank)
      return fail(entry, FP8Q_ERR_ARG,
                  "the communicator has %d ranks and this process is its rank "
                  "%d, but ranks = %d and rank = %d were passed",
                  count, user, (int)ranks, (int)rank);
    state.comm = comm;
    state.ranks = ranks;
    state.rank = rank;
    state.owned = false;
    return FP8Q_OK;
  });
}

int32_t fp8q_rt_device_comm_destroy(void) {
  const char *entry = "fp8q_rt_device_comm_destroy";
  std::lock_guard<std::mutex> lock(stateMutex);
  if (!state.comm)
    return FP8Q_OK;
  State old = state;
  state = State();
  if (!old.owned)
    return FP8Q_OK;
  const Api *a = api(nullptr); // loaded: comm_init used it
  if (Result r = a ? a->commDestroy(old.comm) : kSuccess) {
    int32_t s =
        fail(entry, FP8Q_ERR_DEVICE, "ncclCommDestroy: %s", errorString(*a, r));
    fp8q::hiprt::setSticky(s);
    return s;
  }
  return FP8Q_OK;
}

int32_t fp8q_rt_device_comm_nccl_version(void) {
  const char *why = nullptr;
  const Api *a = api(&why);
  if (!a) {
    fail("fp8q_rt_device_comm_nccl_version", FP8Q_ERR_DEVICE, "%s", why);
    return -FP8Q_ERR_DEVICE;
  }
  int v = 0;
  if (Result r = a->getVersion(&v)) {
    fail("fp8q_rt_device_comm_nccl_version", FP8Q_ERR_DEVICE,
         "ncclGetVersion: %s", errorString(*a, r));
    return -FP8Q_ERR_DEVICE;
  }
  return v;
}

} // extern "C"
