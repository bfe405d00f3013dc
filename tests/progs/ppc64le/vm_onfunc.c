// SPDX-License-Identifier: GPL-2.0
/*
 * A function entered both ways ELFv2 has (ppc64le): three direct calls from
 * its own module land on its local entry, past the global entry's TOC
 * set-up; one call through a pointer runs the global entry.  For
 * pitrace record --on work: each activation is recorded, from either entry
 * to its return, and nothing of its caller.
 */
// build: -O1 -static
int g = 7;

__attribute__((noinline)) int work(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i ^ n ^ g;	/* g: a TOC access, so work has a global entry */
	return s;
}

int (*volatile fp)(int) = work;

int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++)
		s += work(20 + i);
	s += fp(10);
	return s == 0;
}
