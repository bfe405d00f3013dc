# SPDX-License-Identifier: GPL-2.0
# case-timeout: 600
# The driver under stress, through pitrace's own sessions (each bounded in
# count; the harness then checks the module unloads and the kernel log is
# clean), part 1, traced programs: 200 threads in one process; a fork/exec
# storm under --tree and under --all; 1,000 regions mapped and unmapped; a
# program clearing the trap flag with popf; vfork and PTRACE_TRACEME
# programs; a signal storm.  Each must behave as untraced (output, exit
# status) and every trace must read.
. /pt/cases/stress.inc
# 200 threads in one traced process.
session threads --comm vm_stress && {
	out=$("$S" threads 200)
	rc=$?
	if finish threads; then
		n=$(threads_in threads)
		[ $rc = 0 ] && [ "$out" = "threads 200 sum 399800000" ] && [ "$n" -ge 201 ] &&
			pass stress-200-threads || fail stress-200-threads "exit $rc, said '$out', $n threads traced"
	fi
}

# A fork/exec storm: 300 processes under --tree, 100 under --all.
mkfifo go
sh -c "read x <go; exec $S forks 300" >tree.out &
root=$!
session tree --tree "$root" && {
	echo x >go
	wait $root
	rc=$?
	if finish tree; then
		procs=$(post -i tree counts --by process | grep -c '^ *[0-9]')
		[ $rc = 0 ] && [ "$(cat tree.out)" = "forks 300" ] && [ "$procs" -ge 301 ] &&
			pass stress-fork-storm-tree || fail stress-fork-storm-tree "exit $rc, said '$(cat tree.out)', $procs processes traced"
	fi
}
session all --all && {
	out=$("$S" forks 100)
	rc=$?
	if finish all; then
		[ $rc = 0 ] && [ "$out" = "forks 100" ] && pass stress-fork-storm-all ||
			fail stress-fork-storm-all "exit $rc, said '$out'"
	fi
}

# Mappings, popf, vfork, a tracer of its own: as untraced.
for t in "maps 1000:maps 1000" "popf 1000:popf 1000 tf 0"; do
	args=${t%%:*} want=${t#*:} name=stress-$(echo "${t%% *}")
	want_native=$("$S" $args)
	session "${t%% *}" --comm vm_stress && {
		out=$("$S" $args)
		rc=$?
		finish "${t%% *}" &&
			{ [ $rc = 0 ] && [ "$out" = "$want_native" ] && pass "$name" ||
				fail "$name" "exit $rc, said '$out' (untraced: '$want_native', expected '$want')"; }
	}
done
for prog in pt_fid_vfork pt_fid_ptrace; do
	[ -x "$P/$prog" ] || { echo "SKIP stress-$prog: not built"; continue; }
	native=$("$P/$prog" 2>&1)
	native_rc=$?
	session "$prog" --comm "$prog" && {
		out=$("$P/$prog" 2>&1)
		rc=$?
		finish "$prog" && { [ $rc = $native_rc ] && [ "$out" = "$native" ] && pass "stress-$prog" ||
			fail "stress-$prog" "exit $rc (untraced $native_rc), said '$out' (untraced '$native')"; }
	}
done

# A signal storm at a traced program.
session signals --comm vm_stress && {
	"$S" signals 4 >sig.out &
	pid=$!
	until grep -q ready sig.out 2>/dev/null; do sleep 0.1; done
	while kill -USR1 $pid 2>/dev/null; do :; done
	wait $pid
	rc=$?
	if finish signals; then
		got=$(sed -n 's/^signals //p' sig.out)
		[ $rc = 0 ] && [ "${got:-0}" -gt 0 ] && pass stress-signal-storm ||
			fail stress-signal-storm "exit $rc, said '$(cat sig.out)'"
	fi
}

exit 0
