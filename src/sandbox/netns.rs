//! A session's own loopback: a network namespace with `lo` up and nothing
//! else, which every sandboxed command of the session joins — a command
//! serves on 127.0.0.1 and the next one reaches it, while the host's
//! loopback services, its network and the other sessions' servers stay
//! out of reach (a namespace has its own `lo`).
//!
//! The namespace is made by a keeper: hermes' own binary run as `hermes
//! __hermes_netns`, a fresh single-threaded process that enters a new
//! user and network namespace, brings `lo` up, and hands hermes the two
//! namespaces as descriptors over a socket pair on its stdin. Each
//! command's helper gets them as descriptors 3 and 4 and joins them
//! before it builds the rest of its sandbox ([`super::helper`]). hermes
//! itself cannot enter the namespace (it is multi-threaded, and holds no
//! capability there), so the keeper stays and does what must happen
//! inside: it connects to a port for hermes — to tell that a server is
//! up, or to forward a connection from the host — and passes the socket
//! back; it makes the listening socket the shell's proxy is served on
//! (hermes accepts on it from outside); and it lists the ports listened on. It ends when hermes closes
//! the pair or dies (`PR_SET_PDEATHSIG`); the namespace with the last
//! process in it.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::time::Duration;

/// The argument that makes a hermes process the keeper.
pub(crate) const KEEPER_ARG: &str = "__hermes_netns";

/// The descriptors a command's helper finds the namespaces at.
pub(crate) const USER_FD: RawFd = 3;
pub(crate) const NET_FD: RawFd = 4;

/// How long hermes waits for the keeper's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// A session's loopback: the keeper, hermes' end of the pair, and the
/// two namespaces.
pub(crate) struct SessionNet {
    /// hermes' end of the pair; one question and answer at a time.
    pair: Mutex<OwnedFd>,
    user: OwnedFd,
    net: OwnedFd,
    /// Killed when dropped (it also ends when the pair closes).
    _keeper: std::process::Child,
}

impl std::fmt::Debug for SessionNet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionNet")
    }
}

impl PartialEq for SessionNet {
    fn eq(&self, other: &SessionNet) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Drop for SessionNet {
    fn drop(&mut self) {
        // The pair closes with this value: the keeper's read ends and it
        // exits; killed as well, it is reaped here rather than left a zombie.
        let _ = self._keeper.kill();
        let _ = self._keeper.wait();
    }
}

/// A port listened on in the namespace: its number and its socket's inode
/// (which tells whose it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Listening {
    pub port: u16,
    pub inode: u64,
}

impl SessionNet {
    /// Starts a keeper from `exe` (hermes' binary) and takes the
    /// namespaces from it. `Err` says why there is no loopback.
    pub(crate) fn start(exe: &std::path::Path) -> Result<SessionNet, String> {
        let (ours, theirs) = seqpacket_pair().map_err(|e| format!("socketpair: {e}"))?;
        let mut cmd = std::process::Command::new(exe);
        cmd.arg(KEEPER_ARG)
            .env_clear()
            .stdin(std::process::Stdio::from(theirs))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: between fork and exec only prctl, getppid and raise,
        // which are async-signal-safe.
        unsafe {
            // SAFETY: getpid has no preconditions.
            let hermes = libc::getpid();
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                if libc::getppid() != hermes {
                    libc::raise(libc::SIGKILL);
                }
                Ok(())
            });
        }
        let keeper = cmd
            .spawn()
            .map_err(|e| format!("cannot start the keeper: {e}"))?;
        set_timeout(&ours, ANSWER_WITHIN);
        let (msg, fds) = receive(&ours).map_err(|e| format!("the keeper said nothing: {e}"))?;
        match (msg.first(), fds.as_slice()) {
            (Some(b'R'), [_, _]) => {
                let mut fds = fds.into_iter();
                let (Some(user), Some(net)) = (fds.next(), fds.next()) else {
                    return Err("the keeper sent no namespaces".into());
                };
                Ok(SessionNet {
                    pair: Mutex::new(ours),
                    user,
                    net,
                    _keeper: keeper,
                })
            }
            _ => Err(String::from_utf8_lossy(msg.get(1..).unwrap_or_default()).into_owned()),
        }
    }

    /// The user namespace's and the network namespace's descriptors.
    pub(crate) fn fds(&self) -> (RawFd, RawFd) {
        (self.user.as_raw_fd(), self.net.as_raw_fd())
    }

    /// A connection to `port` on the namespace's loopback (IPv4, then
    /// IPv6), made by the keeper. Blocking: call off the runtime.
    pub(crate) fn connect(&self, port: u16) -> std::io::Result<std::net::TcpStream> {
        let (msg, fds) = self.ask(&[b'C', (port >> 8) as u8, port as u8])?;
        match (msg.first(), fds.into_iter().next()) {
            (Some(b'O'), Some(fd)) => Ok(std::net::TcpStream::from(fd)),
            _ => {
                let errno = msg
                    .get(1..5)
                    .and_then(|b| <[u8; 4]>::try_from(b).ok())
                    .map_or(libc::ECONNREFUSED, i32::from_be_bytes);
                Err(std::io::Error::from_raw_os_error(errno))
            }
        }
    }

    /// A socket listening on a port of the namespace's loopback, made by
    /// the keeper and served by hermes: the shell's proxy. Blocking.
    pub(crate) fn listener(&self) -> std::io::Result<std::net::TcpListener> {
        let (msg, fds) = self.ask(b"P")?;
        match (msg.first(), fds.into_iter().next()) {
            (Some(b'O'), Some(fd)) => Ok(std::net::TcpListener::from(fd)),
            _ => Err(std::io::Error::other(
                String::from_utf8_lossy(msg.get(1..).unwrap_or_default()).into_owned(),
            )),
        }
    }

    /// The ports listened on in the namespace. Blocking.
    pub(crate) fn listening(&self) -> std::io::Result<Vec<Listening>> {
        let (msg, _) = self.ask(b"L")?;
        Ok(parse_listening(&String::from_utf8_lossy(
            msg.get(1..).unwrap_or_default(),
        )))
    }

    fn ask(&self, question: &[u8]) -> std::io::Result<(Vec<u8>, Vec<OwnedFd>)> {
        let pair = self
            .pair
            .lock()
            .map_err(|_| std::io::Error::other("the keeper's pair is poisoned"))?;
        send(&*pair, question, &[])?;
        receive(&*pair)
    }
}

