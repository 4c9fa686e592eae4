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
pub enum Bridge {
    Search,
    Describe,
    Call,
}

impl Bridge {
    pub fn of(name: &str) -> Option<Bridge> {
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

/// What a name says of its source: the server of `mcp__server__tool`, else
/// the name up to its first `__` (`connectors`).
pub(crate) fn server_part(name: &str) -> &str {
    let rest = name.strip_prefix(MCP_PREFIX).unwrap_or(name);
    rest.split_once("__").map_or(rest, |(s, _)| s)
}

/// The name after its `mcp__server__` or `connectors__` prefix.
pub fn bare(name: &str) -> &str {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        return rest.split_once("__").map(|(_, t)| t).unwrap_or(rest);
    }
    name.strip_prefix(CONNECTOR_PREFIX).unwrap_or(name)
}
