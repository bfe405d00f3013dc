// SPDX-License-Identifier: GPL-2.0
// build: -O2
/* Call-flow test: an exception thrown and caught ten times through the system's libstdc++. */
#include <stdexcept>

__attribute__((noinline)) static void thrower(int i)
{
	if (i >= 0)
		throw std::runtime_error("caught");
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 10; i++) {
		try {
			thrower(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	return caught == 10 ? 0 : 1;
}
