//! A Markdown table, drawn once its last row has come: a box whose columns
//! are as wide as their widest cell as rendered (emphasis, code), aligned as
//! the delimiter row says, the header bold. A table wider than the
//! terminal gives its widest columns up first and wraps their cells.

use super::style::{BOLD, DIM, RESET};
use super::wrap::{width, wrap};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Align {
    Left,
    Center,
    Right,
}

/// Whether `line` can be a row of a table (it starts with `|`).
pub(super) fn is_row(line: &str) -> bool {
    line.trim_start().starts_with('|')
}

/// The cells of a row: split at `|` that is not escaped or in a code span.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = line.strip_suffix('|').unwrap_or(line);
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut code = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '`' => {
                code = !code;
                cell.push(c);
            }
            '|' if !code => out.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    out.push(cell.trim().to_string());
    out
}

/// The alignments a delimiter row (`| :--- | :-: | --: |`) gives, or `None`
/// when it is not one.
fn delimiters(line: &str) -> Option<Vec<Align>> {
    cells(line)
        .iter()
        .map(|c| {
            let dashes = c.trim_matches(':');
            if dashes.is_empty() || !dashes.bytes().all(|b| b == b'-') {
                return None;
            }
            Some(match (c.starts_with(':'), c.ends_with(':')) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

/// The rows drawn as a table to fit `columns` (0: any width), each cell's
/// text rendered by `inline`; `None` when they are not a table (no
/// delimiter row second), to be shown as lines.
pub(super) fn render(
    rows: &[String],
    columns: usize,
    inline: impl Fn(&str) -> String,
) -> Option<String> {
    let aligns = delimiters(rows.get(1)?)?;
    let n = aligns.len();
    let body: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 1)
        .map(|(_, r)| {
            let mut c: Vec<String> = cells(r).iter().map(|c| inline(c)).collect();
            c.resize(n, String::new());
            c
        })
        .collect();
    let mut widths: Vec<usize> = (0..n)
        .map(|k| body.iter().map(|r| width(&r[k])).max().unwrap_or(0).max(1))
        .collect();
    fit(&mut widths, columns);
    let line = |l: &str, m: &str, r: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(w + 2)).collect();
        format!("{DIM}{l}{}{r}{RESET}\n", parts.join(m))
    };
    let mut out = line("┌", "┬", "┐");
    for (i, row) in body.iter().enumerate() {
        let wrapped: Vec<Vec<String>> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| wrap(c, *w, "", ""))
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        for h in 0..height {
            out.push_str(&format!("{DIM}│{RESET}"));
            for ((cell, w), a) in wrapped.iter().zip(&widths).zip(&aligns) {
                let text = cell.get(h).map_or("", String::as_str);
                let pad = w.saturating_sub(width(text));
                let (before, after) = match a {
                    Align::Left => (0, pad),
                    Align::Right => (pad, 0),
                    Align::Center => (pad / 2, pad - pad / 2),
                };
                let text = if i == 0 && !text.is_empty() {
                    format!("{BOLD}{text}{RESET}")
                } else {
                    text.to_string()
                };
                out.push_str(&format!(
                    " {}{text}{} {DIM}│{RESET}",
                    " ".repeat(before),
                    " ".repeat(after)
                ));
            }
            out.push('\n');
        }
        if i == 0 {
            out.push_str(&line("├", "┼", "┤"));
        }
    }
    out.push_str(&line("└", "┴", "┘"));
    Some(out)
}

/// Narrows the widest columns until the table fits `columns` — each keeps
/// at least 6 (or its own width, if less), so a very narrow terminal gets
/// a table wider than itself rather than a column of single letters.
fn fit(widths: &mut [usize], columns: usize) {
    if columns == 0 {
        return;
    }
    // `│ ` before each cell, ` ` after it, and the last `│`.
    let frame = 3 * widths.len() + 1;
    let floor: Vec<usize> = widths.iter().map(|w| (*w).min(6)).collect();
    while widths.iter().sum::<usize>() + frame > columns {
        let Some((k, _)) = widths
            .iter()
            .enumerate()
            .filter(|(k, w)| **w > floor[*k])
            .max_by_key(|(_, w)| **w)
        else {
            return;
        };
        widths[k] -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> String {
        s.replace(DIM, "").replace(BOLD, "").replace(RESET, "")
    }

    fn table(text: &str, columns: usize) -> Option<String> {
        let rows: Vec<String> = text.lines().map(str::to_string).collect();
        render(&rows, columns, |c| c.to_string()).map(|t| plain(&t))
    }

    #[test]
    fn columns_are_aligned_as_the_delimiter_row_says() {
        let got = table(
            "| Tool | Calls | Share |\n|:-----|------:|:-----:|\n| read_file | 12 | 40% |\n| grep | 3 | 10% |",
            0,
        )
        .unwrap();
        assert_eq!(
            got,
            "┌───────────┬───────┬───────┐\n\
             │ Tool      │ Calls │ Share │\n\
             ├───────────┼───────┼───────┤\n\
             │ read_file │    12 │  40%  │\n\
             │ grep      │     3 │  10%  │\n\
             └───────────┴───────┴───────┘\n"
        );
    }

    #[test]
    fn a_centred_column_is_centred_in_every_form_of_its_delimiter() {
        for delimiter in ["|:-:|---|", "| :---: | --- |", "|:---:|:---|"] {
            let got = table(
                &format!("| Share | x |\n{delimiter}\n| 40% of all | y |\n| 5% | z |"),
                0,
            )
            .unwrap();
            assert!(got.contains("│     5%     │"), "{delimiter}: {got}");
            assert!(got.contains("│   Share    │"), "{delimiter}: {got}");
        }
    }

    #[test]
    fn a_table_wider_than_the_terminal_wraps_its_widest_cells() {
        let got = table(
            "| Step | What to do |\n|---|---|\n| 1 | Move the read after the server has started and keep the timeout |",
            40,
        )
        .unwrap();
        assert!(got.lines().all(|l| width(l) <= 40), "{got}");
        assert!(
            got.contains("│ 1    │ Move the read after the       │"),
            "{got}"
        );
        assert!(
            got.contains("│      │ server has started and keep   │"),
            "{got}"
        );
        assert!(
            got.contains("│      │ the timeout                   │"),
            "{got}"
        );
    }

    #[test]
    fn rows_without_a_delimiter_row_are_no_table_and_pipes_in_code_stay() {
        assert_eq!(table("| a | b |\n| c | d |", 0), None);
        assert_eq!(cells("| `a|b` | c \\| d |"), ["`a|b`", "c | d"]);
        // A short row is filled out, a long one cut to the header's columns.
        let got = table("| a | b |\n|---|---|\n| only |", 0).unwrap();
        assert!(got.contains("│ only │   │"), "{got}");
    }
}
