mod config;
mod errors;
mod oneshot;
mod repl;
mod sessions;
