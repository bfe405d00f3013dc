// SPDX-License-Identifier: GPL-2.0
// build: -O2
/*
 * gcc -O2 moves main's two unlikely throws into main.cold: main jumps to
 * its first instruction for one and into its middle for the other, and the
 * exceptions are caught in main.  By construction: 10 iterations, i = 3
 * throws logic_error, i = 4 and 9 throw runtime_error.
 */
#include <stdexcept>
static volatile int sink;
__attribute__((noinline)) static int work(int i) { sink += i; return sink; }
int main()
{
	int total = 0;
	for (int i = 0; i < 10; i++) {
		try {
			int v = work(i);
			if (__builtin_expect(i == 3, 0))
				throw std::logic_error("three");
			if (__builtin_expect(i % 5 == 4, 0))
				throw std::runtime_error("unlikely");
			total += v;
		} catch (const std::exception &e) {
			total++;
		}
	}
	sink = total;
	return 0;
}
