#!/bin/sh
# Builds the reference-only native addon (needs g++, the Node headers and libopenblas0).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
inc=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node
blas=$(ls /usr/lib/x86_64-linux-gnu/libopenblas.so.0 /usr/lib/*/libopenblas.so.0 2>/dev/null | head -1)
mkdir -p "$here/build"
g++ -O3 -march=native -fPIC -shared -std=c++17 -DNODE_GYP_MODULE_NAME=gemm_addon \
  -I"$inc" "$here/gemm_addon.cc" -o "$here/build/gemm_addon.node" ${blas:+"$blas"}
echo "$here/build/gemm_addon.node"
