//! What a `/` can load besides hermes' own commands: custom commands
//! (Markdown prompts) and Agent Skills, from the places Claude Code and
//! Codex keep them.

pub(crate) mod commands;
pub(crate) mod frontmatter;
pub(crate) mod skills;
