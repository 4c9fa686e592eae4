//! How full the model's context window is: the window of the model in use
//! (config, a refusal that named it, the table of well-known models), and
//! the size of the next request — estimated from its bytes at the rate the
//! provider's own count of the previous request gave, so the estimate
//! follows the provider's tokenizer rather than a fixed guess.

use crate::config::{ConfiguredWindows, ContextSettings};
use crate::provider::ToolSpec;
use crate::session::Message;

/// Tokens per byte before any request was counted: 3.5 bytes a token, a
/// little fuller than English prose, as code and JSON are.
const FIRST_RATE: f64 = 1.0 / 3.5;

#[derive(Debug, Clone)]
pub struct Meter {
    configured: ConfiguredWindows,
    pub(crate) settings: ContextSettings,
    /// Windows providers named when they refused a request, by model.
    learned: Vec<(String, u64)>,
    rate: f64,
    /// The last request's tokens as the provider counted them (input and
    /// output: the output is history too), for `/usage`.
    pub(crate) last_tokens: Option<u64>,
    /// Whether the user was told the window is filling up, since the last
    /// compaction.
    pub(crate) warned: bool,
}

impl Meter {
    pub fn new(configured: ConfiguredWindows, settings: ContextSettings) -> Meter {
        Meter {
            configured,
            settings,
            learned: Vec::new(),
            rate: FIRST_RATE,
            last_tokens: None,
            warned: false,
        }
    }

    /// The window of `model` in tokens, if anything says: a refusal's
    /// words first (the provider knows), then config, then the table.
    pub fn window(&self, model: &str) -> Option<u64> {
        self.learned
            .iter()
            .find(|(m, _)| m == model)
            .map(|(_, w)| *w)
            .or_else(|| self.configured.of(model))
            .or_else(|| crate::provider::known_window(model))
    }

    /// A provider's refusal named `model`'s window.
    pub fn learn(&mut self, model: &str, window: u64) {
        self.learned.retain(|(m, _)| m != model);
        self.learned.push((model.to_string(), window));
    }

    /// The provider refused a request of `bytes` as too long for
    /// `model`, naming its `window` or not. Unnamed, the request was at
    /// least the window: the window known is corrected down to it, or
    /// the rate up, whichever the estimate got wrong.
    pub fn refused(&mut self, model: &str, window: Option<u64>, bytes: u64) {
        let sent = self.estimate(bytes);
        match (window, self.window(model)) {
            (Some(w), _) => self.learn(model, w),
            (None, Some(w)) if sent > w => self.learn(model, sent * 9 / 10),
            (None, Some(w)) => self.rate = w as f64 * 1.05 / bytes.max(1) as f64,
            (None, None) => self.learn(model, sent * 9 / 10),
        }
    }

    /// Tokens of a request of `bytes` (see [`request_bytes`]).
    pub fn estimate(&self, bytes: u64) -> u64 {
        (bytes as f64 * self.rate).ceil() as u64
    }

    /// Bytes that hold about `tokens`.
    pub fn bytes_for(&self, tokens: u64) -> u64 {
        (tokens as f64 / self.rate) as u64
    }

    /// The provider counted `prompt_tokens` for a request of `bytes`.
    pub fn calibrate(&mut self, bytes: u64, prompt_tokens: u64) {
        if bytes > 0 && prompt_tokens > 0 {
            self.rate = prompt_tokens as f64 / bytes as f64;
        }
    }
}

/// The size of a request in bytes of what it carries: every message's
/// text, tool calls and provider blocks, and every tool definition. Not the
/// wire body (each API wraps it differently), but proportional to it, which
/// is what the calibrated rate needs.
pub(super) fn request_bytes(messages: &[Message], tools: &[ToolSpec]) -> u64 {
    let messages: u64 = messages.iter().map(message_bytes).sum();
    let tools: u64 = tools
        .iter()
        .map(|t| 16 + t.name.len() as u64 + t.description.len() as u64 + value_bytes(&t.parameters))
        .sum();
    messages + tools
}

/// One message's share of [`request_bytes`].
pub(super) fn message_bytes(m: &Message) -> u64 {
    // Role, braces and separators.
    const FRAME: u64 = 16;
    FRAME
        + match m {
            Message::System { content } | Message::User { content } => content.len() as u64,
            Message::Assistant {
                content,
                tool_calls,
                native,
            } => match native {
                Some(n) => n.blocks.iter().map(|b| 1 + value_bytes(b)).sum(),
                None => {
                    content.len() as u64
                        + tool_calls
                            .iter()
                            .map(|c| 24 + (c.id.len() + c.name.len() + c.arguments.len()) as u64)
                            .sum::<u64>()
                }
            },
            Message::Tool(r) => 24 + (r.tool_call_id.len() + r.content.len()) as u64,
        }
}

/// About the bytes of `v` as JSON, without writing it out.
fn value_bytes(v: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match v {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() as u64 + 2,
        Value::Array(a) => 2 + a.iter().map(|x| 1 + value_bytes(x)).sum::<u64>(),
        Value::Object(o) => {
            2 + o
                .iter()
                .map(|(k, x)| k.len() as u64 + 4 + value_bytes(x))
                .sum::<u64>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_comes_from_a_refusal_then_config_then_the_table() {
        let configured = ConfiguredWindows {
            provider: Some(32_000),
            models: [("small".to_string(), 8_000)].into(),
        };
        let mut m = Meter::new(configured, ContextSettings::default());
        assert_eq!(m.window("small"), Some(8_000));
        assert_eq!(m.window("gpt-4o"), Some(32_000));
        m.learn("small", 4_096);
        assert_eq!(m.window("small"), Some(4_096));
        let bare = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        assert_eq!(bare.window("gpt-4o"), Some(128_000));
        assert_eq!(bare.window("test-model"), None);
    }

    #[test]
    fn the_estimate_follows_the_providers_count() {
        let mut m = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        assert_eq!(m.estimate(3_500), 1_000);
        m.calibrate(10_000, 2_500);
        assert_eq!(m.estimate(20_000), 5_000);
        assert_eq!(m.bytes_for(5_000), 20_000);
        m.calibrate(0, 10);
        assert_eq!(m.estimate(4), 1);
    }
}
