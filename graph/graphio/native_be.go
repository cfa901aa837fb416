//go:build !(386 || amd64 || amd64p32 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package graphio

// nativeLE reports a little-endian host. On this host it is false: the
// binary reader and writer swap bytes between memory and the file.
const nativeLE = false
