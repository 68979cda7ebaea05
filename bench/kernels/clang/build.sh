#!/bin/sh
# Builds the reference-only clang wasm kernel (needs Debian clang-14 + lld-14).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/build"
clang-14 --target=wasm32 -nostdlib -O3 -msimd128 -mbulk-memory -Wl,--no-entry \
  -Wl,--import-memory -Wl,--initial-memory=67108864 -Wl,--max-memory=2147483648 \
  -Wl,--lto-O3 -o "$here/build/gemm.wasm" "$here/gemm.c"
echo "$here/build/gemm.wasm"
