//! `${VAR}` and `${VAR:-default}` in a server's command, arguments,
//! environment, folder, URL and headers, expanded from hermes' environment
//! each time hermes starts — where and as Claude Code expands them in
//! `.mcp.json`. The config keeps the reference, never the value: a token
//! set later is used, and none is copied into a file.

/// A variable a server needs that is not set and has no default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unset {
    pub var: String,
}

/// `text` with its variables expanded; the first unset one without a
/// default is `Err`. An empty variable counts as unset, as a missing token
/// would. `${` without a closing brace is text.
pub fn expand(text: &str) -> Result<String, Unset> {
    expand_with(text, |name| {
        let v = std::env::var(name).ok()?;
        // A token put in an argument may come back in any output: hidden
        // from here on, as configured secrets are.
        if crate::util::secrets::looks_secret(name) {
            crate::util::secrets::remember(&v);
        }
        Some(v)
    })
}

fn expand_with(text: &str, get: impl Fn(&str) -> Option<String>) -> Result<String, Unset> {
    if !text.contains("${") {
        return Ok(text.to_string());
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[at..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let named = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !named {
            // Not a variable (`${input:token}`, a shell's `${#x}`): as written.
            out.push_str(&rest[at..at + 3 + end]);
        } else {
            match (get(name).filter(|v| !v.is_empty()), default) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    return Err(Unset {
                        var: name.to_string(),
                    })
                }
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Whether `text` refers to a variable.
pub fn refers(text: &str) -> bool {
    text.contains("${")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("t0k".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_as_claude_code_expands_them() {
        let x = |t: &str| expand_with(t, env);
        assert_eq!(x("Bearer ${TOKEN}").unwrap(), "Bearer t0k");
        assert_eq!(
            x("${HOST:-http://localhost:3000}/mcp").unwrap(),
            "http://localhost:3000/mcp"
        );
        assert_eq!(x("${TOKEN:-unused}").unwrap(), "t0k");
        assert_eq!(
            x("${MISSING}"),
            Err(Unset {
                var: "MISSING".into()
            })
        );
        assert_eq!(
            x("${EMPTY}"),
            Err(Unset {
                var: "EMPTY".into()
            })
        );
        assert_eq!(x("plain ${unclosed").unwrap(), "plain ${unclosed");
        assert_eq!(x("${input:pat}").unwrap(), "${input:pat}");
        assert_eq!(x("no variables").unwrap(), "no variables");
    }
}
