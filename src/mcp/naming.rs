//! Model-facing names of MCP tools: `mcp__<server>__<tool>`, each part reduced to
//! `[A-Za-z0-9_]`, at most 64 characters, and never two tools with one name. When
//! sanitising or shortening makes names collide, every member of the collision
//! gets a suffix hashed from its raw server and tool names, so the result depends
//! only on the set of tools, not on the order they were listed in.

use std::collections::HashMap;

use crate::util::hash::fnv1a;

pub use crate::call::names::sanitize;
pub use crate::call::names::MCP_PREFIX as PREFIX;
pub const MAX_LEN: usize = 64;

fn suffix(server: &str, tool: &str) -> String {
    let h = fnv1a(format!("{server}\0{tool}").as_bytes());
    format!("_{:08x}", h as u32)
}

fn with_suffix(base: &str, sfx: &str) -> String {
    let keep = MAX_LEN.saturating_sub(sfx.len()).min(base.len());
    format!("{}{sfx}", &base[..keep])
}

/// The name a tool has when nothing collides with it: its parts cleaned,
/// not shortened.
pub fn plain(server: &str, tool: &str) -> String {
    format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool))
}

/// The name of one tool, ignoring collisions with others.
pub fn candidate(server: &str, tool: &str) -> String {
    let full = plain(server, tool);
    if full.len() <= MAX_LEN {
        full
    } else {
        with_suffix(&full, &suffix(server, tool))
    }
}

/// Names for every `(server, tool)` pair, in the same order, all distinct.
pub fn assign(pairs: &[(String, String)]) -> Vec<String> {
    let mut names: Vec<String> = pairs.iter().map(|(s, t)| candidate(s, t)).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in &names {
        *count.entry(n.as_str()).or_default() += 1;
    }
    let clashing: Vec<bool> = names.iter().map(|n| count[n.as_str()] > 1).collect();
    for (i, clash) in clashing.into_iter().enumerate() {
        if clash {
            let (s, t) = &pairs[i];
            names[i] = with_suffix(&plain(s, t), &suffix(s, t));
        }
    }
    names
}

/// One line per group of tools whose names became one once cleaned, for
/// the user: which tools, the names they got, and that rules for the
/// plain name cover them all.
pub fn collisions(pairs: &[(String, String)], names: &[String]) -> Vec<String> {
    let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, (s, t)) in pairs.iter().enumerate() {
        groups.entry(candidate(s, t)).or_default().push(i);
    }
    groups
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|(plain, members)| {
            let tools: Vec<String> = members
                .iter()
                .map(|i| format!("`{}` ({})", pairs[*i].1, names[*i]))
                .collect();
            format!(
                "server `{}`: tools {} have one name once cleaned, {plain}; each was given a suffix — \
                 approval rules and hook matchers written for {plain} apply to all of them",
                pairs[members[0]].0,
                tools.join(" and ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str, t: &str) -> (String, String) {
        (s.to_string(), t.to_string())
    }

    #[test]
    fn names_are_prefixed_and_sanitised() {
        assert_eq!(candidate("files", "read_file"), "mcp__files__read_file");
        assert_eq!(candidate("my-srv", "get.time"), "mcp__my_srv__get_time");
    }

    #[test]
    fn long_names_are_shortened_stably() {
        let tool = "a_very_long_tool_name_that_goes_on_and_on_and_on_forever_more";
        let a = candidate("server", tool);
        assert_eq!(a.len(), MAX_LEN);
        assert_eq!(a, candidate("server", tool));
        assert_ne!(a, candidate("server", &format!("{tool}2")));
    }

    #[test]
    fn collisions_get_distinct_order_independent_names() {
        let pairs = vec![p("s", "a-b"), p("s", "a_b"), p("s", "c")];
        let names = assign(&pairs);
        assert_ne!(names[0], names[1]);
        assert!(names[0].starts_with("mcp__s__a_b_") && names[0].len() == "mcp__s__a_b_".len() + 8);
        assert_eq!(names[2], "mcp__s__c");
        let mut rev = pairs.clone();
        rev.reverse();
        let names_rev = assign(&rev);
        assert_eq!(names_rev[2], names[0]);
        assert_eq!(names_rev[1], names[1]);
        // Long names that agree on their first 64 characters stay apart too.
        let long = "x".repeat(70);
        let pairs = vec![p("s", &format!("{long}1")), p("s", &format!("{long}2"))];
        let names = assign(&pairs);
        assert_ne!(names[0], names[1]);
        assert!(names.iter().all(|n| n.len() <= MAX_LEN));
    }
}
