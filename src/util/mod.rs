//! Small helpers shared by several modules: wall-clock formatting and text trimming.

pub mod text;
pub mod time;
