//! Version information embedded at build time (see `build.rs`).

/// The checkout this binary was built from; `hermes update` pulls there.
pub(crate) const CHECKOUT: &str = env!("HERMES_CHECKOUT");

/// `0.1.0 (1a2b3c4d5e6f 2026-11-29)`
pub(crate) const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("HERMES_COMMIT"),
    " ",
    env!("HERMES_COMMIT_DATE"),
    ")"
);

/// The first 12 characters of a commit id.
pub(crate) fn short(commit: &str) -> &str {
    &commit[..commit.len().min(12)]
}
