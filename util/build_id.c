// SPDX-License-Identifier: GPL-2.0
/* The build-id of an ELF file by its path, for the symbol resolver and the recorder. */
#include <fcntl.h>
#include <unistd.h>

#include "util/build_id.h"
#include "util/sym_elf.h"

size_t sym_file_build_id(const char *path, uint8_t *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		len = sym_elf_build_id(elf, buf, size);
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}
