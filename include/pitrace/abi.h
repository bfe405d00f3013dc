/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The driver ABI: /dev/pitrace ioctls, the per-CPU ring buffer layout shared
 * through mmap, and the structures both sides exchange.  docs/driver-abi.md
 * is the prose description.  Rules: every struct is packed with reserved
 * space; a new field takes reserved space and bumps MINOR; an incompatible
 * change bumps MAJOR (user space refuses a different MAJOR); ioctl numbers
 * are never reused once retired.
 */
#ifndef PITRACE_ABI_H
#define PITRACE_ABI_H

/* The uapi types, as every kernel ABI header: user code may include other
 * <linux/...> headers (perf_event.h) alongside this one. */
#include <linux/ioctl.h>
#include <linux/types.h>

#define PITRACE_ABI_MAJOR 1
#define PITRACE_ABI_MINOR 5

#define PITRACE_DEVICE "/dev/pitrace"
#define PITRACE_IOC_MAGIC 0xB7

struct pitrace_version {
	__u32 major;
	__u32 minor;
	__u32 reserved[6];
} __attribute__((packed));

/* How steps are taken (pitrace_config.mode). */
enum pitrace_mode {
	PITRACE_MODE_STEP = 0,	  /* single-step trap: one record per instruction */
	PITRACE_MODE_BLOCK = 1,	  /* branch trap: one record per taken branch */
	PITRACE_MODE_COUNT = 2,	  /* single-step, per-CPU counters only */
};

/* What happens when a CPU's buffer is full (pitrace_config.policy). */
enum pitrace_policy {
	PITRACE_POLICY_CONTINUOUS = 0, /* the collector drains while tracing; loss counted */
	PITRACE_POLICY_WRAP = 1,       /* flight recorder: newest data overwrites oldest */
	PITRACE_POLICY_STOP = 2,       /* stop recording when full; loss counted */
};

/* pitrace_config.flags */
#define PITRACE_CFG_START_ON (1u << 0)	/* tracing on from the claim */
#define PITRACE_CFG_KERNEL (1u << 1)	/* also step kernel code (syscalls) */

struct pitrace_config {
	__u32 mode;		  /* enum pitrace_mode */
	__u32 policy;		  /* enum pitrace_policy */
	__u32 flags;		  /* PITRACE_CFG_* */
	__u32 subbuf_size;	  /* bytes, power of two, >= PAGE_SIZE; 0: default */
	__u64 buffer_size;	  /* bytes per CPU, multiple of subbuf_size; 0: default */
	__u64 kernel_step_limit;  /* per syscall, with PITRACE_CFG_KERNEL; 0: default */
	__u32 reserved[8];
} __attribute__((packed));

/* Process selection (pitrace_select.kind). */
enum pitrace_select_kind {
	PITRACE_SEL_NONE = 0,	  /* nothing selected */
	PITRACE_SEL_ALL = 1,	  /* every user process */
	PITRACE_SEL_PIDS = 2,	  /* pids[0..nr_pids) */
	PITRACE_SEL_RANGE = 3,	  /* pid_lo <= pid <= pid_hi */
	PITRACE_SEL_MIN = 4,	  /* pid >= pid_lo */
	PITRACE_SEL_COMM = 5,	  /* comm equals comm[] */
	PITRACE_SEL_TREE = 6,	  /* pids[0] and all its descendants, present and future */
};

#define PITRACE_MAX_PIDS 64
#define PITRACE_COMM_LEN 16

struct pitrace_select {
	__u32 kind;		  /* enum pitrace_select_kind */
	__u32 nr_pids;
	__u32 pid_lo, pid_hi;
	__u32 pids[PITRACE_MAX_PIDS];
	char comm[PITRACE_COMM_LEN];
	__u32 reserved[8];
} __attribute__((packed));

/* Per-CPU state (PITRACE_IOC_CPU_STATUS: cpu in, the rest out). */
struct pitrace_cpu_status {
	__u32 cpu;
	__u32 online;
	__u64 steps;		  /* steps taken on this CPU (all modes) */
	__u64 lost;		  /* steps that could not be recorded */
	__u64 bytes_written;	  /* record bytes committed */
	__u64 bytes_read;	  /* record bytes the collector consumed */
	__u64 buffer_size;
	__u64 map_offset;	  /* mmap offset of this CPU's ring (1.1) */
	__u64 map_size;		  /* bytes to map: control area + data (1.1) */
	__u32 reserved[4];
} __attribute__((packed));

struct pitrace_status {
	__u32 claimed;		  /* a session exists */
	__u32 owner_pid;	  /* tgid of the claiming process */
	__u32 on;		  /* tracing enabled */
	__u32 nr_cpus;		  /* buffers: one per possible CPU id < nr_cpus */
	struct pitrace_config config;
	struct pitrace_select select;
	__u64 steps;		  /* sum over CPUs */
	__u64 lost;
	__u64 traced_tasks;	  /* tasks currently armed */
	__u32 flags;		  /* PITRACE_STATUS_* (1.1) */
	__u32 conflict_tid;	  /* last SELECT refused because of this task (1.1) */
	__u32 conflict_tracer;	  /* tgid single-stepping conflict_tid by ptrace; 0 unknown (1.3) */
	__u32 step_users;	  /* PITRACE_STEP_USER_*: set now, also without a session (1.3) */
	__u32 reserved[4];
} __attribute__((packed));

