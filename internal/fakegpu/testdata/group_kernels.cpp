// group_kernels.cpp: group_kernels.cu on the emulator, for group_test.go.
// Its launches check their buffers, so that __ldg reads only them: two
// ranks launching at once must not see each other's buffers.
#include "cuda_emu.h"

#include "group_kernels.cu"

#include "fake_launch.h"

namespace {

void prepare(fake::Launch &l) {
	unsigned long long bytes = 8ull * l.arg<int>(2);
	l.buffer(0, bytes, "in");
	l.buffer(1, bytes, "out");
}

fake::Package pkg({"fgroup_"}, prepare);

fake::Table table({
    fake::kernel("fgroup_affine", fgroup_affine, emu::Options{emu::Mode::direct}),
});

} // namespace
