//! Small helpers shared by several modules: time, text, stable hashing, globs.

pub(crate) mod child_env;
pub(crate) mod glob;
pub(crate) mod hash;
pub(crate) mod private;
pub(crate) mod text;
pub(crate) mod time;
