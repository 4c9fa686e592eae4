//! The merged config as `hermes config show` prints it: every secret
//! masked.

use super::ConfigFile;

/// The merged config as TOML with secrets replaced by `****`: keys,
/// values of secret-looking names, and whatever `secrets::mask` hides in
/// URLs, headers, arguments and environments.
///
/// `secrets::mask`: crate::util::secrets::mask
pub fn show_masked(file: &ConfigFile) -> String {
    show(file, false)
}

/// A config as TOML with its secrets hidden. `decided`: for a person
/// deciding whether to let it act (`hermes trust`) — keys and the values of
/// secret names stay hidden, but commands and arguments are shown as they
/// will run, but for secret values hermes holds: a pattern hidden in a
/// command could hide a payload.
pub(crate) fn show(file: &ConfigFile, decided: bool) -> String {
    let mut f = file.clone();
    mask_file(&mut f, decided);
    toml::to_string(&f).unwrap_or_else(|e| format!("# cannot print config: {e}\n"))
}

/// Hides every secret a config file holds, in place.
fn mask_file(f: &mut ConfigFile, decided: bool) {
    use crate::util::secrets::{mask, mask_args, mask_known, HIDDEN};
    let text = |t: &str| -> String {
        if decided {
            mask_known(t).into_owned()
        } else {
            mask(t).into_owned()
        }
    };
    for p in f.providers.values_mut() {
        if p.api_key.is_some() {
            p.api_key = Some(HIDDEN.into());
        }
        if let Some(url) = &mut p.base_url {
            *url = mask(url).into_owned();
        }
        mask_map(&mut p.headers);
    }
    for s in f.mcp_servers.values_mut() {
        mask_map(&mut s.env);
        mask_map(&mut s.headers);
        if let Some(url) = &mut s.url {
            *url = mask(url).into_owned();
        }
        s.args = if decided {
            s.args.iter().map(|a| text(a)).collect()
        } else {
            mask_args(&s.args)
        };
        s.command = text(&s.command);
    }
    if let Some(c) = &mut f.connectors {
        c.url = mask(&c.url).into_owned();
    }
    for list in f.hooks.lists_mut() {
        for h in list {
            h.command = text(&h.command);
        }
    }
}

/// Values of secret-looking names masked whole; others through `mask`
/// (`Bearer …`, a URL's password).
fn mask_map(m: &mut std::collections::BTreeMap<String, String>) {
    use crate::util::secrets::{looks_secret, mask, HIDDEN};
    for (k, v) in m.iter_mut() {
        *v = if looks_secret(k) {
            HIDDEN.into()
        } else {
            mask(v).into_owned()
        };
    }
}
