// SPDX-License-Identifier: GPL-2.0-only
// A host program for scripts/check-perf-host.sh: a templated member
// function in a namespace (a mangled C++ name to demangle) that spins for
// the given number of iterations.
#include <cstdlib>

namespace ntrace_demo {
template <typename T> struct Spinner {
	T acc;
	__attribute__((noinline)) T spin(long n)
	{
		for (long i = 0; i < n; i++)
			acc = acc * 3 + i;
		return acc;
	}
};

__attribute__((noinline)) long work(long n)
{
	Spinner<long> s{1};

	return s.spin(n);
}
} // namespace ntrace_demo

static volatile long sink;

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;

	sink = ntrace_demo::work(n);
	return 0;
}
