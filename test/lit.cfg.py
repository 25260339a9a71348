# -*- Python -*-
# lit configuration for fp8q (after mlir/examples/standalone).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FP8Q"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "lib", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fp8q_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%fp8q_libs", config.fp8q_lib_dir))
config.substitutions.append(
    ("%fp8q_kernels", os.path.join(config.fp8q_obj_root, "kernels")))
if os.path.exists(os.path.join(config.fp8q_lib_dir, "libfp8q_runtime_hip.so")) \
        and not os.path.exists("/dev/kfd"):
    config.available_features.add("fp8q-hip-runtime-no-gpu")
for backend in ("hip", "cuda"):
    if os.path.exists(os.path.join(config.fp8q_lib_dir,
                                   "libfp8q_runtime_%s.so" % backend)):
        config.available_features.add("fp8q-%s-runtime" % backend)
# The host C++ compiler, for tests that build a small check program.
config.substitutions.append(("%cxx", config.cxx_compiler))
# A real nccl.h (CUDA toolkit, or $NCCL_HOME / $CUDA_HOME): the runtime's
# own NCCL declarations (lib/Runtime/Gpu/NcclComm.h) are checked against it.
for root in (os.environ.get("NCCL_HOME"), os.environ.get("CUDA_HOME"),
             "/usr/local/cuda", "/usr"):
    if root and os.path.exists(os.path.join(root, "include", "nccl.h")):
        config.available_features.add("nccl-header")
        config.substitutions.append(
            ("%nccl_include", os.path.join(root, "include")))
        break
config.substitutions.append(("%llvm_libs", config.llvm_lib_dir))
config.substitutions.append(("%fp8q_build", config.fp8q_obj_root))
config.substitutions.append(("%fp8q_src", config.fp8q_src_root))
config.substitutions.append(
    ("%examples", os.path.join(config.fp8q_src_root, "examples")))
config.substitutions.append(
    ("%fp8q_plugin", os.path.join(config.fp8q_lib_dir, "libFp8qPlugin.so"))
)

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.fp8q_tools_dir, config.llvm_tools_dir]
upstream_tools = ["mlir-opt", "mlir-runner", "mlir-translate"]
tools = ["fp8q-opt", "fp8q-model-gen", "fp8q-run", "fp8q-compile", "fp8q-step-run"]
if config.fp8q_sanitizers.upper() in ("ON", "1", "TRUE", "YES"):
    # ASan+UBSan build: our executables carry the sanitizer runtime, but the
    # upstream tools that load our plugin or runtime library do not, so they
    # get clang's shared runtime preloaded (leak checking off: it would
    # report the tools' own exit-time allocations).
    import subprocess

    config.available_features.add("asan")
    # libMLIR.so is not instrumented, but LLVM's allocators poison memory
    # from header code compiled into our (instrumented) objects; libMLIR then
    # touches that memory legitimately. Honour only compiler poisoning.
    config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    asan_rt = subprocess.check_output(
        [config.cxx_compiler, "-print-file-name=libclang_rt.asan-x86_64.so"],
        text=True).strip()
    for name in upstream_tools:
        tools.append(ToolSubst(
            name,
            command="env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 %s" %
            (asan_rt, os.path.join(config.llvm_tools_dir, name))))
else:
    tools.append(ToolSubst("mlir-opt", unresolved="fatal"))
    tools.append(ToolSubst("mlir-runner", unresolved="ignore"))
    tools.append(ToolSubst("mlir-translate", unresolved="fatal"))
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

