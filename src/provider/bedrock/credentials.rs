//! AWS credentials and region, found where the AWS tools look: a Bedrock API
//! key (`AWS_BEARER_TOKEN_BEDROCK`), the `AWS_ACCESS_KEY_ID` family, then the
//! shared `credentials` and `config` files under the profile
//! (`providers.NAME.profile`, `AWS_PROFILE`, else `default`). A profile set
//! in hermes' config is used before the key variables, as the AWS CLI does
//! with `--profile`. SSO, assumed roles and `credential_process` need the AWS
//! SDK's credential chain, which costs start-up time and megabytes: such a
//! profile is named with the command that exports its keys.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Clone, PartialEq)]
pub(crate) struct Keys {
    pub(crate) access_key_id: String,
    pub(crate) secret_access_key: String,
    pub(crate) session_token: Option<String>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({}, ****)", self.access_key_id)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Auth {
    /// SigV4 with these keys.
    Keys(Keys),
    /// A Bedrock API key, sent as a bearer token.
    Bearer(String),
}

/// Where to look: the environment and the home folder, passed in so tests
/// need not touch the process's own.
pub(crate) struct Sources<'a> {
    pub(crate) env: &'a dyn Fn(&str) -> Option<String>,
    pub(crate) home: Option<PathBuf>,
    /// `providers.NAME.profile`, when set.
    pub(crate) profile: Option<&'a str>,
}

impl Sources<'_> {
    fn var(&self, k: &str) -> Option<String> {
        (self.env)(k).filter(|v| !v.trim().is_empty())
    }

    fn profile_name(&self) -> String {
        self.profile
            .map(str::to_string)
            .or_else(|| self.var("AWS_PROFILE"))
            .unwrap_or_else(|| "default".into())
    }

    fn file(&self, var: &str, name: &str) -> Option<PathBuf> {
        self.var(var)
            .map(PathBuf::from)
            .or_else(|| self.home.as_ref().map(|h| h.join(".aws").join(name)))
    }

    /// The profile's keys from the credentials file, then the config file
    /// (`[profile NAME]`, or `[default]`).
    fn profile(&self) -> Profile {
        let name = self.profile_name();
        let mut p = Profile::default();
        if let Some(path) = self.file("AWS_SHARED_CREDENTIALS_FILE", "credentials") {
            p.merge(read_section(&path, &name));
        }
        if let Some(path) = self.file("AWS_CONFIG_FILE", "config") {
            let section = if name == "default" {
                name.clone()
            } else {
                format!("profile {name}")
            };
            p.merge(read_section(&path, &section));
        }
        p.name = name;
        p
    }
}

#[derive(Default)]
struct Profile {
    name: String,
    keys: HashMap<String, String>,
}

impl Profile {
    fn merge(&mut self, more: HashMap<String, String>) {
        for (k, v) in more {
            self.keys.entry(k).or_insert(v);
        }
    }

    fn get(&self, k: &str) -> Option<String> {
        self.keys.get(k).cloned().filter(|v| !v.is_empty())
    }
}

/// The credentials to sign with, or what is missing.
pub(crate) fn find(s: &Sources<'_>) -> Result<Auth, String> {
    if let Some(token) = s.var("AWS_BEARER_TOKEN_BEDROCK") {
        crate::util::secrets::remember(&token);
        return Ok(Auth::Bearer(token));
    }
    let from_env = || {
        Some(Keys {
            access_key_id: s.var("AWS_ACCESS_KEY_ID")?,
            secret_access_key: s.var("AWS_SECRET_ACCESS_KEY")?,
            session_token: s.var("AWS_SESSION_TOKEN"),
        })
    };
    if s.profile.is_none() {
        if let Some(k) = from_env() {
            return Ok(Auth::Keys(k));
        }
    }
    let p = s.profile();
    if let (Some(id), Some(secret)) = (p.get("aws_access_key_id"), p.get("aws_secret_access_key")) {
        return Ok(Auth::Keys(Keys {
            access_key_id: id,
            secret_access_key: secret,
            session_token: p.get("aws_session_token"),
        }));
    }
    let name = &p.name;
    for k in [
        "sso_session",
        "sso_start_url",
        "role_arn",
        "credential_process",
    ] {
        if p.get(k).is_some() {
            return Err(format!(
                "AWS profile `{name}` gets its keys through `{k}`, which hermes does not run; \
                 export them with `aws configure export-credentials --profile {name} --format env`"
            ));
        }
    }
    Err(format!(
        "no AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, and AWS profile `{name}` has no keys"
    ))
}

