//! The seccomp filter a sandboxed command runs under: a small classic BPF
//! program written out here, so every rule is visible in one place with
//! the checks around it a filter needs (the architecture, x32's second
//! numbering, only the 32 bits the kernel reads of an `int` argument).
//!
//! Refused with `EPERM` (`EACCES` for sockets, as a firewall answers):
//! - `socket` in every family — Unix (path and abstract), netlink, vsock,
//!   packet — but, with `network`, IPv4 and IPv6; `socketpair` stays, which
//!   pipelines and test runners use between their own processes;
//! - io_uring, which opens sockets and files around these checks;
//! - `ioctl` TIOCSTI and TIOCLINUX, which push input into a terminal;
//! - the kernel keyrings (`keyctl`, `add_key`, `request_key`), shared by
//!   every process of the user;
//! - with `metadata` (where no read-only mount holds the rest of the
//!   system): owner and extended-attribute changes, which Landlock does not
//!   cover;
//! - on x86-64, every x32 call (a second numbering of the same calls); a
//!   call from another architecture kills the process.

/// Offsets into `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
/// The low 32 bits of argument `i` (little-endian).
const fn arg(i: u32) -> u32 {
    16 + 8 * i
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// What the filter lets through.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// IPv4 and IPv6 sockets.
    pub network: bool,
    /// Refuse chown and xattr changes everywhere (no read-only mounts).
    pub metadata: bool,
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
#[cfg(target_arch = "x86_64")]
const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
const KILL: u32 = libc::SECCOMP_RET_KILL_PROCESS;
const fn errno(e: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (e as u32 & libc::SECCOMP_RET_DATA)
}

/// One system call's rule: refused outright, or refused unless (or when)
/// an argument takes one of some values.
enum Rule {
    Refuse(i32),
    /// Refused with the errno unless argument `arg` is one of `values`.
    AllowOnly(u32, Vec<u32>, i32),
    /// Refused with the errno when argument `arg` is one of `values`.
    RefuseWhen(u32, Vec<u32>, i32),
}

fn rules(r: Rules) -> Vec<(libc::c_long, Rule)> {
    let families = if r.network {
        vec![libc::AF_INET as u32, libc::AF_INET6 as u32]
    } else {
        Vec::new()
    };
    let mut out = vec![
        (libc::SYS_socket, Rule::AllowOnly(0, families, libc::EACCES)),
        (libc::SYS_io_uring_setup, Rule::Refuse(libc::EPERM)),
        (libc::SYS_io_uring_enter, Rule::Refuse(libc::EPERM)),
        (libc::SYS_io_uring_register, Rule::Refuse(libc::EPERM)),
        (
            libc::SYS_ioctl,
            Rule::RefuseWhen(
                1,
                vec![libc::TIOCSTI as u32, libc::TIOCLINUX as u32],
                libc::EPERM,
            ),
        ),
        (libc::SYS_keyctl, Rule::Refuse(libc::EPERM)),
        (libc::SYS_add_key, Rule::Refuse(libc::EPERM)),
        (libc::SYS_request_key, Rule::Refuse(libc::EPERM)),
    ];
    if r.metadata {
        let mut metadata = vec![
            libc::SYS_fchown,
            libc::SYS_fchownat,
            libc::SYS_setxattr,
            libc::SYS_lsetxattr,
            libc::SYS_fsetxattr,
            libc::SYS_removexattr,
            libc::SYS_lremovexattr,
            libc::SYS_fremovexattr,
        ];
        #[cfg(target_arch = "x86_64")]
        metadata.extend([libc::SYS_chown, libc::SYS_lchown]);
        // setxattrat / removexattrat (Linux 6.13), the same numbers on both.
        metadata.extend([463, 466]);
        out.extend(metadata.into_iter().map(|n| (n, Rule::Refuse(libc::EPERM))));
    }
    out
}

/// The filter as a BPF program.
pub(crate) fn program(r: Rules) -> Vec<libc::sock_filter> {
    let mut p = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ, AUDIT_ARCH, 1, 0),
        stmt(RET, KILL),
        stmt(LD_W_ABS, NR),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        p.push(jump(JGE, X32_SYSCALL_BIT, 0, 1));
        p.push(stmt(RET, errno(libc::EPERM)));
    }
    for (nr, rule) in rules(r) {
        // Each body ends in a return, so the accumulator still holds the
        // call's number for the next comparison.
        let body: Vec<libc::sock_filter> = match rule {
            Rule::Refuse(e) => vec![stmt(RET, errno(e))],
            Rule::AllowOnly(i, values, e) => {
                let n = values.len();
                let mut b = vec![stmt(LD_W_ABS, arg(i))];
                for (j, v) in values.iter().enumerate() {
                    // Equal: jump over the rest and the refusal to the allow.
                    b.push(jump(JEQ, *v, (n - j) as u8, 0));
                }
                b.push(stmt(RET, errno(e)));
                b.push(stmt(RET, ALLOW));
                b
            }
            Rule::RefuseWhen(i, values, e) => {
                let n = values.len();
                let mut b = vec![stmt(LD_W_ABS, arg(i))];
                for (j, v) in values.iter().enumerate() {
                    // Equal: jump over the rest and the allow to the refusal.
                    b.push(jump(JEQ, *v, (n - j) as u8, 0));
                }
                b.push(stmt(RET, ALLOW));
                b.push(stmt(RET, errno(e)));
                b
            }
        };
        p.push(jump(JEQ, nr as u32, 0, body.len() as u8));
        p.extend(body);
    }
    p.push(stmt(RET, ALLOW));
    p
}