/* pitrace_status.flags */
#define PITRACE_STATUS_BLOCK_DEGRADED (1u << 0) /* DEBUGCTL.BTF not honoured: block = step */
#define PITRACE_STATUS_STOPPED_FULL (1u << 1)	 /* stop policy: some CPU's buffer filled */

/*
 * pitrace_status.step_users: other in-kernel users of the single-step trap
 * that are active now.  CLAIM fails with EBUSY while any is set (1.3).
 */
#define PITRACE_STEP_USER_MMIOTRACE (1u << 0) /* the mmiotrace tracer is on (x86 kmmio) */
#define PITRACE_STEP_USER_KGDB (1u << 1)      /* a debugger is connected to kgdb */
/* 1.5: a kernel debugger holds the step hook (ppc64 __debugger_sstep: xmon, kgdb) */
#define PITRACE_STEP_USER_DEBUGGER (1u << 2)

#define PITRACE_IOC_VERSION _IOR(PITRACE_IOC_MAGIC, 0x00, struct pitrace_version)
/*
 * Claim the driver for this open file; EBUSY if another file holds it
 * (STATUS owner_pid) or another single-step user is active (STATUS step_users).
 */
#define PITRACE_IOC_CLAIM _IOW(PITRACE_IOC_MAGIC, 0x01, struct pitrace_config)
/* End the session (also when the claiming file is closed): untrace every task. */
#define PITRACE_IOC_RELEASE _IO(PITRACE_IOC_MAGIC, 0x02)
/* Set the process selection; allowed while tracing. */
#define PITRACE_IOC_SELECT _IOW(PITRACE_IOC_MAGIC, 0x03, struct pitrace_select)
/* Tracing on/off; from any opener (libpitrace), while a session exists. */
#define PITRACE_IOC_ON _IO(PITRACE_IOC_MAGIC, 0x04)
#define PITRACE_IOC_OFF _IO(PITRACE_IOC_MAGIC, 0x05)
#define PITRACE_IOC_STATUS _IOR(PITRACE_IOC_MAGIC, 0x06, struct pitrace_status)
#define PITRACE_IOC_CPU_STATUS _IOWR(PITRACE_IOC_MAGIC, 0x07, struct pitrace_cpu_status)
/*
 * Close the current sub-buffer of every CPU (padding it) so the collector
 * can read everything committed so far; used at stop, and about once a
 * second by a continuous session's collector (a reader following the
 * trace learns up to which time it is whole: docs/trace-format.md).
 */
#define PITRACE_IOC_FLUSH _IO(PITRACE_IOC_MAGIC, 0x08)

/*
 * Ring buffers.  mmap(offset = cpu_status.map_offset, length =
 * cpu_status.map_size) maps CPU cpu's ring: a control area (struct
 * pitrace_ring_ctl, then one struct pitrace_subbuf per sub-buffer, rounded up
 * to pages) followed at ctl.data_offset by the data area, a ring of
 * nr_subbufs sub-buffers of subbuf_size bytes.  The driver fills sub-buffers
 * with step stream records exactly as in include/pitrace/format.h (so the
 * collector copies them to steps.cN unchanged); each sub-buffer begins with
 * a SWITCH record (deltas restart there, which makes every sub-buffer
 * self-contained for wrap mode and loss), and records never straddle two
 * sub-buffers.  Sub-buffer n lives at data + (n % nr_subbufs) * subbuf_size;
 * it is complete when sb[n % nr_subbufs].seq == n + 1, and then holds
 * sb[...].used bytes (the rest is unused padding).  The collector reads
 * complete sub-buffers in order and then stores consumed = n + 1; in
 * continuous and stop modes the driver never overwrites a sub-buffer that
 * is not consumed.  FLUSH completes every CPU's partial sub-buffer.
 */
struct pitrace_ring_ctl {
	__u64 produced;		  /* kernel: sub-buffers completed (monotonic) */
	__u64 consumed;		  /* collector: sub-buffers consumed (monotonic) */
	__u32 subbuf_size;
	__u32 nr_subbufs;
	__u64 lost;		  /* kernel: steps not recorded on this CPU */
	__u64 lost_marked;	  /* kernel: of those, covered by LOST records in the data */
	__u32 data_offset;	  /* bytes from the start of the mapping to sub-buffer 0 */
	__u32 reserved[5];
} __attribute__((packed));

struct pitrace_subbuf {
	__u64 seq;		  /* n + 1 once sub-buffer n (in this slot) is complete */
	__u32 used;		  /* bytes of records in it */
	__u32 reserved;
} __attribute__((packed));

#endif /* PITRACE_ABI_H */
