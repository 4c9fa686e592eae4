//! Entry order among the built-ins of a batch: an entry waits for the
//! entries before it that touch what it touches — a read of a path for
//! the writes of it before it, a write for the reads and writes before
//! it, `grep` and `glob` for the writes under their folder, a command
//! (which may read and write anything) for every read and write before it,
//! and they for it — and for nothing else, so entries that share nothing
//! still run together.
//!
//! An entry takes its place when its call is first polled, before its
//! first wait; the round polls its entries first in entry order, so places
//! are taken in entry order.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tokio::sync::Notify;

/// What an entry touches.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Touch {
    /// Reads one file (`read_file`).
    Read(PathBuf),
    /// Writes one file (`write_file`, `edit_file`).
    Write(PathBuf),
    /// Reads every file under a folder (`grep`, `glob`).
    Scan(PathBuf),
    /// Reads and writes anything (`shell`); commands among themselves are
    /// held by the shell's own concurrency.
    Command,
}

impl Touch {
    /// Whether an entry touching `self` must wait for an earlier one
    /// touching `earlier`.
    fn waits_for(&self, earlier: &Touch) -> bool {
        use Touch::*;
        match (self, earlier) {
            (Command, Command) => false,
            (Command, _) | (_, Command) => true,
            (Read(_), Read(_)) => false,
            (Read(a) | Write(a), Write(b)) | (Write(a), Read(b)) => a == b,
            (Scan(dir), Write(p)) | (Write(p), Scan(dir)) => p.starts_with(dir),
            (Scan(_), Read(_) | Scan(_)) | (Read(_), Scan(_)) => false,
        }
    }
}

/// The places taken: each entry's ticket and what it touches, in the
/// order taken, until its call ends.
#[derive(Default)]
pub(crate) struct Order {
    places: Mutex<(u64, Vec<(u64, Touch)>)>,
    moved: Notify,
}

/// An entry's place: held while it waits and while it runs; dropping it
/// (the call ended, or was cancelled while waiting) lets the entries
/// after it on.
pub(crate) struct Place<'a> {
    order: &'a Order,
    ticket: u64,
}

impl Order {
    /// Takes the next place for an entry touching `touch`.
    pub(crate) fn take(&self, touch: Touch) -> Place<'_> {
        let mut places = self.places.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = places.0;
        places.0 += 1;
        places.1.push((ticket, touch));
        Place {
            order: self,
            ticket,
        }
    }

    /// Whether the entry at `ticket` waits for none before it.
    fn clear(&self, ticket: u64) -> bool {
        let places = self.places.lock().unwrap_or_else(|e| e.into_inner());
        let Some(at) = places.1.iter().position(|(t, _)| *t == ticket) else {
            return true;
        };
        let touch = &places.1[at].1;
        !places.1[..at].iter().any(|(_, e)| touch.waits_for(e))
    }
}

impl Place<'_> {
    /// Waits until every entry before this one that it must wait for has
    /// ended. Cancel-safe: dropping the future keeps the place until the
    /// place itself is dropped.
    pub(crate) async fn turn(&self) {
        loop {
            let moved = self.order.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            if self.order.clear(self.ticket) {
                return;
            }
            moved.await;
        }
    }
}

impl Drop for Place<'_> {
    fn drop(&mut self) {
        let mut places = self.order.places.lock().unwrap_or_else(|e| e.into_inner());
        places.1.retain(|(t, _)| *t != self.ticket);
        drop(places);
        self.order.moved.notify_waiters();
    }
}

/// The folder a `grep` or `glob` of `base` reads: `base` itself, or the
/// folder of a file.
pub(crate) fn scanned(base: &Path) -> PathBuf {
    match base.is_file() {
        true => base.parent().unwrap_or(base).to_path_buf(),
        false => base.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::FutureExt;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn reads_of_different_files_and_of_one_file_run_together() {
        let order = Order::default();
        let a = order.take(Touch::Read(p("/w/a")));
        let b = order.take(Touch::Read(p("/w/b")));
        let a2 = order.take(Touch::Read(p("/w/a")));
        let scan = order.take(Touch::Scan(p("/w")));
        for place in [&a, &b, &a2, &scan] {
            assert!(place.turn().now_or_never().is_some());
        }
    }

    #[test]
    fn a_read_waits_for_the_write_before_it_and_only_that() {
        let order = Order::default();
        let write = order.take(Touch::Write(p("/w/a")));
        let other = order.take(Touch::Read(p("/w/b")));
        let read = order.take(Touch::Read(p("/w/a")));
        assert!(other.turn().now_or_never().is_some());
        assert!(read.turn().now_or_never().is_none());
        drop(write);
        assert!(read.turn().now_or_never().is_some());
    }

    #[test]
    fn a_scan_waits_for_writes_under_its_folder_and_a_later_write_for_it() {
        let order = Order::default();
        let outside = order.take(Touch::Write(p("/elsewhere/x")));
        let inside = order.take(Touch::Write(p("/w/src/a.rs")));
        let scan = order.take(Touch::Scan(p("/w/src")));
        let after = order.take(Touch::Write(p("/w/src/b.rs")));
        assert!(outside.turn().now_or_never().is_some());
        assert!(scan.turn().now_or_never().is_none());
        drop(inside);
        assert!(scan.turn().now_or_never().is_some());
        assert!(after.turn().now_or_never().is_none());
        drop(scan);
        assert!(after.turn().now_or_never().is_some());
    }

    #[test]
    fn a_command_waits_for_every_read_and_write_before_it_and_they_after_it_for_it() {
        let order = Order::default();
        let read = order.take(Touch::Read(p("/w/a")));
        let first = order.take(Touch::Command);
        let second = order.take(Touch::Command);
        let write = order.take(Touch::Write(p("/tmp/x")));
        assert!(first.turn().now_or_never().is_none());
        drop(read);
        assert!(first.turn().now_or_never().is_some());
        assert!(
            second.turn().now_or_never().is_some(),
            "commands among themselves: the shell's concurrency decides"
        );
        drop(first);
        assert!(write.turn().now_or_never().is_none());
        drop(second);
        assert!(write.turn().now_or_never().is_some());
    }

    #[tokio::test]
    async fn a_waiting_entry_goes_on_when_the_one_before_it_ends() {
        let order = std::sync::Arc::new(Order::default());
        let write = order.take(Touch::Write(p("/w/a")));
        let o = order.clone();
        let waiter = tokio::spawn(async move {
            let read = o.take(Touch::Read(p("/w/a")));
            read.turn().await;
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(write);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("woken")
            .unwrap();
    }
}
