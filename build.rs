//! Embeds the commit, its date and the checkout's path, so `hermes --version`
//! names the build and `hermes update` knows where it was installed from —
//! without git at run time.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let date = git(&["log", "-1", "--format=%cs"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HERMES_COMMIT={commit}");
    println!("cargo:rustc-env=HERMES_COMMIT_DATE={date}");
    println!(
        "cargo:rustc-env=HERMES_CHECKOUT={}",
        std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()
    );
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        println!("cargo:rerun-if-changed={git_dir}/logs/HEAD");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