/// `/proc/net/tcp` and `tcp6` lines of listening sockets (state 0A) on
/// loopback or every address, as (port, inode), each port once.
fn parse_listening(text: &str) -> Vec<Listening> {
    let mut out: Vec<Listening> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.get(3) != Some(&"0A") {
                return None;
            }
            let port = u16::from_str_radix(f.get(1)?.rsplit_once(':')?.1, 16).ok()?;
            let inode = f.get(9)?.parse().ok()?;
            Some(Listening { port, inode })
        })
        .collect();
    out.sort();
    out.dedup_by_key(|l| l.port);
    out
}

fn seqpacket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two descriptors this function then owns.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors owned by nothing else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn set_timeout(fd: &OwnedFd, t: Duration) {
    let tv = libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    };
    for opt in [libc::SO_RCVTIMEO, libc::SO_SNDTIMEO] {
        // SAFETY: a struct that lives across the call, and its size.
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                (&tv as *const libc::timeval).cast(),
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            );
        }
    }
}

/// Room for two descriptors in a message's control data.
const CONTROL: usize = 64;

/// One message, with `fds` passed along.
fn send(fd: &impl AsRawFd, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    let mut control = [0u8; CONTROL];
    // SAFETY: a zeroed msghdr pointing at buffers that live across the
    // call; the CMSG macros stay within `control`.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        if !fds.is_empty() {
            let size = std::mem::size_of_val(fds) as u32;
            msg.msg_control = control.as_mut_ptr().cast();
            msg.msg_controllen = libc::CMSG_SPACE(size) as _;
            let c = libc::CMSG_FIRSTHDR(&msg);
            (*c).cmsg_level = libc::SOL_SOCKET;
            (*c).cmsg_type = libc::SCM_RIGHTS;
            (*c).cmsg_len = libc::CMSG_LEN(size) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(c).cast(), fds.len());
        }
        loop {
            if libc::sendmsg(fd.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) >= 0 {
                return Ok(());
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }
}

/// One message and the descriptors passed with it; an empty message is
/// the other end gone.
fn receive(fd: &impl AsRawFd) -> std::io::Result<(Vec<u8>, Vec<OwnedFd>)> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr().cast(),
        iov_len: buf.len(),
    };
    let mut control = [0u8; CONTROL];
    // SAFETY: as in `send`; descriptors the kernel put in the control data
    // are fresh and owned by this process.
    unsafe {
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = CONTROL as _;
        let n = loop {
            let n = libc::recvmsg(fd.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC);
            if n >= 0 {
                break n as usize;
            }
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        };
        let mut fds = Vec::new();
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(c).cast::<RawFd>();
                let count = ((*c).cmsg_len as usize - libc::CMSG_LEN(0) as usize)
                    / std::mem::size_of::<RawFd>();
                for i in 0..count {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
        if n == 0 && fds.is_empty() {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
        }
        buf.truncate(n);
        Ok((buf, fds))
    }
}

