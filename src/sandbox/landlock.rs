//! Landlock, entered by the sandbox helper just before it runs the command:
//! reads everywhere, writes only beneath the writable folders and a few
//! devices, no TCP without `network`, and — where the kernel has Landlock's
//! scopes (ABI 6) — no connecting to abstract Unix sockets or signalling
//! processes outside the sandbox.

use std::path::PathBuf;

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, ABI,
};

/// The newest Landlock ABI whose rights hermes asks for; an older kernel
/// enforces what it knows (best effort), a kernel without Landlock none.
const FS_ABI: ABI = ABI::V5;

/// Restricts this process and what it starts. `Ok(false)`: the kernel has
/// no Landlock (or it is turned off).
pub(crate) fn restrict(
    writable: &[PathBuf],
    devices: &[PathBuf],
    network: bool,
) -> Result<bool, String> {
    let setup = |e: landlock::RulesetError| e.to_string();
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(FS_ABI))
        .map_err(setup)?;
    if !network {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(setup)?;
    }
    // Scopes came with ABI 6: asked for as best effort, so an ABI 5
    // kernel still gets the rest.
    ruleset = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(setup)?;
    let status = ruleset
        .create()
        .map_err(setup)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(FS_ABI)))
        .map_err(setup)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(FS_ABI)))
        .map_err(setup)?
        .add_rules(path_beneath_rules(devices, AccessFs::from_all(FS_ABI)))
        .map_err(setup)?
        .restrict_self()
        .map_err(setup)?;
    Ok(status.ruleset != RulesetStatus::NotEnforced)
}
