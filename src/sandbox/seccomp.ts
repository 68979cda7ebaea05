/**
 * The seccomp filter of bwrap sandboxes: a classic-BPF program (the bytes `bwrap --seccomp FD`
 * loads) that refuses, with EPERM, the system calls sandboxed code could use to reach into other
 * processes of the sandbox or the kernel's less-guarded corners:
 *
 *   ptrace, process_vm_readv/writev,  read or rewrite the init and forge results (the init is not
 *   pidfd_getfd                       dumpable either: bwrap.ts)
 *   kcmp                              compare other processes' descriptors
 *   perf_event_open, bpf, userfaultfd kernel attack surface
 *   keyctl, add_key, request_key      the kernel keyring (not namespaced)
 *   open_by_handle_at                 open files by handle, around the mount tree
 *
 * Calls of another ABI than the host's (i386 and x32 on x86_64) are refused wholesale, since the
 * numbers above would not match them. Everything else is allowed: the namespaces, the missing
 * capabilities and the read-only mounts do the rest.
 */

const ERRNO_EPERM = 0x0005_0000 | 1; // SECCOMP_RET_ERRNO | EPERM
const ALLOW = 0x7fff_0000; // SECCOMP_RET_ALLOW

/** Per architecture: AUDIT_ARCH_* and the numbers of the refused calls. */
const ARCHES: Record<string, { audit: number; x32?: true; refused: number[] }> = {
  // arch/x86/entry/syscalls/syscall_64.tbl
  x64: {
    audit: 0xc000003e,
    x32: true,
    refused: [101, 310, 311, 312, 298, 321, 323, 250, 248, 249, 304],
  },
  // include/uapi/asm-generic/unistd.h
  arm64: {
    audit: 0xc00000b7,
    refused: [117, 270, 271, 438, 272, 241, 280, 282, 219, 217, 218, 265],
  },
};

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

/** The filter for this machine's architecture, or null where it has none (the sandbox then runs without). */
export function seccompFilter(arch: string = process.arch): Buffer | null {
  const a = ARCHES[arch];
  if (!a) return null;
  type Insn = [code: number, jt: number, jf: number, k: number];
  // [arch ok?][EPERM][load nr][checks…][ALLOW][EPERM]: check c of C jumps C − c forward to EPERM.
  const checks: Insn[] = a.refused.map((nr) => [JEQ_K, 0, 0, nr]);
  if (a.x32) checks.unshift([JGE_K, 0, 0, 0x4000_0000]);
  checks.forEach((insn, c) => {
    insn[1] = checks.length - c;
  });
  const prog: Insn[] = [
    [LD_W_ABS, 0, 0, 4], // seccomp_data.arch
    [JEQ_K, 1, 0, a.audit],
    [RET_K, 0, 0, ERRNO_EPERM],
    [LD_W_ABS, 0, 0, 0], // seccomp_data.nr
    ...checks,
    [RET_K, 0, 0, ALLOW],
    [RET_K, 0, 0, ERRNO_EPERM],
  ];
  const bytes = Buffer.alloc(prog.length * 8);
  prog.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}
