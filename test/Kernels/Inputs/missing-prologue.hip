// Input of grid-prologue.test: one kernel of each spelling without the
// prologue, one with it, and two __global__ macros the check cannot follow.
#define TEST_KERNEL extern "C" __global__ FP8Q_LAUNCH_BOUNDS(256, 1)
extern "C" __global__ void test_kernel_plain(int *p) { p[0] = 1; }
TEST_KERNEL void test_kernel_macro(int *p) { p[0] = 2; }
#define TEST_KERNEL_T(name)                                                    \
  extern "C" __global__ void test_kernel_##name(int *p) { p[0] = 3; }
TEST_KERNEL_T(pasted)
extern "C" __global__ void test_kernel_ok(int *p) {
  gridPrologue();
  p[0] = 4;
}
#define TEST_KERNEL_ATTRS(t) extern "C" __global__ FP8Q_LAUNCH_BOUNDS(t, 1)
TEST_KERNEL_ATTRS(64) void test_kernel_unseen(int *p) { p[0] = 5; }
#define TEST_KERNEL_UNUSED extern "C" __global__
#undef TEST_KERNEL
