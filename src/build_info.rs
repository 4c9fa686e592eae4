//! Version information embedded at build time.

/// `0.1.0`; the update issue adds the commit and its date here.
pub const VERSION_LINE: &str = env!("CARGO_PKG_VERSION");
