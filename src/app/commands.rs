//! `hermes config …` and `hermes sessions …`: read-only views that never need a
//! provider key or a network.

use std::path::Path;
use std::process::ExitCode;

use crate::cli::{ConfigAction, SessionsAction};
use crate::config::{self, Overrides, Paths};
use crate::session::{self, Message};
use crate::util::text::excerpt;

pub fn config(
    action: &ConfigAction,
    paths: &Paths,
    cwd: &Path,
    ov: &Overrides,
) -> anyhow::Result<ExitCode> {
    match action {
        ConfigAction::Path => {
            let user = ov
                .config_path
                .clone()
                .unwrap_or_else(|| paths.config_file());
            println!("{}", user.display());
            if let Some(p) = config::project_config(cwd) {
                println!("{}", p.display());
            }
        }
        ConfigAction::Show => {
            let (merged, sources) = config::load_merged(paths, cwd, ov)?;
            if sources.is_empty() {
                println!("# no config files; built-in defaults");
            }
            for s in &sources {
                println!("# from {}", s.display());
            }
            print!("{}", config::show_masked(&merged));
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn sessions(action: &SessionsAction, paths: &Paths, cwd: &Path) -> anyhow::Result<ExitCode> {
    let dir = paths.sessions_dir();
    match action {
        SessionsAction::List { here } => {
            let cwd = cwd.to_string_lossy();
            let rows: Vec<_> = session::list(&dir)
                .into_iter()
                .filter(|s| !here || s.meta.cwd == cwd)
                .collect();
            if rows.is_empty() {
                eprintln!("no sessions yet");
            }
            for s in rows {
                println!(
                    "{}  {}  {}  {}",
                    s.meta.id,
                    s.meta.model,
                    s.meta.cwd,
                    excerpt(&s.title, 60)
                );
            }
        }
        SessionsAction::Show { id } => {
            let path = session::find(&dir, id)?;
            let s = session::load(&path)?;
            for w in &s.warnings {
                eprintln!("warning: {w}");
            }
            println!(
                "session {} · {} · {} · {}",
                s.meta.id, s.meta.created, s.meta.model, s.meta.cwd
            );
            for m in &s.messages {
                match m {
                    Message::System { .. } => {}
                    Message::User { content } => println!("\n› {content}"),
                    Message::Assistant {
                        content,
                        tool_calls,
                    } => {
                        if !content.is_empty() {
                            println!("\n{content}");
                        }
                        for c in tool_calls {
                            println!("⏺ {} {}", c.name, excerpt(&c.arguments, 200));
                        }
                    }
                    Message::Tool(r) => {
                        let mark = if r.is_error { "✗" } else { "✓" };
                        println!("  {mark} {}", excerpt(&r.content, 200));
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn update(
    paths: &Paths,
    check: bool,
    channel: crate::cli::UpdateChannel,
) -> anyhow::Result<ExitCode> {
    use crate::update::{self, Channel};
    let channel = match channel {
        crate::cli::UpdateChannel::Main => Channel::Main,
        crate::cli::UpdateChannel::Stable => Channel::Stable,
    };
    let plan = update::plan(paths, channel)?;
    let current = crate::build_info::short(&plan.current).to_string();
    if plan.incoming.is_empty() {
        println!("already up to date at {current} ({})", plan.target_name);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} incoming commit(s) on {}:",
        plan.incoming.len(),
        plan.target_name
    );
    for line in &plan.incoming {
        println!("  {line}");
    }
    if check {
        println!("run `hermes update` to install them");
        return Ok(ExitCode::SUCCESS);
    }
    println!("building into {} …", plan.root.display());
    println!("{}", update::apply(paths, &plan, channel)?);
    Ok(ExitCode::SUCCESS)
}
