//! Names that carry meaning in a tool call. Only this module looks at name
//! prefixes; everything else asks [`super::classify`] or a resolved
//! [`super::ToolRef`].

pub const SEARCH: &str = "tool_search";
pub const DESCRIBE: &str = "tool_describe";
pub const CALL: &str = "tool_call";

/// MCP tools are offered as `mcp__<server>__<tool>`.
pub const MCP_PREFIX: &str = "mcp__";
/// Tools of the remote connector gateway keep the prefix it gives them.
pub(crate) const CONNECTOR_PREFIX: &str = "connectors__";

/// One of the three bridge tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bridge {
    Search,
    Describe,
    Call,
}

impl Bridge {
    pub(crate) fn of(name: &str) -> Option<Bridge> {
        match name {
            SEARCH => Some(Bridge::Search),
            DESCRIBE => Some(Bridge::Describe),
            CALL => Some(Bridge::Call),
            _ => None,
        }
    }
}

pub fn is_bridge(name: &str) -> bool {
    Bridge::of(name).is_some()
}

pub(crate) fn is_connector(name: &str) -> bool {
    name.starts_with(CONNECTOR_PREFIX)
}

/// Whether a word is (the start of) an MCP or connector tool's name.
pub(crate) fn has_source_prefix(word: &str) -> bool {
    word.starts_with(MCP_PREFIX) || is_connector(word)
}

/// A name part reduced to `[A-Za-z0-9_]`, as model-facing names have it.
pub fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The server part of an `mcp__server__tool` name (as the name has it:
/// sanitised), for a person: `None` for other names.
pub(crate) fn mcp_server(name: &str) -> Option<&str> {
    name.strip_prefix(MCP_PREFIX)?
        .split_once("__")
        .map(|(s, _)| s)
}

/// Whether `name` is a tool of the MCP server named `server` (its name as
/// configured: `my-srv`'s tools are `mcp__my_srv__…`).
pub(crate) fn is_of_server(name: &str, server: &str) -> bool {
    mcp_server(name).is_some_and(|s| s == sanitize(server))
}

/// `mcp__server__tool` from the server's and the tool's own names as they
/// are (not sanitised): how a rule may name a tool by its server's name.
pub(crate) fn own_mcp_name(server: &str, tool: &str) -> String {
    format!("{MCP_PREFIX}{server}__{tool}")
}

/// A gateway tool's name as the model sees it: with the `connectors__`
/// prefix, added when the gateway did not give it.
pub(crate) fn connector_name(raw: String) -> String {
    if is_connector(&raw) {
        raw
    } else {
        format!("{CONNECTOR_PREFIX}{raw}")
    }
}

/// What a name says of its source: the server of `mcp__server__tool`, else
/// the name up to its first `__` (`connectors`). Used by the search index.
pub(crate) fn server_part(name: &str) -> &str {
    let rest = name.strip_prefix(MCP_PREFIX).unwrap_or(name);
    rest.split_once("__").map_or(rest, |(s, _)| s)
}

/// The name after its `mcp__server__` or `connectors__` prefix.
pub(crate) fn bare(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        return rest.split_once("__").map(|(_, t)| t).unwrap_or(rest);
    }
    name.strip_prefix(CONNECTOR_PREFIX).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_names_server_is_read_as_the_name_has_it() {
        assert_eq!(mcp_server("mcp__my_srv__read"), Some("my_srv"));
        assert_eq!(mcp_server("connectors__crm_find"), None);
        // A server configured as `my-srv` names its tools `mcp__my_srv__…`.
        assert!(is_of_server("mcp__my_srv__read", "my-srv"));
        assert!(!is_of_server("mcp__my_srv2__read", "my-srv"));
        assert!(has_source_prefix("mcp__") && has_source_prefix("connectors__x"));
        assert!(!has_source_prefix("mcp_x"));
        assert_eq!(connector_name("crm_find".into()), "connectors__crm_find");
        assert_eq!(
            connector_name("connectors__crm_find".into()),
            "connectors__crm_find"
        );
    }
}
