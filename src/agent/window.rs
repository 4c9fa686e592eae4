//! How full the model's context window is: the window of the model in use
//! (config, a refusal that named it, the table of well-known models), and
//! the size of the next request — estimated from its bytes at the rate the
//! provider's own count of the previous request gave, so the estimate
//! follows the provider's tokenizer rather than a fixed guess.

use crate::config::{ConfiguredWindows, ContextSettings};
use crate::model::Message;
use crate::model::ToolSpec;
use crate::provider::Overflow;

/// Tokens per byte before any request was counted: 3.5 bytes a token, a
/// little fuller than English prose, as code and JSON are.
const FIRST_RATE: f64 = 1.0 / 3.5;

/// A model whose window nothing names is looked up in the provider's model
/// listing once a request reaches this size: below it any model fits, and
/// a short session costs no extra request.
const LOOKUP_FROM: u64 = 2_048;

#[derive(Debug, Clone)]
pub(crate) struct Meter {
    configured: ConfiguredWindows,
    pub(crate) settings: ContextSettings,
    /// Windows providers named when they refused a request, by model.
    learned: Vec<(String, u64)>,
    /// Windows the provider's model listing gave, by model.
    reported: Vec<(String, u64)>,
    looked_up: bool,
    rate: f64,
    /// The last request's tokens as the provider counted them (input and
    /// output: the output is history too), for `/usage`.
    pub(crate) last_tokens: Option<u64>,
    /// Whether the user was told the window is filling up, since the last
    /// compaction.
    pub(crate) warned: bool,
    /// A resumed session's last request: the messages it carried and the
    /// tokens the provider counted, to calibrate against at the first
    /// request (when the tool definitions are known).
    pub(crate) resumed_count: Option<(usize, u64)>,
    /// The size of the request last sent, to calibrate against when the
    /// provider counts it.
    sent_bytes: u64,
}

impl Meter {
    pub(crate) fn new(configured: ConfiguredWindows, settings: ContextSettings) -> Meter {
        Meter {
            configured,
            settings,
            learned: Vec::new(),
            reported: Vec::new(),
            looked_up: false,
            rate: FIRST_RATE,
            last_tokens: None,
            warned: false,
            resumed_count: None,
            sent_bytes: 0,
        }
    }

    /// A resumed session's last request as the provider counted it (none
    /// for a new session), to calibrate against at its first request.
    pub(crate) fn resume_from(&mut self, last_usage: Option<(usize, u64)>) {
        self.resumed_count = last_usage;
    }

    /// Calibrates against a resumed session's last request, once.
    pub(crate) fn calibrate_resumed(&mut self, messages: &[Message], tools: &[ToolSpec]) {
        if let Some((n, tokens)) = self.resumed_count.take() {
            if n <= messages.len() {
                self.calibrate(request_bytes(&messages[..n], tools), tokens);
            }
        }
    }

    /// The window of `model` in tokens, if anything says: a refusal's
    /// words first (the provider knows), then config, then the provider's
    /// model listing, then the table.
    pub(crate) fn window(&self, model: &str) -> Option<u64> {
        let of = |list: &[(String, u64)]| list.iter().find(|(m, _)| m == model).map(|(_, w)| *w);
        of(&self.learned)
            .or_else(|| self.configured.of(model))
            .or_else(|| of(&self.reported))
            .or_else(|| crate::provider::known_window(model))
    }

    /// Whether to ask the provider's model listing for `model`'s window
    /// before a request of `next` tokens: nothing else names it, the request
    /// is large enough to matter, and this run has not asked yet.
    pub(crate) fn wants_lookup(&mut self, model: &str, next: u64) -> bool {
        let ask = !self.looked_up && next >= LOOKUP_FROM && self.window(model).is_none();
        self.looked_up |= ask;
        ask
    }

    /// The provider's listing gave `model`'s window.
    pub(crate) fn report(&mut self, model: &str, window: u64) {
        self.reported.push((model.to_string(), window));
    }

    /// A provider's refusal named `model`'s window.
    pub(crate) fn learn(&mut self, model: &str, window: u64) {
        self.learned.retain(|(m, _)| m != model);
        self.learned.push((model.to_string(), window));
    }

    /// The provider refused a request of `bytes` as too long for `model`.
    /// What its words say is taken as they say it: the window, and the
    /// request's true size (which calibrates the rate). What they leave
    /// out is inferred: the request was past the window, so either the
    /// window known is too large or the rate too small.
    /// A request of `bytes` was sent.
    pub(crate) fn sent(&mut self, bytes: u64) {
        self.sent_bytes = bytes;
    }

