//! hermes in a real terminal emulator: a tmux pane of fixed size, on a tmux
//! server of its own (one socket per test), driven with `send-keys` and read
//! back as the rendered screen (`capture-pane`), so a test sees what a user
//! would — not the byte stream a pty recorder copies.

use std::process::{Command, Output};

use std::time::{Duration, Instant};

use super::TestEnv;

pub const WIDTH: u16 = 100;
pub const HEIGHT: u16 = 30;

/// The size a pane starts at: `HERMES_TMUX_SIZE=COLSxROWS` (`80x24`,
/// `120x40`) runs the terminal tests at another size; 100×30 otherwise.
pub fn size() -> (u16, u16) {
    std::env::var("HERMES_TMUX_SIZE")
        .ok()
        .and_then(|s| {
            let (w, h) = s.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .unwrap_or((WIDTH, HEIGHT))
}

/// `HERMES_TMUX_RECORD=FILE`: every test that opens a pane appends its name
/// (libtest runs each test on a thread named after it) to FILE. This is how
/// `scripts/test` picks the tests it runs again at the other sizes: the
/// ones that draw, found by drawing, so a new one needs no list kept by hand
/// and none can be left out. [`Tmux::start_with`] is the only way to a pane.
fn record_drawing_test() {
    use std::io::Write;
    let Some(path) = std::env::var_os("HERMES_TMUX_RECORD") else {
        return;
    };
    // A pane opened off the test's own thread is recorded under that
    // thread's name; scripts/test refuses a name that is not a test's.
    let thread = std::thread::current();
    let line = format!("{}\n", thread.name().unwrap_or("<a thread with no name>"));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("HERMES_TMUX_RECORD={}: {e}", path.to_string_lossy()));
    // One write of one short line to a file opened for appending: lines
    // from tests running at once do not interleave.
    file.write_all(line.as_bytes()).unwrap();
}

pub struct Tmux<'a> {
    env: &'a TestEnv,
    socket: String,
}

impl<'a> Tmux<'a> {
    /// Starts `hermes ARGS` in a new pane and waits for its REPL banner.
    pub fn start(env: &'a TestEnv, args: &[&str]) -> Tmux<'a> {
        Tmux::start_with(env, args, &[])
    }

    /// As [`Tmux::start`], with `vars` set in hermes' environment
    /// (`NO_COLOR=1`).
    pub fn start_with(env: &'a TestEnv, args: &[&str], vars: &[(&str, &str)]) -> Tmux<'a> {
        assert!(
            Command::new("tmux")
                .arg("-V")
                .output()
                .is_ok_and(|o| o.status.success()),
            "these tests need tmux in PATH (`apt-get install tmux`; ./scripts/install-test-servers installs it)"
        );
        record_drawing_test();
        let socket = format!(
            "hermes-test-{}-{}",
            std::process::id(),
            env.home.path().file_name().unwrap().to_string_lossy()
        );
        let tmux = Tmux { env, socket };
        let (w, h) = size();
        let (w, h) = (w.to_string(), h.to_string());
        let mut new = vec!["new-session", "-d", "-x", &w, "-y", &h];
        let vars: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for v in &vars {
            new.extend(["-e", v.as_str()]);
        }
        let hermes = super::bin("hermes");
        new.push(&hermes);
        new.extend(args);
        let out = tmux.run(&new);
        assert!(
            out.status.success(),
            "tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The pane stays after hermes exits, so its last screen can be read.
        tmux.run(&["set-option", "-g", "remain-on-exit", "on"]);
        tmux.wait_for("the REPL banner", |s| s.contains("/help for commands"));
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        self.env
            .command("tmux")
            .env("TERM", "xterm-256color")
            // The pane's shell: not the account's (nobody's is nologin).
            .env("SHELL", "/bin/sh")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// Types `text` as is (no key names), then Enter.
    pub fn type_line(&self, text: &str) {
        self.run(&["send-keys", "-t", "0", "-l", text]);
        self.run(&["send-keys", "-t", "0", "Enter"]);
    }

    /// Resizes the pane's window to `width` × `height`, as a user dragging
    /// the terminal's corner does (the program gets SIGWINCH).
    pub fn resize(&self, width: u16, height: u16) {
        let (w, h) = (width.to_string(), height.to_string());
        self.run(&["set-option", "-g", "window-size", "manual"]);
        let out = self.run(&["resize-window", "-t", "0", "-x", &w, "-y", &h]);
        assert!(
            out.status.success(),
            "tmux resize-window: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Pastes `text` as a terminal does: wrapped in bracketed-paste marks
    /// when the program asked for them (`paste-buffer -p`).
    pub fn paste(&self, text: &str) {
        self.run(&["set-buffer", "--", text]);
        self.run(&["paste-buffer", "-p", "-t", "0"]);
    }

    /// Types `text` as is, with no Enter after it.
    pub fn type_keys(&self, text: &str) {
        self.run(&["send-keys", "-t", "0", "-l", text]);
    }

    /// Presses one key by its tmux name (`Tab`, `Enter`, `Escape`).
    pub fn press(&self, key: &str) {
        self.run(&["send-keys", "-t", "0", key]);
    }

    /// Sends raw bytes as typed, one key each (`send-keys -H`): how a
    /// terminal in another encoding, or a paste, reaches the program.
    pub fn type_bytes(&self, bytes: &[u8]) {
        let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let mut args = vec!["send-keys", "-t", "0", "-H"];
        args.extend(hex.iter().map(String::as_str));
        self.run(&args);
    }

    /// The pane as rendered now, a line per screen row.
    pub fn screen(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane as rendered now with its colours, as SGR escapes
    /// (`capture-pane -e`).
    pub fn screen_with_colours(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-e", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// From now on an application's OSC 52 sets tmux's buffer (tmux's
    /// `set-clipboard on`), read with [`Tmux::buffer`].
    pub fn accept_clipboard(&self) {
        self.run(&["set-option", "-g", "set-clipboard", "on"]);
    }

    /// tmux's newest paste buffer ("" when there is none).
    pub fn buffer(&self) -> String {
        let out = self.run(&["show-buffer"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Everything the pane has shown that is still there: its history
    /// (what scrolled off) and the screen.
    pub fn scrollback(&self) -> String {
        let out = self.run(&["capture-pane", "-p", "-S", "-", "-t", "0"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A tmux format value of the pane (`#{pane_title}`, `#{alternate_on}`…).
    pub fn pane(&self, format: &str) -> String {
        let out = self.run(&["display-message", "-p", "-t", "0", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Polls the screen until `cond` holds; after 20 s fails, showing it.
    pub fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.screen();
            if cond(&s) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Whether hermes has exited (its pane is dead).
    pub fn exited(&self) -> bool {
        self.pane("#{pane_dead}") == "1"
    }
}

impl Drop for Tmux<'_> {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}
