//! Entry points for the `cargo fuzz` targets in `fuzz/` (libFuzzer), which
//! live outside the crate and so reach its parsers only through here. Not
//! part of hermes' interface: nothing else uses them.

/// Classifies one call as the agent would.
pub fn classify(name: &str, raw_arguments: &str) {
    let _ = crate::call::classify(name, raw_arguments);
}

/// Folds stream chunks (one JSON `data:` payload each) into a message.
pub fn assemble<'a>(payloads: impl Iterator<Item = &'a str>) {
    let mut asm = crate::provider::openai::stream::Assembler::default();
    for p in payloads {
        if let Ok(chunk) = serde_json::from_str(p) {
            asm.push(chunk);
        }
    }
    let _ = asm.finish();
}