/// The keeper's whole life: make the namespace, hand it over, answer
/// until hermes goes.
pub(crate) fn keeper_main() -> std::process::ExitCode {
    // SAFETY: prctl with a NUL-terminated name of at most 16 bytes; the
    // descriptors above 2 are none of ours.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, c"hermes-netns".as_ptr(), 0, 0, 0);
        libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32);
    }
    // SAFETY: descriptor 0 is the pair hermes gave; owned from here.
    let pair = unsafe { OwnedFd::from_raw_fd(0) };
    let ready = make().and_then(|()| {
        let open = |p: &str| {
            std::fs::File::open(p)
                .map(OwnedFd::from)
                .map_err(|e| format!("open {p}: {e}"))
        };
        Ok((open("/proc/self/ns/user")?, open("/proc/self/ns/net")?))
    });
    match ready {
        Ok((user, net)) => {
            if send(&pair, b"R", &[user.as_raw_fd(), net.as_raw_fd()]).is_err() {
                return std::process::ExitCode::FAILURE;
            }
        }
        Err(why) => {
            let _ = send(&pair, format!("E{why}").as_bytes(), &[]);
            return std::process::ExitCode::FAILURE;
        }
    }
    while let Ok((q, _)) = receive(&pair) {
        let _ = match q.as_slice() {
            [b'C', hi, lo] => match connect_here(u16::from_be_bytes([*hi, *lo])) {
                Ok(s) => send(&pair, b"O", &[s.as_raw_fd()]),
                Err(e) => {
                    let mut m = vec![b'E'];
                    m.extend(e.raw_os_error().unwrap_or(libc::EIO).to_be_bytes());
                    send(&pair, &m, &[])
                }
            },
            [b'P'] => match std::net::TcpListener::bind(("127.0.0.1", 0)) {
                Ok(l) => send(&pair, b"O", &[l.as_raw_fd()]),
                Err(e) => send(&pair, format!("E{e}").as_bytes(), &[]),
            },
            [b'L'] => {
                let mut text = String::from("L");
                for f in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
                    text.push_str(&std::fs::read_to_string(f).unwrap_or_default());
                }
                send(&pair, text.as_bytes(), &[])
            }
            _ => send(&pair, b"E", &[]),
        };
    }
    std::process::ExitCode::SUCCESS
}

/// New user and network namespaces, the same user inside, `lo` up.
fn make() -> Result<(), String> {
    // SAFETY: getuid/getgid cannot fail; unshare takes flags and the
    // keeper has one thread.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNET) } < 0 {
        return Err(format!(
            "cannot make a network namespace: {}",
            std::io::Error::last_os_error()
        ));
    }
    let write = |p: &str, t: String| std::fs::write(p, t).map_err(|e| format!("write {p}: {e}"));
    if let Err(e) = std::fs::write("/proc/self/setgroups", "deny") {
        if e.kind() != std::io::ErrorKind::NotFound {
            return Err(format!("write /proc/self/setgroups: {e}"));
        }
    }
    write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))?;
    loopback_up().map_err(|e| format!("cannot bring lo up: {e}"))
}

/// `struct ifreq` with the flags member of its union.
#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

fn loopback_up() -> std::io::Result<()> {
    // SAFETY: a socket this function owns, and ioctls on a struct that
    // lives across them.
    unsafe {
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if s < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let s = OwnedFd::from_raw_fd(s);
        let mut req = IfReq {
            name: [0; 16],
            flags: 0,
            _pad: [0; 22],
        };
        req.name[..2].copy_from_slice(b"lo");
        if libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        req.flags |= (libc::IFF_UP | libc::IFF_RUNNING) as libc::c_short;
        if libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS, &req) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// A connection to `port` on this namespace's loopback, within a second.
fn connect_here(port: u16) -> std::io::Result<std::net::TcpStream> {
    let within = Duration::from_secs(1);
    let v4 = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let v6 = std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port));
    std::net::TcpStream::connect_timeout(&v4, within)
        .or_else(|e| std::net::TcpStream::connect_timeout(&v6, within).map_err(|_| e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listening_sockets_are_read_from_proc_net() {
        let text = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0\n\
   1: 0100007F:9C40 0100007F:1F40 01 00000000:00000000 00:00000000 00000000     0        0 4343 1 0\n\
   0: 00000000000000000000000001000000:1F40 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 4444 1 0\n";
        assert_eq!(
            parse_listening(text),
            vec![Listening {
                port: 8000,
                inode: 4242
            }]
        );
    }
}