/// The profile's region, for a Bedrock provider with none in config or env.
pub(crate) fn profile_region(s: &Sources<'_>) -> Option<String> {
    s.profile().get("region")
}

/// One `[section]` of an INI file as the AWS tools write it; a missing file
/// or section is empty.
fn read_section(path: &Path, section: &str) -> HashMap<String, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    parse_section(&text, section)
}

fn parse_section(text: &str, section: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
            continue;
        }
        if !inside {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            out.insert(k.trim().to_lowercase(), v.trim().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources<'a>(
        env: &'a dyn Fn(&str) -> Option<String>,
        home: &Path,
        profile: Option<&'a str>,
    ) -> Sources<'a> {
        Sources {
            env,
            home: Some(home.to_path_buf()),
            profile,
        }
    }

    #[test]
    fn keys_come_from_the_env_then_the_profile_files() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join(".aws")).unwrap();
        std::fs::write(
            home.path().join(".aws/credentials"),
            "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s1\n\n\
             # a comment\n[work]\naws_access_key_id=AKIDWORK\naws_secret_access_key=s2\naws_session_token=tok\n",
        )
        .unwrap();
        std::fs::write(
            home.path().join(".aws/config"),
            "[default]\nregion = eu-west-1\n[profile work]\nregion = us-west-2\n\
             [profile sso]\nsso_session = corp\n",
        )
        .unwrap();
        let env_keys = |k: &str| match k {
            "AWS_ACCESS_KEY_ID" => Some("AKIDENV".to_string()),
            "AWS_SECRET_ACCESS_KEY" => Some("s0".to_string()),
            _ => None,
        };
        let Auth::Keys(k) = find(&sources(&env_keys, home.path(), None)).unwrap() else {
            panic!()
        };
        assert_eq!(k.access_key_id, "AKIDENV");
        let env_keys_and_profile = |k: &str| match k {
            "AWS_PROFILE" => Some("sso".to_string()),
            other => env_keys(other),
        };
        let Auth::Keys(k) = find(&sources(&env_keys_and_profile, home.path(), None)).unwrap()
        else {
            panic!()
        };
        assert_eq!(
            k.access_key_id, "AKIDENV",
            "the key variables win over AWS_PROFILE, as exported SSO keys need"
        );
        let Auth::Keys(k) = find(&sources(&env_keys, home.path(), Some("work"))).unwrap() else {
            panic!()
        };
        assert_eq!(
            (k.access_key_id.as_str(), k.session_token.as_deref()),
            ("AKIDWORK", Some("tok")),
            "a profile named in config wins over the key variables"
        );
        let none = |_: &str| None;
        let Auth::Keys(k) = find(&sources(&none, home.path(), None)).unwrap() else {
            panic!()
        };
        assert_eq!(k.access_key_id, "AKIDDEFAULT");
        assert_eq!(
            profile_region(&sources(&none, home.path(), Some("work"))).as_deref(),
            Some("us-west-2")
        );
        let err = find(&sources(&none, home.path(), Some("sso"))).unwrap_err();
        assert!(
            err.contains("sso_session") && err.contains("export-credentials"),
            "{err}"
        );
        let err = find(&sources(&none, home.path(), Some("nope"))).unwrap_err();
        assert!(err.contains("`nope` has no keys"), "{err}");
        let bearer = |k: &str| (k == "AWS_BEARER_TOKEN_BEDROCK").then(|| "bk".to_string());
        assert_eq!(
            find(&sources(&bearer, home.path(), None)).unwrap(),
            Auth::Bearer("bk".into())
        );
    }
}
