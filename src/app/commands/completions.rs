//! `hermes completions bash|zsh|fish|elvish|powershell`: the shell's
//! completion script, generated from the same clap definitions the binary
//! parses with, so it never goes stale.

use clap::CommandFactory;

use crate::app::cli::Cli;

pub(crate) fn run(shell: clap_complete::Shell) {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "hermes", &mut buf);
    crate::frontend::out(&buf);
}
