//! Cutting text for one-line messages without splitting a UTF-8 character.

/// The first `max` bytes of `s` (backed off to a char boundary), with `…` when cut.
pub(crate) fn excerpt(s: &str, max: usize) -> String {
    let one_line: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let t = one_line.trim();
    if t.len() <= max {
        return t.to_string();
    }
    let mut end = max;
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &t[..end])
}

#[cfg(test)]
mod tests {
    #[test]
    fn excerpt_cuts_on_char_boundary_and_flattens_lines() {
        assert_eq!(super::excerpt("a\nb", 10), "a b");
        assert_eq!(super::excerpt("héllo", 2), "h…");
        assert_eq!(super::excerpt("hello", 5), "hello");
    }
}
