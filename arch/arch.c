// SPDX-License-Identifier: GPL-2.0
/*
 * The architectures user space knows and the selected one (arch/arch.h):
 * arch_decode.h, arch_sym.h and arch_vectors.h dispatch to its struct
 * arch_ops (arch/arch_ops.h); decoders are capstone in its mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "arch/arch_ops.h"
#include "arch/arch_vectors.h"
#include "util/log.h"

#ifndef PT_NATIVE_ARCH
#error "PT_NATIVE_ARCH (the architecture this build runs on) comes from the Makefile"
#endif

static const struct arch_ops *const arches[] = {
	&arch_ops_x86_64,
	&arch_ops_ppc64le,
	&arch_ops_arm64,
};

#define NR_ARCHES (sizeof(arches) / sizeof(arches[0]))

static const struct arch_ops *find(const char *name)
{
	for (size_t i = 0; name && i < NR_ARCHES; i++)
		if (!strcmp(arches[i]->name, name))
			return arches[i];
	return NULL;
}

static const struct arch_ops *selected;

static const struct arch_ops *cur(void)
{
	if (!selected)
		selected = find(PT_NATIVE_ARCH);
	return selected;
}

const char *arch_native_name(void)
{
	return PT_NATIVE_ARCH;
}

bool arch_known(const char *name)
{
	return find(name) != NULL;
}

const char *arch_known_names(void)
{
	static char names[128];

	if (!names[0])
		for (size_t i = 0, n = 0; i < NR_ARCHES && n < sizeof(names); i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? ", " : "",
					      arches[i]->name);
	return names;
}

int arch_select(const char *name)
{
	const struct arch_ops *a = find(name);

	if (!a)
		return -1;
	selected = a;
	return 0;
}

const char *arch_selected_name(void)
{
	return cur()->name;
}

struct arch_decoder *arch_decoder_new(void)
{
	struct arch_decoder *d = calloc(1, sizeof(*d));

	if (!d) {
		pr_err("out of memory for the instruction decoder");
		return NULL;
	}
	d->ops = cur();
	if (cs_open(d->ops->cs_arch, d->ops->cs_mode, &d->cs) != CS_ERR_OK) {
		pr_err("cannot open the capstone disassembler for %s", d->ops->name);
		free(d);
		return NULL;
	}
	/* Groups and operands are needed to tell calls, jumps and targets apart. */
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		pr_err("out of memory for the instruction decoder");
		cs_close(&d->cs);
		free(d);
		return NULL;
	}
	return d;
}

void arch_decoder_free(struct arch_decoder *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

bool arch_cs_decode_one(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t addr = pc;

	if (n > ARCH_INSN_MAX_LEN)
		n = ARCH_INSN_MAX_LEN;
	return n && cs_disasm_iter(d->cs, &p, &n, &addr, d->insn);
}

int arch_decode(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		struct arch_insn *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	rc = d->ops->decode(d, code, avail, pc, out);
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		out->cls = ARCH_INSN_INVALID;
	}
	return rc;
}

size_t arch_disasm(struct arch_decoder *d, const uint8_t *code, size_t avail, uint64_t pc,
		   char *buf, size_t size)
{
	size_t n;

	if (!size)
		return 0;
	if (!arch_cs_decode_one(d, code, avail, pc)) {
		n = d->ops->disasm_fallback ? d->ops->disasm_fallback(code, avail, buf, size) : 0;
		if (!n)
			snprintf(buf, size, "(bad)");
		return n;
	}
	if (d->insn->op_str[0])
		snprintf(buf, size, "%s %s", d->insn->mnemonic, d->insn->op_str);
	else
		snprintf(buf, size, "%s", d->insn->mnemonic);
	return d->insn->size;
}

bool arch_insn_may_follow(const struct arch_insn *in, uint64_t pc, uint64_t next)
{
	bool direct = in->flags & ARCH_INSN_HAS_TARGET;
	bool falls = in->cls == ARCH_INSN_OTHER || in->cls == ARCH_INSN_COND ||
		     (in->flags & ARCH_INSN_CONDITIONAL);

	if (in->cls == ARCH_INSN_INVALID || in->cls == ARCH_INSN_SYSCALL ||
	    in->cls == ARCH_INSN_INT || in->cls == ARCH_INSN_KRET)
		return false;
	if (falls && next == pc + in->len)
		return true;
	if ((in->flags & ARCH_INSN_REP) && next == pc)
		return true;
	return direct && in->cls != ARCH_INSN_OTHER && next == in->target;
}

bool arch_insn_only_falls_through(const struct arch_insn *in)
{
	return in->cls == ARCH_INSN_OTHER && in->len && !(in->flags & ARCH_INSN_REP);
}

const char *arch_insn_class_name(unsigned cls)
{
	static const char *const names[ARCH_INSN_NR_CLASSES] = {
		[ARCH_INSN_INVALID] = "invalid", [ARCH_INSN_OTHER] = "other",
		[ARCH_INSN_CALL] = "call",	 [ARCH_INSN_RET] = "ret",
		[ARCH_INSN_JUMP] = "jump",	 [ARCH_INSN_COND] = "cond",
		[ARCH_INSN_SYSCALL] = "syscall", [ARCH_INSN_INT] = "int",
		[ARCH_INSN_KRET] = "kret",
	};

	return cls < ARCH_INSN_NR_CLASSES ? names[cls] : "?";
}

size_t arch_sym_plt_entries(const uint8_t *code, size_t size, uint64_t vaddr, size_t entsize,
			    struct arch_plt_entry *out, size_t max)
{
	return cur()->plt_entries(code, size, vaddr, entsize, out, max);
}

bool arch_sym_is_kernel_addr(uint64_t addr)
{
	return cur()->is_kernel_addr(addr);
}

int arch_sym_kernel_alias_rank(const char *name)
{
	return cur()->kernel_alias_rank(name);
}

unsigned arch_sym_local_entry(unsigned char st_other)
{
	return cur()->local_entry ? cur()->local_entry(st_other) : 0;
}

bool arch_sym_stub_name(const char *name, char *buf, size_t size)
{
	return cur()->stub_name && cur()->stub_name(name, buf, size);
}

bool arch_sym_entry_main(const struct arch_elf_image *img, uint64_t *main_addr)
{
	return cur()->entry_main && cur()->entry_main(img, main_addr);
}

const char *arch_interrupt_name(uint64_t vector)
{
	return cur()->interrupt_name(vector);
}

const char *arch_exception_name(uint64_t vector)
{
	return cur()->exception_name(vector);
}

bool arch_exception_is_page_fault(uint64_t vector)
{
	return cur()->exception_is_page_fault(vector);
}

const char *arch_page_fault_describe(uint64_t error, char *buf, size_t size)
{
	return cur()->page_fault_describe(error, buf, size);
}
