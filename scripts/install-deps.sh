#!/usr/bin/env bash
# Installs what fp8q needs on Debian 12 (bookworm): LLVM/MLIR/clang/lld 22,
# GoogleTest, Ninja, CMake, NumPy / venv / pip / setuptools (the Python
# package and its tests), and the HIP runtime headers and library used to
# build libfp8q_runtime_hip.so (the gfx950/gfx942 code objects need only
# clang-22). Only missing packages are installed.
set -euo pipefail

packages=(
  cmake ninja-build python3 libgtest-dev
  python3-numpy python3-venv python3-pip python3-setuptools
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  clang-22 lld-22 clang-tools-22 libclang-rt-22-dev
  libamdhip64-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  echo "fp8q: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "fp8q: dependencies present"
