//! Small helpers shared by several modules: time, text, stable hashing, globs.

pub mod glob;
pub mod hash;
pub mod text;
pub mod time;
