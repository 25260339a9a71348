# -*- Python -*-
# Runs every GoogleTest executable (named *Tests) under build/unittests.

import os

import lit.formats

config.name = "FP8Q-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.fp8q_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")

# ASan builds: see test/lit.cfg.py (LLVM header code poisons memory that the
# uninstrumented libMLIR.so then uses).
config.environment["ASAN_OPTIONS"] = "allow_user_poisoning=0"
config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
