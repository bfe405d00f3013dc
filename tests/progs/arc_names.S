# SPDX-License-Identifier: GPL-2.0
# Names test: functions named as a C++ compiler would (_ZN2ns1fEi, which
# demangles to ns::f(int)), as C would ("i", which a careless demangler
# reads as the type int), with a broken mangling (_ZN3foo) and with a ';'
# (which folded stacks use between frames).  No libc; steps by construction:
#   _start: call, mov, xor, syscall                  Base 4
#   _ZN2ns1fEi: call, call, call, ret, 1 call        Base 4, Cum 10
#   i: nop, ret, 1 call                              Base 2
#   "odd;name": nop, nop, ret, 1 call                Base 3
#   _ZN3foo: ret, 1 call                             Base 1   (total 14)
	.text
	.globl _start
_start:
	call _ZN2ns1fEi
	mov $60, %eax
	xor %edi, %edi
	syscall

	.globl _ZN2ns1fEi
	.type _ZN2ns1fEi, @function
_ZN2ns1fEi:
	call i
	call "odd;name"
	call _ZN3foo
	ret
	.size _ZN2ns1fEi, . - _ZN2ns1fEi

	.type i, @function
i:
	nop
	ret
	.size i, . - i

	.type "odd;name", @function
"odd;name":
	nop
	nop
	ret
	.size "odd;name", . - "odd;name"

	.type _ZN3foo, @function
_ZN3foo:
	ret
	.size _ZN3foo, . - _ZN3foo
