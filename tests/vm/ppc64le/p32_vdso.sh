# SPDX-License-Identifier: GPL-2.0
# POWER vDSO calls under the ptrace backend: vm_vdso makes 200
# clock_gettime calls (a bctrl into the vDSO, LR after it), one of them
# from a signal handler, and another handler calls nothing.  The kernel
# enters both handlers through the vDSO's signal trampoline and they
# return into it: that code is no call and stays stepped (bctrl, addi, li,
# sc: 4 instructions a signal), while every clock_gettime runs natively to
# its LR.  Two recordings count the same, 200 native runs returned, the
# handlers' frames hold (post arc --check; the host's post checks the
# exported trace too, p32_vdso.host.sh), and the program prints what it
# prints untraced.
# case-timeout: 600
. /pt/cases/lib.inc
P=$PT_PROGS/vm_vdso
info_field() {	# info_field TRACE KEY: the value of "KEY:" in post info
	post -i "$1" info | sed -n "s/^$2: *//p"
}
native_row() {	# native_row TRACE: "RUNS COUNT" of the [vdso] (native) row of post counts
	post -i "$1" counts | awk '$3 == "[vdso]" && $NF == "(native)" { print $1, $2; exit }'
}
vdso_steps() {	# vdso_steps TRACE: steps recorded in the [vdso] module
	post -i "$1" counts --by module | awk '!/^#/ && $NF == "[vdso]" { n = $1 } END { print n + 0 }'
}
callers() {	# callers TRACE FUNC: "CALLS NAME" of FUNC's callers in post arc, one a line
	post -i "$1" arc | awk -v f="$2" '
		/^#/ { if (hit) exit; n = 0; next }
		$(NF - 1) == "<" { c[n++] = $1 " " $NF; next }
		$(NF - 1) == f && $NF ~ /^\[/ { hit = 1; for (i = 0; i < n; i++) print c[i] }' | sort
}
"$P" >plain.out 2>&1
check_eq p-vdso-plain "exit status untraced" 0 $?
for i in 1 2; do
	pitrace record --backend ptrace -o "r$i" -- "$P" >"out$i" 2>"err$i"
	check_eq "p-vdso-record$i" "exit status of recording $i" 0 $?
	check_eq "p-vdso-output$i" "program output of recording $i (the untraced run's)" \
		"$(cat plain.out)" "$(cat "out$i")"
	grep -q 'cannot run natively' "err$i" && echo "FAIL p-vdso-native$i: $(cat "err$i")"
done
steps=$(info_field r1 steps)
echo "INFO vm_vdso: $steps steps, untraced output: $(cat plain.out)"
check_eq p-vdso-same-steps "steps of the second recording (the first's)" "$steps" \
	"$(info_field r2 steps)"
check_eq p-vdso-native-info "post info's native line" \
	"200 vDSO runs untraced (200 returned, 0 stopped by a signal or event); instructions: 0 known, 200 unknown" \
	"$(info_field r1 native)"
check_eq p-vdso-native-row "post counts' native row (runs, count)" "200 unknown" "$(native_row r1)"
check_eq p-vdso-trampoline "steps in the vDSO (its signal trampoline's, twice)" 8 "$(vdso_steps r1)"
post -i r1 arc --check >check.out 2>&1
check_eq p-vdso-arc-check "post arc --check's exit status" 0 $?
check_eq p-vdso-unmatched "returns without their call (arc --check)" 0 \
	"$(head -n 1 check.out | tr ' ' '\n' | sed -n '/^unmatched$/{n;p}')"
check_eq p-vdso-callers "read_clock's callers" "$(printf '1 on_usr2\n199 main')" \
	"$(callers r1 read_clock)"
for h in on_usr1 on_usr2; do
	check_eq "p-vdso-$h" "$h's calls" 1 \
		"$(post -i r1 profile | awk -v f="$h" '$(NF - 1) == f { print $1; exit }')"
done
post -i r1 counts --by symbol >r1.counts
post -i r1 arc >r1.arc
tar czf p32.tgz r1 r1.counts r1.arc check.out
export_file p32.tgz p32.tgz
