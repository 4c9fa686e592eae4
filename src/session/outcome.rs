//! The words a session file records for how something ended, typed: an
//! entry's approval (`allow`, `deny`) and a turn that got no answer
//! (`turn_ended`'s `how`). Written as the text they always were, so older
//! files read back the same.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How an entry's approval was settled (`--json` and the session file:
/// `allow` or `deny`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Settled {
    Allow,
    Deny,
}

/// Why the last request of a session got no answer, which the next user
/// message tells the model (`[hermes: the previous request was … before
/// you answered it.]`) and the session records (`turn_ended`).
#[derive(Debug, Clone, PartialEq)]
pub enum Unanswered {
    /// Found so on resume: the run ended before the answer came.
    Interrupted,
    /// The user stopped the turn.
    Stopped,
    /// The turn failed: the error.
    Failed(String),
}

impl std::fmt::Display for Unanswered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanswered::Interrupted => write!(f, "interrupted"),
            Unanswered::Stopped => write!(f, "stopped by the user"),
            Unanswered::Failed(e) => write!(f, "ended by an error ({e})"),
        }
    }
}

impl Unanswered {
    /// The record's text read back; a text no version wrote is kept as
    /// the failure it says.
    fn from_text(text: &str) -> Unanswered {
        match text {
            "interrupted" => Unanswered::Interrupted,
            "stopped by the user" => Unanswered::Stopped,
            _ => Unanswered::Failed(
                text.strip_prefix("ended by an error (")
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(text)
                    .to_string(),
            ),
        }
    }
}

impl Serialize for Unanswered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Unanswered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|t| Unanswered::from_text(&t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_is_written_as_its_text_and_read_back() {
        for how in [
            Unanswered::Interrupted,
            Unanswered::Stopped,
            Unanswered::Failed("provider openai: 500 (server error)".into()),
        ] {
            let text = serde_json::to_string(&how).unwrap();
            assert_eq!(text, serde_json::to_string(&how.to_string()).unwrap());
            assert_eq!(serde_json::from_str::<Unanswered>(&text).unwrap(), how);
        }
        assert_eq!(
            serde_json::from_str::<Unanswered>(r#""gone away""#).unwrap(),
            Unanswered::Failed("gone away".into())
        );
        assert_eq!(serde_json::to_string(&Settled::Deny).unwrap(), r#""deny""#);
        assert_eq!(
            serde_json::from_str::<Settled>(r#""allow""#).unwrap(),
            Settled::Allow
        );
    }
}