/// Installs `program` for this thread and what it starts; no-new-privs
/// must be set already.
pub(crate) fn install(program: &[libc::sock_filter]) -> std::io::Result<()> {
    let prog = libc::sock_fprog {
        len: program.len() as u16,
        filter: program.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: the kernel copies the program, which lives across the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        )
    };
    if rc < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the program on one call, as the kernel would.
    fn verdict(p: &[libc::sock_filter], arch: u32, nr: u32, args: [u64; 6]) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&nr.to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        for (i, a) in args.iter().enumerate() {
            data[16 + 8 * i..24 + 8 * i].copy_from_slice(&a.to_le_bytes());
        }
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let f = p[pc];
            pc += 1;
            match f.code {
                LD_W_ABS => {
                    let k = f.k as usize;
                    acc = u32::from_le_bytes(data[k..k + 4].try_into().unwrap());
                }
                JEQ => pc += if acc == f.k { f.jt } else { f.jf } as usize,
                #[cfg(target_arch = "x86_64")]
                JGE => pc += if acc >= f.k { f.jt } else { f.jf } as usize,
                RET => return f.k,
                c => panic!("unexpected instruction {c:#x}"),
            }
        }
    }

    #[test]
    fn sockets_are_refused_but_for_ip_with_network_and_socketpair_stays() {
        let off = program(Rules {
            network: false,
            metadata: false,
        });
        let on = program(Rules {
            network: true,
            metadata: false,
        });
        let socket = |p: &[libc::sock_filter], family: i32| {
            verdict(
                p,
                AUDIT_ARCH,
                libc::SYS_socket as u32,
                [family as u64, 1, 0, 0, 0, 0],
            )
        };
        for family in [
            libc::AF_UNIX,
            libc::AF_NETLINK,
            libc::AF_VSOCK,
            libc::AF_PACKET,
        ] {
            assert_eq!(socket(&off, family), errno(libc::EACCES), "{family}");
            assert_eq!(socket(&on, family), errno(libc::EACCES), "{family}");
        }
        assert_eq!(socket(&off, libc::AF_INET), errno(libc::EACCES));
        assert_eq!(socket(&on, libc::AF_INET), ALLOW);
        assert_eq!(socket(&on, libc::AF_INET6), ALLOW);
        // Only the 32 bits the kernel reads of an int count.
        let high = (1u64 << 32) | libc::AF_UNIX as u64;
        assert_eq!(
            verdict(
                &on,
                AUDIT_ARCH,
                libc::SYS_socket as u32,
                [high, 1, 0, 0, 0, 0]
            ),
            errno(libc::EACCES)
        );
        let pair = libc::SYS_socketpair as u32;
        assert_eq!(verdict(&off, AUDIT_ARCH, pair, [1, 1, 0, 0, 0, 0]), ALLOW);
    }

    #[test]
    // The ioctl numbers' type differs between targets.
    #[allow(clippy::unnecessary_cast)]
    fn terminal_input_keyrings_io_uring_x32_and_other_arches_are_refused() {
        let p = program(Rules {
            network: false,
            metadata: true,
        });
        let ioctl =
            |cmd: u64| verdict(&p, AUDIT_ARCH, libc::SYS_ioctl as u32, [0, cmd, 0, 0, 0, 0]);
        assert_eq!(ioctl(libc::TIOCSTI as u64), errno(libc::EPERM));
        assert_eq!(ioctl(libc::TIOCLINUX as u64), errno(libc::EPERM));
        assert_eq!(
            ioctl((1u64 << 32) | libc::TIOCSTI as u64),
            errno(libc::EPERM)
        );
        assert_eq!(ioctl(libc::TIOCGWINSZ as u64), ALLOW);
        for nr in [
            libc::SYS_io_uring_setup,
            libc::SYS_keyctl,
            libc::SYS_fchownat,
            libc::SYS_fsetxattr,
        ] {
            assert_eq!(
                verdict(&p, AUDIT_ARCH, nr as u32, [0; 6]),
                errno(libc::EPERM),
                "{nr}"
            );
        }
        assert_eq!(
            verdict(&p, AUDIT_ARCH, libc::SYS_read as u32, [0; 6]),
            ALLOW
        );
        assert_eq!(
            verdict(&p, 0x4000_0003, libc::SYS_read as u32, [0; 6]),
            KILL
        );
        #[cfg(target_arch = "x86_64")]
        assert_eq!(
            verdict(
                &p,
                AUDIT_ARCH,
                X32_SYSCALL_BIT | libc::SYS_socket as u32,
                [1, 1, 0, 0, 0, 0]
            ),
            errno(libc::EPERM)
        );
        let without = program(Rules {
            network: false,
            metadata: false,
        });
        assert_eq!(
            verdict(&without, AUDIT_ARCH, libc::SYS_fchownat as u32, [0; 6]),
            ALLOW
        );
    }
}
