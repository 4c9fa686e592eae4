//! Small helpers shared by several modules: time, text, stable hashing, globs,
//! and what every line hermes writes for a person goes through (`sanitize`,
//! `secrets`, `stderr`).

#[cfg(test)]
pub(crate) mod arbitrary;
pub(crate) mod beneath;
pub(crate) mod child_env;
pub(crate) mod editor_files;
pub(crate) mod git_config;
pub(crate) mod git_quiet;
pub(crate) mod glob;
pub(crate) mod groups;
pub(crate) mod hash;
pub(crate) mod inside;
pub(crate) mod jsonc;
pub(crate) mod palette;
pub(crate) mod path;
pub(crate) mod private;
pub(crate) mod sanitize;
pub(crate) mod secrets;
pub(crate) mod stderr;
pub(crate) mod text;
pub(crate) mod time;
pub(crate) mod tls;
