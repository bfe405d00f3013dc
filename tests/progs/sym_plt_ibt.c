// SPDX-License-Identifier: GPL-2.0
/* sym_plt_vdso with IBT PLT entries (.plt.sec), whatever the compiler's default. */
// build: -fcf-protection=full -Wl,-z,ibtplt
#include "sym_plt_vdso.c"
