/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which architecture's rules user space applies.  post reads traces of
 * every architecture it knows (each arch/<arch>/ is linked in: decoder,
 * symbol rules, vector names, behind arch_decode.h, arch_sym.h and
 * arch_vectors.h); opening a trace selects the one its ARCH attribute
 * names (util/trace_reader.c).  Until then the selection is the native
 * architecture, the one this build runs on: what the recorder writes.
 * The ptrace backend's arch (arch_ptrace.h) is native only.
 */
#ifndef PT_ARCH_H
#define PT_ARCH_H

#include <stdbool.h>

/* The native architecture's name ("x86_64", "ppc64le", "aarch64": uname -m). */
const char *arch_native_name(void);

/* True when name is an architecture user space knows. */
bool arch_known(const char *name);

/* The known architectures, comma separated, for messages. */
const char *arch_known_names(void);

/*
 * Apply name's rules from now on (decoders made later, symbol rules,
 * vector names).  Returns 0, or -1 when the architecture is unknown (the
 * selection is unchanged).
 */
int arch_select(const char *name);

/* The selected architecture's name. */
const char *arch_selected_name(void);

#endif /* PT_ARCH_H */
