// SPDX-License-Identifier: GPL-2.0
// build: -static-libstdc++ -static-libgcc
/* Call-flow test: a C++ exception thrown 5 frames down, caught in main, three times. */
struct err {
	int depth;
};

static int thrower(int n)
{
	if (n == 0)
		throw err{ n };
	return thrower(n - 1) + 1;
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 3; i++) {
		try {
			thrower(4);
		} catch (const err &) {
			caught++;
		}
	}
	return caught == 3 ? 0 : 1;
}
