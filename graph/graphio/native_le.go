//go:build 386 || amd64 || amd64p32 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package graphio

// nativeLE reports a little-endian host, whose memory already holds the
// binary format's byte order.
const nativeLE = true
