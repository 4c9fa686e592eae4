//! What the shell's proxy refused a command: told to the model beside the
//! result, and the `[network] allow` entries the person may be asked about.

/// `text` with what the proxy refused while the command ran, for the
/// model: which hosts, and that the person allows one in config.toml.
pub(super) fn told(mut text: String, refused: &[crate::net::Refused]) -> String {
    for r in refused {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[network: refused {}:{} — {}]\n",
            r.host, r.port, r.why
        ));
    }
    text
}

/// The `[network] allow` entries the person may be asked about, once each.
pub(super) fn askable(refused: &[crate::net::Refused]) -> Vec<String> {
    let mut rules: Vec<String> = Vec::new();
    for r in refused.iter().filter_map(|r| r.rule.clone()) {
        if !rules.contains(&r) {
            rules.push(r);
        }
    }
    rules
}
