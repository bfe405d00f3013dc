/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ names as people read them ("foo::bar(int)" for "_ZN3foo3barEi"), by
 * the C++ runtime's own demangler (libstdc++'s abi::__cxa_demangle, the one
 * elfutils' tools, perf and valgrind use); docs/symbols.md says which names
 * change.
 */
#ifndef PT_DEMANGLE_H
#define PT_DEMANGLE_H

#include <stdbool.h>

/*
 * The demangled form of a symbol name, malloc'ed; NULL when name is not a
 * mangled C++ name ("_Z..."), does not demangle (broken or unknown
 * mangling) or memory ran out: callers then keep name as it is.  A PLT
 * entry's "@plt" suffix is kept ("operator new(unsigned long)@plt").
 */
char *demangle(const char *name);

/*
 * Does a function shown as name match what the user typed?  Either may be
 * the raw (mangled) or the demangled form: "_ZL7throweri" and
 * "thrower(int)" both match either.
 */
bool demangle_name_matches(const char *name, const char *pattern);

#endif /* PT_DEMANGLE_H */
