// SPDX-License-Identifier: GPL-2.0
/* Demangling C++ symbol names through libstdc++'s abi::__cxa_demangle. */
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"

/*
 * abi::__cxa_demangle (<cxxabi.h>) has C linkage, so C can call it by its
 * plain name; libstdc++ provides it (linked with -lstdc++).  status 0 is
 * success; -1 out of memory, -2 not a valid mangled name, -3 bad argument.
 */
extern char *__cxa_demangle(const char *mangled_name, char *output_buffer, size_t *length,
			    int *status);

#define PLT_SUFFIX "@plt"

/*
 * Only "_Z" names are mangled C++ names: __cxa_demangle also reads type
 * encodings, so a C function called "i" or "f" would become "int" or
 * "float".
 */
static bool is_mangled(const char *name)
{
	return name[0] == '_' && name[1] == 'Z';
}

char *demangle(const char *name)
{
	size_t len = strlen(name), slen = strlen(PLT_SUFFIX);
	char *base, *out, *with_suffix;
	int status;

	if (!is_mangled(name))
		return NULL;
	if (len <= slen || strcmp(name + len - slen, PLT_SUFFIX)) {
		out = __cxa_demangle(name, NULL, NULL, &status);
		if (status) {
			free(out);
			return NULL;
		}
		return out;
	}
	/* "target@plt": the '@' is not part of any mangling, demangle the target. */
	base = strndup(name, len - slen);
	if (!base)
		return NULL;
	out = __cxa_demangle(base, NULL, NULL, &status);
	free(base);
	if (status || !out) {
		free(out);
		return NULL;
	}
	with_suffix = malloc(strlen(out) + slen + 1);
	if (with_suffix) {
		strcpy(with_suffix, out);
		strcat(with_suffix, PLT_SUFFIX);
	}
	free(out);
	return with_suffix;
}

/* Is the demangled form of mangled equal to plain? */
static bool demangles_to(const char *mangled, const char *plain)
{
	char *d = demangle(mangled);
	bool eq = d && !strcmp(d, plain);

	free(d);
	return eq;
}

bool demangle_name_matches(const char *name, const char *pattern)
{
	if (!strcmp(name, pattern))
		return true;
	/* Only one side can be the raw form of the other. */
	if (is_mangled(pattern) && !is_mangled(name))
		return demangles_to(pattern, name);
	if (is_mangled(name) && !is_mangled(pattern))
		return demangles_to(name, pattern);
	return false;
}
