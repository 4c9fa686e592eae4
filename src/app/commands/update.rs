//! `hermes update [--check] [--channel main|stable]`: pull the checkout this
//! binary was installed from, rebuild, reinstall (docs/update.md).

use clap::Args;

use super::Context;
use crate::app::CommandError;
use crate::update::{self, Channel};

#[derive(Debug, Args)]
pub(crate) struct UpdateArgs {
    /// Only report whether an update is available.
    #[arg(long)]
    check: bool,
    /// `main` follows the branch; `stable` the newest v* tag.
    #[arg(long, value_enum, default_value = "main")]
    channel: UpdateChannel,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum UpdateChannel {
    Main,
    Stable,
}

pub(crate) fn run(args: &UpdateArgs, ctx: &Context<'_>) -> Result<(), CommandError> {
    let channel = match args.channel {
        UpdateChannel::Main => Channel::Main,
        UpdateChannel::Stable => Channel::Stable,
    };
    let plan = update::plan(ctx.paths, channel)?;
    let current = crate::build_info::short(&plan.current).to_string();
    if plan.incoming.is_empty() {
        outln!("already up to date at {current} ({})", plan.target_name);
        return Ok(());
    }
    outln!(
        "{} incoming commit(s) on {}:",
        plan.incoming.len(),
        plan.target_name
    );
    for line in &plan.incoming {
        outln!("  {line}");
    }
    if args.check {
        outln!("run `hermes update` to install them");
        return Ok(());
    }
    outln!("building into {} …", plan.root.display());
    outln!("{}", update::apply(ctx.paths, &plan, channel)?);
    Ok(())
}
