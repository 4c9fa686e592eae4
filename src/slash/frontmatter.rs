//! The YAML frontmatter of a command's or a skill's Markdown file, as
//! those files write it: `---`, top-level `key: value` lines (plain or
//! quoted, or a `>` / `|` block under them), `---`, then the body. Nested
//! keys (`metadata:`) are skipped. Enough YAML for what these files hold,
//! without a YAML library.

/// The file's top-level keys and its body.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Doc {
    pub fields: Vec<(String, String)>,
    pub body: String,
}

impl Doc {
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) fn parse(text: &str) -> Doc {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return Doc {
            fields: Vec::new(),
            body: text.to_string(),
        };
    };
    let mut lines = rest.split_inclusive('\n');
    let mut head = Vec::new();
    let mut closed = false;
    for l in lines.by_ref() {
        if l.trim_end() == "---" {
            closed = true;
            break;
        }
        head.push(l.trim_end_matches(['\n', '\r']));
    }
    if !closed {
        return Doc {
            fields: Vec::new(),
            body: text.to_string(),
        };
    }
    let body: String = lines.collect();
    let mut fields = Vec::new();
    let mut i = 0;
    while i < head.len() {
        let line = head[i];
        i += 1;
        if line.starts_with([' ', '\t', '#']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let value = if matches!(value, ">" | "|" | ">-" | "|-" | ">+" | "|+") {
            let mut block = Vec::new();
            while i < head.len() && (head[i].starts_with([' ', '\t']) || head[i].trim().is_empty())
            {
                block.push(head[i].trim());
                i += 1;
            }
            let sep = if value.starts_with('>') { " " } else { "\n" };
            block.join(sep).trim().to_string()
        } else if value.is_empty()
            && head
                .get(i)
                .is_some_and(|l| l.trim_start().starts_with("- "))
        {
            // A block list (`tools:` then `  - Read` lines): its items,
            // joined as a flow list would be.
            let mut items = Vec::new();
            while let Some(item) = head.get(i).and_then(|l| l.trim_start().strip_prefix("- ")) {
                items.push(unquote(item.trim()));
                i += 1;
            }
            items.join(", ")
        } else {
            unquote(value)
        };
        fields.push((key.trim().to_string(), value));
    }
    Doc { fields, body }
}

fn unquote(v: &str) -> String {
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_as_commands_and_skills_write_it() {
        let d = parse(
            "---\nname: pdf-tools\ndescription: >\n  Extract text from PDFs.\n  Use for forms.\n\
             argument-hint: \"[file] [pages]\"\nmetadata:\n  author: me\nallowed-tools: Bash(git status:*), Read\n---\n# Body\nText $ARGUMENTS\n",
        );
        assert_eq!(d.get("name"), Some("pdf-tools"));
        assert_eq!(
            d.get("description"),
            Some("Extract text from PDFs. Use for forms.")
        );
        assert_eq!(d.get("argument-hint"), Some("[file] [pages]"));
        assert_eq!(d.get("allowed-tools"), Some("Bash(git status:*), Read"));
        assert_eq!(d.get("author"), None);
        assert_eq!(d.body, "# Body\nText $ARGUMENTS\n");
        let listed =
            parse("---\nname: r\ntools:\n  - Read\n  - \"mcp__github\"\nmodel: inherit\n---\n");
        assert_eq!(listed.get("tools"), Some("Read, mcp__github"));
        assert_eq!(listed.get("model"), Some("inherit"));
        let plain = parse("Review the diff.\n");
        assert!(plain.fields.is_empty());
        assert_eq!(plain.body, "Review the diff.\n");
        assert_eq!(parse("---\nno end\n").body, "---\nno end\n");
    }
}
