//! Removing sessions: `hermes sessions rm` and `prune`, and a new session
//! that never got an answer. A session another hermes has open is never
//! removed under it: its writer's lock is taken first.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::index::{self, Summary};
use super::{lock, SessionError};

/// Removes the session file at `path` (and its pid note), unless another
/// hermes holds it.
pub(crate) fn remove(path: &Path, id: &str) -> Result<(), SessionError> {
    if !crate::util::private::own_file(path) {
        return Err(SessionError::NotOurs {
            path: path.to_path_buf(),
        });
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.append(true);
    let file = crate::util::private::no_follow(&mut opts)
        .open(path)
        .map_err(|e| SessionError::io(path, e))?;
    // Held while the file goes; dropped after, which removes the note.
    let _held = lock::Held::take(&file, path, id)?;
    std::fs::remove_file(path).map_err(|e| SessionError::io(path, e))
}

/// The sessions last written more than `age` ago, oldest first.
pub(crate) fn older_than(sessions_dir: &Path, age: Duration) -> Vec<Summary> {
    let Some(cutoff) = SystemTime::now().checked_sub(age) else {
        return Vec::new();
    };
    index::all_files(sessions_dir)
        .into_iter()
        .filter(|p| {
            std::fs::metadata(p)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t < cutoff)
        })
        .filter_map(|p| index::summary(&p))
        .collect()
}

/// `30d`, `12h`, `2w`, `90m`: an age as `sessions prune --older-than`
/// takes it.
pub(crate) fn parse_age(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (n, unit) = text.split_at(split);
    let n: u64 = n
        .parse()
        .map_err(|_| format!("`{text}` is not an age; write it as 30d, 12h, 2w or 90m"))?;
    let secs = match unit {
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => {
            return Err(format!(
                "`{text}` has no known unit; write it as 30d, 12h, 2w or 90m"
            ))
        }
    };
    Ok(Duration::from_secs(n.saturating_mul(secs)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_with_their_unit() {
        assert_eq!(parse_age("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_age("2w"), Ok(Duration::from_secs(14 * 86_400)));
        assert_eq!(parse_age("90m"), Ok(Duration::from_secs(90 * 60)));
        assert!(parse_age("30").unwrap_err().contains("no known unit"));
        assert!(parse_age("d").unwrap_err().contains("not an age"));
    }
}