    /// The provider counted the request last sent as `prompt_tokens`.
    pub(crate) fn counted(&mut self, prompt_tokens: u64) {
        self.calibrate(self.sent_bytes, prompt_tokens);
    }

    pub(crate) fn refused(&mut self, model: &str, said: Overflow) {
        let bytes = self.sent_bytes;
        if let Some(w) = said.window {
            self.learn(model, w);
        }
        if let Some(t) = said.tokens {
            self.calibrate(bytes, t);
            if said.window.is_none() {
                self.learn(model, t * 9 / 10);
            }
            return;
        }
        let sent = self.estimate(bytes);
        match self.window(model) {
            Some(w) if sent <= w => self.rate = w as f64 * 1.05 / bytes.max(1) as f64,
            Some(_) if said.window.is_some() => {}
            _ => self.learn(model, sent * 9 / 10),
        }
    }

    /// Tokens of a request of `bytes` (see [`request_bytes`]).
    pub(crate) fn estimate(&self, bytes: u64) -> u64 {
        (bytes as f64 * self.rate).ceil() as u64
    }

    /// Bytes that hold about `tokens`.
    pub(crate) fn bytes_for(&self, tokens: u64) -> u64 {
        (tokens as f64 / self.rate) as u64
    }

    /// The provider counted `prompt_tokens` for a request of `bytes`. A
    /// count no tokenizer gives (under one token in ten bytes, over one in
    /// 1.5) is held to those bounds: a provider that reports only part of
    /// the input must not make a full window look empty.
    pub(crate) fn calibrate(&mut self, bytes: u64, prompt_tokens: u64) {
        if bytes > 0 && prompt_tokens > 0 {
            self.rate = (prompt_tokens as f64 / bytes as f64).clamp(0.1, 1.0 / 1.5);
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
/// What one image counts for in a request's size.
const IMAGE_BYTES: u64 = 6_400;

pub(super) fn message_bytes(m: &Message) -> u64 {
    // Role, braces and separators.
    const FRAME: u64 = 16;
    FRAME
        + match m {
            Message::System { content } => content.len() as u64,
            Message::User { content, images } => {
                content.len() as u64 + images.len() as u64 * IMAGE_BYTES
            }
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
            // An image costs tokens by its pixels, not its bytes: about
            // 1 600 for a screenshot the APIs scale down (Anthropic counts
            // width × height / 750), taken at 4 bytes a token.
            Message::Tool(r) => {
                24 + (r.tool_call_id.len() + r.content.len()) as u64
                    + IMAGE_BYTES * r.images.len() as u64
            }
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
    fn a_resumed_sessions_last_count_calibrates_the_first_estimate() {
        let messages = vec![
            Message::System {
                content: "s".repeat(984),
            },
            Message::user("u".repeat(984)),
        ];
        let mut m = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        m.resume_from(Some((1, 100)));
        m.calibrate_resumed(&messages, &[]);
        // 1 000 bytes counted as 100 tokens: a tenth of a token a byte.
        assert_eq!(m.estimate(request_bytes(&messages, &[])), 200);
        assert!(m.resumed_count.is_none(), "once");
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
        // 11 tokens for 100 KB: no tokenizer counts so; held to a tenth.
        m.calibrate(100_000, 11);
        assert_eq!(m.estimate(1_000), 100);
    }

    #[test]
    fn a_refusal_corrects_the_window_or_the_rate() {
        let said = |window, tokens| Overflow { window, tokens };
        let mut m = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        // OpenAI and Anthropic say both numbers.
        m.sent(24_000);
        m.refused("a", said(Some(5_000), Some(6_000)));
        assert_eq!((m.window("a"), m.estimate(24_000)), (Some(5_000), 6_000));
        // Bedrock says neither: a known window stays, the rate rises past it.
        let mut m = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        m.sent(350_000);
        m.refused("claude-x", said(None, None));
        assert_eq!(m.window("claude-x"), Some(200_000));
        assert!(m.estimate(350_000) > 200_000);
        // No window anywhere: a little under what was sent.
        let mut m = Meter::new(ConfiguredWindows::default(), ContextSettings::default());
        m.sent(35_000);
        m.refused("b", said(None, None));
        assert_eq!(m.window("b"), Some(9_000));
    }
}
