//! `hermes completions bash|zsh|fish|elvish|powershell`: the shell's
//! completion script, generated from the same clap definitions the binary
//! parses with, so it never goes stale.

use crate::app::cli;

pub(crate) fn run(shell: clap_complete::Shell) {
    let mut cmd = cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "hermes", &mut buf);
    crate::frontend::out(&buf);
}
