/* SPDX-License-Identifier: GPL-2.0 */
/* Invariants checked in debug builds (make DEBUG=1, the unit tests' and fuzzing's): DASSERT. */
#ifndef PT_ASSERT_H
#define PT_ASSERT_H

/* Says which invariant failed where (as an internal error), then aborts. */
void pt_assert_fail(const char *file, int line, const char *func, const char *cond)
	__attribute__((noreturn, cold));

/*
 * DASSERT(cond): an invariant the code relies on, written where it must
 * hold.  Debug builds (PT_DEBUG) check it; other builds compile it (so it
 * stays valid code) but never evaluate it: a report's time is the hot
 * paths', and the invariants are for tests and fuzzing to break.
 */
#ifdef PT_DEBUG
#define DASSERT(cond)                                                                  \
	do {                                                                           \
		if (__builtin_expect(!(cond), 0))                                      \
			pt_assert_fail(__FILE__, __LINE__, __func__, #cond);           \
	} while (0)
#else
#define DASSERT(cond)                                                                  \
	do {                                                                           \
		if (0 && (cond)) {                                                     \
		}                                                                      \
	} while (0)
#endif /* PT_DEBUG */

#endif /* PT_ASSERT_H */
